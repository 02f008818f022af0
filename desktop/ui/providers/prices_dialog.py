"""Settings → Model prices: the user's own per-model prices (USD per million tokens)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.core.settings import ModelPrice
from desktop.ui.error_text import exception_text

if TYPE_CHECKING:
    from desktop.ui.window.dialog_registry import DialogServices

# (translated where the table is made)
COLUMNS = [str(QT_TRANSLATE_NOOP("PricesDialog", "Model id")),
           str(QT_TRANSLATE_NOOP("PricesDialog", "Input $/M")),
           str(QT_TRANSLATE_NOOP("PricesDialog", "Output $/M")),
           str(QT_TRANSLATE_NOOP("PricesDialog", "Cached input $/M"))]


class PricesDialog(QDialog):
    pricesChanged = Signal(dict)  # model id -> ModelPrice

    @classmethod
    def for_window(cls, services: DialogServices, parent: QWidget) -> PricesDialog:
        """Built by the window's dialog launcher (dialog_registry)."""
        return cls(dict(services.settings.current.prices), parent)

    def __init__(self, prices: dict[str, ModelPrice], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Model prices"))
        self.resize(640, 400)
        layout = QVBoxLayout(self)
        hint = QLabel(self.tr("Costs use the provider's own figure when it reports one, then these "
                      "prices, then a built-in table of common models. Prices are US dollars "
                      "per million tokens; the model id must match exactly."))
        hint.setWordWrap(True)
        hint.setObjectName("emptyHint")
        layout.addWidget(hint)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels([self.tr(title) for title in COLUMNS])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setAccessibleName(self.tr("Model prices"))
        layout.addWidget(self.table, 1)
        row = QHBoxLayout()
        add = QPushButton(self.tr("Add row"))
        remove = QPushButton(self.tr("Remove row"))
        add.clicked.connect(lambda: self.add_row("", None))
        remove.clicked.connect(lambda: self.table.removeRow(self.table.currentRow()))
        row.addWidget(add)
        row.addWidget(remove)
        row.addStretch(1)
        self.error = QLabel()
        self.error.setObjectName("messageStatus")
        self.error.setProperty("kind", "error")
        row.addWidget(self.error)
        layout.addLayout(row)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        for model, price in sorted(prices.items()):
            self.add_row(model, price)

    def add_row(self, model: str, price: ModelPrice | None) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        values = [model, "", "", ""]
        if price is not None:
            values[1:] = [f"{price.input:g}", f"{price.output:g}",
                          "" if price.cached_input is None else f"{price.cached_input:g}"]
        for column, value in enumerate(values):
            self.table.setItem(row, column, QTableWidgetItem(value))

    def _cell(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return item.text().strip() if item is not None else ""

    def prices(self) -> dict[str, ModelPrice]:
        """The table as prices; raises ValueError naming the first bad cell."""
        result: dict[str, ModelPrice] = {}
        for row in range(self.table.rowCount()):
            cells = [self._cell(row, c) for c in range(len(COLUMNS))]
            model = cells[0]
            if not model and not any(cells[1:]):
                continue
            if not model:
                raise ValueError(self.tr("Row {row}: enter a model id.").format(row=row + 1))
            try:
                numbers = [float(c) if c else None for c in cells[1:]]
            except ValueError:
                raise ValueError(self.tr("Row {row}: prices must be numbers.").format(
                    row=row + 1)) from None
            if numbers[0] is None or numbers[1] is None:
                raise ValueError(self.tr("Row {row}: enter input and output prices.").format(
                    row=row + 1))
            if any(n is not None and n < 0 for n in numbers):
                raise ValueError(self.tr("Row {row}: prices cannot be negative.").format(
                    row=row + 1))
            result[model] = ModelPrice(input=numbers[0], output=numbers[1],
                                       cached_input=numbers[2])
        return result

    def _save(self) -> None:
        try:
            prices = self.prices()
        except ValueError as exc:
            self.error.setText(exception_text(exc))
            return
        self.pricesChanged.emit(prices)
        self.accept()
