"""Preferences → Request inspector: whether requests are recorded, how long and how
much is kept, and emptying the record."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QWidget,
)

from desktop.core.settings import AppSettings
from desktop.ui.form_rows import whole
from desktop.ui.plain_text import plain_label


class InspectorSettings(QWidget):
    def __init__(self, clear: Callable[[], int] | None = None,
                 parent: QWidget | None = None) -> None:
        """``clear()`` deletes every recorded request and says how many there were."""
        super().__init__(parent)
        self._clear = clear
        form = QFormLayout(self)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.enabled_check = whole(QCheckBox(self.tr("Record every request sent to a model")))
        self.enabled_check.setToolTip(self.tr("What was sent (keys and tokens hidden), what "
                                              "came back and the timings, for Inspect on "
                                              "each answer and assista inspect"))
        form.addRow(self.tr("Recording"), self.enabled_check)
        self.days_spin = QSpinBox()
        self.days_spin.setRange(1, 3650)
        self.days_spin.setSuffix(self.tr(" days"))
        self.days_spin.setAccessibleName(self.tr("Keep recorded requests for"))
        form.addRow(self.tr("Keep for"), self.days_spin)
        self.mb_spin = QSpinBox()
        self.mb_spin.setRange(1, 100_000)
        self.mb_spin.setSuffix(self.tr(" MB"))
        self.mb_spin.setAccessibleName(self.tr("Largest size of the recorded requests"))
        form.addRow(self.tr("At most"), self.mb_spin)
        hint = QLabel(self.tr("The oldest requests are deleted first, when the app starts "
                              "and after each answer. They are kept in inspector.sqlite in "
                              "the data folder, apart from the chats (not synced)."))
        hint.setObjectName("emptyHint")
        hint.setWordWrap(True)
        form.addRow("", hint)
        self.clear_button = QPushButton(self.tr("Delete all recorded requests"))
        self.clear_button.clicked.connect(self.clear)
        self.clear_button.setEnabled(clear is not None)
        self.cleared: QLabel = plain_label()
        # (in the field column: a button in the label column widened it and squeezed
        # the fields beside it)
        clear_row = QHBoxLayout()
        clear_row.addWidget(self.clear_button)
        clear_row.addWidget(self.cleared, 1)
        form.addRow("", clear_row)

    def load(self, settings: AppSettings) -> None:
        self.enabled_check.setChecked(settings.inspector_enabled)
        self.days_spin.setValue(settings.inspector_retention_days)
        self.mb_spin.setValue(settings.inspector_retention_mb)

    def changes(self) -> dict[str, object]:
        return {"inspector_enabled": self.enabled_check.isChecked(),
                "inspector_retention_days": self.days_spin.value(),
                "inspector_retention_mb": self.mb_spin.value()}

    def clear(self) -> None:
        if self._clear is None:
            return
        count = self._clear()
        self.cleared.setText(self.tr("Deleted %n recorded requests.", "", count))
