"""The providers dialog's left column: one line per provider, "Add provider" and "Remove".

Each row carries its provider's id. The dialog decides what choosing a row means (it may
refuse, to keep unsaved edits), so it can move or drop rows here without hearing back.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.provider_presets import all_presets
from desktop.core.settings import ProviderConfig
from desktop.ui.providers.provider_text import item_text, preset_title

ID_ROLE = Qt.ItemDataRole.UserRole


class ProviderList(QWidget):
    """The provider rows with their Add (a menu of presets) and Remove buttons."""

    currentChanged = Signal(object)  # the chosen provider's id, None when no row is current
    presetChosen = Signal(str)  # a preset id from the "Add provider" menu

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        title = QLabel(self.tr("Providers"))
        title.setObjectName("panelTitle")
        layout.addWidget(title)
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Providers"))
        self.list.setMinimumWidth(140)  # (the dialog narrows it on a small screen)
        self.list.setMaximumWidth(280)
        self.list.setWordWrap(True)
        self.list.currentItemChanged.connect(self._on_current_item_changed)
        layout.addWidget(self.list, 1)
        row = QHBoxLayout()
        self.add_button = QPushButton(self.tr("Add provider"))
        self.add_button.setAccessibleName(self.tr("Add provider"))
        menu = QMenu(self.add_button)
        for preset in all_presets().values():  # (with those new APIs bring)
            action = menu.addAction(preset_title(preset))
            action.triggered.connect(lambda _=False, pid=preset.id: self.presetChosen.emit(pid))
        self.add_button.setMenu(menu)
        self.remove_button = QPushButton(self.tr("Remove"))
        self.remove_button.setAccessibleName(self.tr("Remove provider"))
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        row.addStretch(1)
        layout.addLayout(row)

    def fill(self, configs: Iterable[ProviderConfig], draft_id: str | None) -> None:
        """One row per config, the unsaved ``draft_id`` marked as such; the current row
        is left for the dialog to set, so no row change is reported."""
        self.list.blockSignals(True)
        try:
            self.list.clear()
            for config in configs:
                item = QListWidgetItem(item_text(config, draft=config.id == draft_id))
                item.setData(ID_ROLE, config.id)
                item.setToolTip(config.base_url or self.tr("No base URL yet"))
                self.list.addItem(item)
        finally:
            self.list.blockSignals(False)

    def row_of(self, provider_id: str | None) -> int:
        """The row showing ``provider_id``, -1 when none does."""
        ids = [self.list.item(row).data(ID_ROLE) for row in range(self.list.count())]
        return ids.index(provider_id) if provider_id in ids else -1

    def choose(self, provider_id: str) -> None:
        """Make ``provider_id`` current as if the user clicked it (reports the change)."""
        row = self.row_of(provider_id)
        if row >= 0:
            self.list.setCurrentRow(row)

    def show_current_quietly(self, provider_id: str | None) -> None:
        """Mark ``provider_id`` current without reporting it: the dialog already shows it
        (or is putting the selection back after the user kept unsaved edits)."""
        self.list.blockSignals(True)
        try:
            self.list.setCurrentRow(self.row_of(provider_id))
        finally:
            self.list.blockSignals(False)

    def drop_quietly(self, provider_id: str) -> None:
        """Remove ``provider_id``'s row, if any, without reporting a row change."""
        row = self.row_of(provider_id)
        if row >= 0:
            self.list.blockSignals(True)
            try:
                self.list.takeItem(row)
            finally:
                self.list.blockSignals(False)

    def _on_current_item_changed(
        self, current: QListWidgetItem | None, _previous: QListWidgetItem | None
    ) -> None:
        self.currentChanged.emit(current.data(ID_ROLE) if current is not None else None)
