"""The model chooser of Compare: 2 to 4 models from every configured provider.

The same list as the top bar's model picker (its rows, badges and sections: Favourites,
Recent, then each provider; type to filter), where a click adds a model to the
chosen ones or takes it out again; a chosen row is checked. From the keyboard: type
to filter, ↑/↓ to move, Enter to add or take out, Ctrl+Enter to compare. The chosen
ones are listed below, in order (the first one's answer is shown in the chat unless
another is kept).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QItemSelectionModel, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.compare_run import MAX_MODELS, MIN_MODELS
from desktop.chat.model_catalog import ModelCatalog, ModelEntry
from desktop.ui import model_words
from desktop.ui.plain_text import plain_tooltip
from desktop.ui.window.model_picker import ENTRY_ROLE, ModelRowDelegate


class CompareChooser(QDialog):
    def __init__(self, catalog: ModelCatalog, chosen: list[tuple[str, str]] | None = None,
                 *, minimum: int = MIN_MODELS, parent: QWidget | None = None) -> None:
        """``chosen``: (provider id, model) pairs picked already (the chat's model);
        ``minimum``: 1 when asking other models about an answer that is there."""
        super().__init__(parent)
        self.catalog = catalog
        self.minimum = minimum
        self.chosen: list[tuple[str, str]] = list(chosen or [])[:MAX_MODELS]
        self._names: dict[tuple[str, str], str] = {}
        self.setWindowTitle(self.tr("Compare models"))
        self.resize(520, 560)
        layout = QVBoxLayout(self)
        hint = QLabel(self.tr("Pick {low} to {high} models. Each answers the same question "
                              "with this chat's conversation, attachments and tools; "
                              "every answer is kept as a version of the reply.").format(
            low=minimum, high=MAX_MODELS) + " " + self.tr(
            "Keys: type to search, ↑/↓ to move, Enter to add or remove, Ctrl+Enter to "
            "compare."))
        hint.setWordWrap(True)
        hint.setObjectName("emptyHint")
        layout.addWidget(hint)
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Search models"))
        self.search.setAccessibleName(self.tr("Search models"))
        self.search.setClearButtonEnabled(True)
        layout.addWidget(self.search)
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Models"))
        self.list.setSelectionMode(QListWidget.SelectionMode.MultiSelection)
        self.list.setVerticalScrollMode(QListWidget.ScrollMode.ScrollPerPixel)
        self.list.setItemDelegate(ModelRowDelegate(self.list, checks=True))
        layout.addWidget(self.list, 1)
        self.chosen_label = QLabel()
        self.chosen_label.setTextFormat(Qt.TextFormat.PlainText)  # model names: plain
        self.chosen_label.setWordWrap(True)
        self.chosen_label.setAccessibleName(self.tr("Chosen models"))
        layout.addWidget(self.chosen_label)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.compare_button = QPushButton(self.tr("Compare"))
        self.compare_button.setObjectName("primaryButton")
        self.compare_button.setDefault(True)
        buttons.addButton(self.compare_button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.search.textChanged.connect(self._search_changed)
        self.search.installEventFilter(self)
        # Clicks, Space and Ctrl+A all go through the selection (keyboard included).
        self.list.itemSelectionChanged.connect(self._selection_changed)
        self.refresh()

    def refresh(self, *, keep_row: bool = False) -> None:
        """The models matching the search, the chosen ones selected (``keep_row``: the
        keyboard stays on the row it was on)."""
        row = self.list.currentRow() if keep_row else -1
        self.list.blockSignals(True)
        self.list.clear()
        for section in self.catalog.sections(self.search.text().strip(),
                                             model_words.badge_text):
            header = QListWidgetItem(model_words.section_title(section))
            header.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.addItem(header)
            for entry in section.entries:
                item = QListWidgetItem(entry.model)
                item.setData(ENTRY_ROLE, entry)
                item.setToolTip(plain_tooltip(f"{entry.model} — {entry.provider_name}"))
                self.list.addItem(item)
                self._names[(entry.provider_id, entry.model)] = (
                    f"{entry.model} ({entry.provider_name})")
                chosen = (entry.provider_id, entry.model) in self.chosen
                item.setSelected(chosen)
                item.setData(Qt.ItemDataRole.CheckStateRole,
                             Qt.CheckState.Checked if chosen else Qt.CheckState.Unchecked)
        if row >= 0:
            self.list.setCurrentRow(row, QItemSelectionModel.SelectionFlag.NoUpdate)
        self.list.blockSignals(False)
        self._update()

    def _search_changed(self) -> None:
        """Filter, with the first model found highlighted (Enter adds it)."""
        self.refresh()
        if self.search.text().strip():
            self._move(1, self._first_model_row() - 1)

    def _first_model_row(self) -> int:
        return next((r for r in range(self.list.count())
                     if isinstance(self.list.item(r).data(ENTRY_ROLE), ModelEntry)), -1)

    def _move(self, step: int, start: int | None = None) -> None:
        """Highlight the next model row up or down (titles are skipped)."""
        row = (self.list.currentRow() if start is None else start) + step
        while 0 <= row < self.list.count():
            if isinstance(self.list.item(row).data(ENTRY_ROLE), ModelEntry):
                self.list.setCurrentRow(row, QItemSelectionModel.SelectionFlag.NoUpdate)
                return
            row += step

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # The keyboard stays in the search field: arrows move in the list, Enter adds
        # or takes out the highlighted model, Ctrl+Enter compares.
        if watched is self.search and isinstance(event, QKeyEvent) and \
                event.type() == QEvent.Type.KeyPress:
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
                self._move(1 if key == Qt.Key.Key_Down else -1)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                    if self.compare_button.isEnabled():
                        self.accept()
                else:
                    self._toggle_current()
                return True
        return super().eventFilter(watched, event)

    def _toggle_current(self) -> None:
        item = self.list.currentItem()
        entry = item.data(ENTRY_ROLE) if item is not None else None
        if not isinstance(entry, ModelEntry):
            return
        if self.search.text():
            self.search.blockSignals(True)  # (refreshed once, by toggle)
            self.search.clear()
            self.search.blockSignals(False)
        self.toggle(entry.provider_id, entry.model)
        row = next((r for r in range(self.list.count())  # (the full list, after a search)
                    if self.list.item(r).data(ENTRY_ROLE) == entry), -1)
        if row >= 0:
            self.list.setCurrentRow(row, QItemSelectionModel.SelectionFlag.NoUpdate)

    def toggle(self, provider_id: str, model: str) -> None:
        """Add a model to the chosen ones, or take it out (at most four)."""
        key = (provider_id, model)
        if key in self.chosen:
            self.chosen.remove(key)
        elif len(self.chosen) < MAX_MODELS:
            self.chosen.append(key)
        self.refresh(keep_row=True)

    def _selection_changed(self) -> None:
        """A row was selected or unselected (click, Space, Ctrl+A): the rows whose state
        differs from the chosen models say what changed (a model listed twice, in
        Recent and under its provider, follows the row that was switched)."""
        chosen = list(self.chosen)
        for row in range(self.list.count()):
            item = self.list.item(row)
            entry = item.data(ENTRY_ROLE)
            if not isinstance(entry, ModelEntry):
                continue
            key = (entry.provider_id, entry.model)
            if item.isSelected() and key not in self.chosen and key not in chosen:
                chosen.append(key)
            elif not item.isSelected() and key in self.chosen and key in chosen:
                chosen.remove(key)
        if chosen != self.chosen:
            self.chosen = chosen[:MAX_MODELS]
            self.refresh(keep_row=True)

    def _update(self) -> None:
        count = len(self.chosen)
        names = ", ".join(self._names.get(key, key[1]) for key in self.chosen)
        self.chosen_label.setText(
            self.tr("Chosen (%n): ", "", count) + names if count else
            self.tr("Nothing chosen yet: click models in the list."))
        self.compare_button.setEnabled(self.minimum <= count <= MAX_MODELS)
        self.compare_button.setToolTip(
            "" if self.compare_button.isEnabled() else
            self.tr("Choose {low} to {high} models").format(low=self.minimum, high=MAX_MODELS))
