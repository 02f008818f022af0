"""Settings → Memory: what the assistant remembers about the user, kept across chats.

Memory on or paused and whether a new memory asks first are settings (saved with the
dialog's Save); the list is the memories themselves: search, edit, delete and delete
all apply at once (delete all after a confirmation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.errors import AssistaError
from desktop.core.settings import AppSettings
from desktop.ui import theme
from desktop.ui.error_text import exception_text
from desktop.ui.form_rows import whole
from desktop.ui.plain_text import plain_label, shown

if TYPE_CHECKING:
    from desktop.chat.memories import Memory, MemoryStore

REMEMBER = "remember"  # the tool's name (desktop.tools.builtins.remember)


class MemoryPage(QWidget):
    def __init__(self, memories: MemoryStore, parent: QWidget | None = None) -> None:
        """``memories``: the store of memories (read and changed by this page)."""
        super().__init__(parent)
        self.memories = memories
        self._policies: dict[str, str] = {}
        column = QVBoxLayout(self)
        form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.enabled_check = whole(QCheckBox(self.tr("Remember facts about me across chats")))
        self.enabled_check.setToolTip(self.tr(
            "Off: memory is paused; no memory is sent to the model and none is saved"))
        form.addRow(self.tr("Memory"), self.enabled_check)
        self.policy_combo = QComboBox()
        self.policy_combo.setAccessibleName(self.tr("When the assistant wants to remember "
                                                    "something"))
        self.policy_combo.addItem(self.tr("Ask me first"), "ask")
        self.policy_combo.addItem(self.tr("Save without asking"), "allow")
        form.addRow(self.tr("New memories"), self.policy_combo)
        column.addLayout(form)
        hint = QLabel(self.tr("Say \u201cremember that\u2026\u201d in a chat, or the assistant "
                              "may propose a memory. Memories stay on this computer; they "
                              "are in exports and sync (encrypted), and are sent only in the "
                              "system prompt of your chats. Temporary chats use none."))
        hint.setObjectName("emptyHint")
        hint.setWordWrap(True)
        column.addWidget(hint)
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Search memories…"))
        self.search.setAccessibleName(self.tr("Search memories"))
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.refresh)
        column.addWidget(self.search)
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Memories"))
        self.list.setWordWrap(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.itemSelectionChanged.connect(self._selection_changed)
        self.list.itemActivated.connect(lambda _item: self.edit())
        column.addWidget(self.list, 1)
        self.empty = QLabel()
        self.empty.setObjectName("emptyHint")
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        column.addWidget(self.empty)
        row = QHBoxLayout()
        self.edit_button = QPushButton(self.tr("Edit…"))
        self.edit_button.clicked.connect(self.edit)
        self.delete_button = QPushButton(self.tr("Delete"))
        self.delete_button.clicked.connect(self.delete)
        self.delete_all_button = QPushButton(self.tr("Delete all…"))
        self.delete_all_button.clicked.connect(self.delete_all)
        self.count_label = plain_label()
        self.count_label.setObjectName("emptyHint")
        for button in (self.edit_button, self.delete_button):
            row.addWidget(button)
        row.addWidget(self.count_label, 1)
        row.addWidget(self.delete_all_button)
        column.addLayout(row)
        self.error = plain_label()
        self.error.setStyleSheet(f"color: {theme.colors()['error']};")
        self.error.setWordWrap(True)
        self.error.hide()
        column.addWidget(self.error)
        self.refresh()

    # -- settings --------------------------------------------------------------------

    def load(self, settings: AppSettings) -> None:
        self.enabled_check.setChecked(settings.memory_enabled)
        self._policies = dict(settings.tool_policies)
        policy = "allow" if self._policies.get(REMEMBER) == "allow" else "ask"
        self.policy_combo.setCurrentIndex(self.policy_combo.findData(policy))

    def changes(self) -> dict[str, object]:
        policies = dict(self._policies)
        if self.policy_combo.currentData() == "allow":
            policies[REMEMBER] = "allow"
        else:
            policies.pop(REMEMBER, None)  # the tool's default: ask
        return {"memory_enabled": self.enabled_check.isChecked(), "tool_policies": policies}

    # -- the list --------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()  # (a chat may have saved one meanwhile)

    def refresh(self) -> None:
        selected = self.selected()
        self.list.clear()
        try:
            found = self.memories.all(query=self.search.text())
            total = self.memories.count()
        except AssistaError as exc:
            self._fail(exc)
            found, total = [], 0
        for memory in found:
            scope = f"  ·  {self.tr('project')}" if memory.project_id else ""
            item = QListWidgetItem(shown(memory.text) + scope)
            item.setData(Qt.ItemDataRole.UserRole, memory.id)
            item.setToolTip(self.tr("In a project only") if memory.project_id
                            else self.tr("In every chat"))
            self.list.addItem(item)
            if selected is not None and memory.id == selected.id:
                self.list.setCurrentItem(item)
        self.count_label.setText(self.tr("%n memories", "", total))
        if found:
            self.empty.hide()
        else:
            self.empty.setText(self.tr("No memory matches the search.") if total
                               else self.tr("No memories yet."))
            self.empty.show()
        self.delete_all_button.setEnabled(total > 0)
        self._selection_changed()

    def selected(self) -> Memory | None:
        item = self.list.currentItem() if self.list.selectedItems() else None
        if item is None:
            return None
        return self.memories.get(str(item.data(Qt.ItemDataRole.UserRole)))

    def _selection_changed(self) -> None:
        chosen = bool(self.list.selectedItems())
        self.edit_button.setEnabled(chosen)
        self.delete_button.setEnabled(chosen)

    def edit(self) -> None:
        memory = self.selected()
        if memory is None:
            return
        text, ok = QInputDialog.getMultiLineText(self, self.tr("Edit memory"),
                                                 self.tr("What the assistant remembers:"),
                                                 memory.text)
        if ok:
            self.save_edit(memory.id, text)

    def save_edit(self, memory_id: str, text: str) -> None:
        try:
            self.memories.edit(memory_id, text)
        except AssistaError as exc:
            self._fail(exc)
            return
        self.error.hide()
        self.refresh()

    def delete(self) -> None:
        memory = self.selected()
        if memory is None:
            return
        try:
            self.memories.forget(memory.id)
        except AssistaError as exc:
            self._fail(exc)
            return
        self.error.hide()
        self.refresh()

    def delete_all(self) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Delete all memories"),
                          self.tr("Delete every memory? The assistant forgets all it knows "
                                  "about you; this cannot be undone."),
                          QMessageBox.StandardButton.Cancel, self)
        delete = box.addButton(self.tr("Delete all"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        if box.clickedButton() is delete:
            self.delete_everything()

    def delete_everything(self) -> None:
        """Delete all without asking (the dialog asked)."""
        try:
            self.memories.forget_all()
        except AssistaError as exc:
            self._fail(exc)
            return
        self.error.hide()
        self.refresh()

    def _fail(self, exc: AssistaError) -> None:
        self.error.setText(exception_text(exc))
        self.error.show()
