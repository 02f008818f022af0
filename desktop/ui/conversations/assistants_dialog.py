"""Assistants: named system prompts with a default provider, model, temperature and
tools. :class:`AssistantsDialog` creates, edits, duplicates, deletes and reorders them
(the top bar's picker is :class:`desktop.ui.conversations.assistant_picker.AssistantPicker`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.errors import AssistaError
from desktop.core.records import Assistant
from desktop.ui import theme
from desktop.ui.conversations.assistant_form import AssistantForm
from desktop.ui.conversations.assistant_gallery import AssistantGallery
from desktop.ui.error_text import exception_text
from desktop.ui.icons import icon
from desktop.ui.scrolling import narrow_side, scrolling

if TYPE_CHECKING:
    from desktop.chat.provider_service import ProviderService
    from desktop.core.services import AssistantSource
    from desktop.ui.conversations.assistant_gallery import AssistantGallery

ID_ROLE = Qt.ItemDataRole.UserRole


class AssistantsDialog(QDialog):
    """Edit the assistants; changes are saved with Save, or when switching or closing."""

    assistantsChanged = Signal()

    def __init__(self, store: AssistantSource, providers: ProviderService,
                 tool_names: list[str], parent: QWidget | None = None, *,
                 select: str | None = None, skill_names: list[str] | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.providers = providers
        self.tool_names = tool_names
        self.skill_names = list(skill_names or [])  # (the skills found: app, workspace)
        self.setWindowTitle(self.tr("Assistants"))
        self.resize(860, 600)
        self._current: Assistant | None = None
        self.gallery: AssistantGallery | None = None
        self._dirty = False
        self._loading = False
        # With no assistant yet, the form edits a new one that Save creates (typing
        # straight into an empty dialog must not be lost or ignored).
        self._draft = False
        root = QHBoxLayout(self)
        root.addLayout(self._build_left())
        right = QVBoxLayout()
        right.addWidget(scrolling(self._build_form()), 1)  # a small screen scrolls it
        narrow_side(self.list, self, widest=240)
        narrow_side(self.empty_hint, self, widest=240)
        right.addLayout(self._build_bottom())
        root.addLayout(right, 1)
        self.reload(select)

    # -- construction ------------------------------------------------------------------

    def _build_left(self) -> QVBoxLayout:
        left = QVBoxLayout()
        title = QLabel(self.tr("Assistants"))
        title.setObjectName("panelTitle")
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Assistants"))
        self.list.setMinimumWidth(140)  # (narrow_side narrows it on a small screen)
        self.list.setMaximumWidth(240)
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.list.model().rowsMoved.connect(self._rows_moved)
        self.list.currentItemChanged.connect(self._current_changed)
        buttons = QHBoxLayout()
        self.new_button = QPushButton(self.tr("New"))
        self.duplicate_button = QPushButton(self.tr("Duplicate"))
        self.delete_button = QPushButton(self.tr("Delete"))
        self.up_button = QPushButton(icon("arrow-up"), "")
        self.up_button.setAccessibleName(self.tr("Move up"))
        self.up_button.setToolTip(self.tr("Move up (drag to reorder)"))
        self.down_button = QPushButton(icon("arrow-down"), "")
        self.down_button.setAccessibleName(self.tr("Move down"))
        self.down_button.setToolTip(self.tr("Move down (drag to reorder)"))
        self.new_button.clicked.connect(self.new_assistant)
        self.duplicate_button.clicked.connect(self.duplicate_current)
        self.delete_button.clicked.connect(self._confirm_delete)
        self.up_button.clicked.connect(lambda: self.move_current(-1))
        self.down_button.clicked.connect(lambda: self.move_current(1))
        for button in (self.new_button, self.duplicate_button, self.delete_button):
            buttons.addWidget(button)
        self.starters_button = QPushButton(self.tr("Starter assistants…"))
        self.starters_button.setToolTip(self.tr(
            "Add ready-made assistants (translator, programmer, editor…) to edit as your own"))
        self.starters_button.clicked.connect(self.open_starters)
        moves = QHBoxLayout()
        moves.addWidget(self.up_button)
        moves.addWidget(self.down_button)
        moves.addStretch(1)
        moves.addWidget(self.starters_button)
        self.empty_hint = QLabel(self.tr(
            "No assistants yet. Fill in the form and press Save, or add ready-made ones "
            "with Starter assistants."))
        self.empty_hint.setObjectName("emptyHint")
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setMaximumWidth(240)
        for widget in (title, self.list, self.empty_hint):
            left.addWidget(widget)
        left.addLayout(buttons)
        left.addLayout(moves)
        return left

    def _build_form(self) -> QWidget:
        self.form = AssistantForm(self.providers, self.tool_names, self.skill_names)
        self.form.changed.connect(self._changed)
        return self.form

    def _build_bottom(self) -> QHBoxLayout:
        bottom = QHBoxLayout()
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(f"color: {theme.colors()['error']};")
        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setObjectName("primaryButton")
        self.save_button.clicked.connect(self.save_current)
        self.close_button = QPushButton(self.tr("Close"))
        self.close_button.setAutoDefault(False)
        self.close_button.clicked.connect(self.close)
        bottom.addWidget(self.error_label, 1)
        bottom.addWidget(self.save_button)
        bottom.addWidget(self.close_button)
        return bottom

    # -- list ---------------------------------------------------------------------------

    def reload(self, select: str | None = None) -> None:
        self._loading = True
        self.list.clear()
        for assistant in self.store.list_assistants():
            item = QListWidgetItem(assistant.name)
            item.setData(ID_ROLE, assistant.id)
            item.setToolTip(assistant.description or assistant.name)
            self.list.addItem(item)
        self._loading = False
        row = next((i for i in range(self.list.count())
                    if self.list.item(i).data(ID_ROLE) == select), 0)
        self.empty_hint.setVisible(self.list.count() == 0)
        if self.list.count():
            self.list.setCurrentRow(row)
        else:
            self._show(None)

    def ids(self) -> list[str]:
        return [str(self.list.item(i).data(ID_ROLE)) for i in range(self.list.count())]

    def _current_changed(self, current: QListWidgetItem | None,
                         previous: QListWidgetItem | None) -> None:
        if self._loading:
            return
        if self._dirty and previous is not None and not self.save_current():
            self.list.blockSignals(True)
            self.list.setCurrentItem(previous)  # stay on the invalid one
            self.list.blockSignals(False)
            return
        assistant = self.store.get(str(current.data(ID_ROLE))) if current is not None else None
        self._show(assistant)

    def _rows_moved(self) -> None:
        self.store.reorder(self.ids())
        self.assistantsChanged.emit()

    def move_current(self, step: int) -> None:
        row = self.list.currentRow()
        target = row + step
        if row < 0 or not 0 <= target < self.list.count():
            return
        ids = self.ids()
        ids[row], ids[target] = ids[target], ids[row]
        self.store.reorder(ids)
        self.reload(ids[target])
        self.assistantsChanged.emit()

    def new_assistant(self) -> None:
        if self._dirty and not self.save_current():
            return
        taken = {self.list.item(i).text() for i in range(self.list.count())}
        name, n = self.tr("New assistant"), 1
        while name in taken:
            n += 1
            name = self.tr("New assistant {number}").format(number=n)
        created = self.store.create(name)
        self.reload(created.id)
        self.form.name_edit.setFocus()
        self.form.name_edit.selectAll()
        self.assistantsChanged.emit()

    def open_starters(self) -> None:
        """The gallery; an assistant added from it is selected here, to edit at once."""
        if not self._dirty or self.save_current():
            self.gallery = AssistantGallery(self.store, self)
            self.gallery.added.connect(self.reload)
            self.gallery.added.connect(self.assistantsChanged)
            self.gallery.open()

    def duplicate_current(self) -> None:
        if self._current is None or self._draft or (self._dirty and not self.save_current()):
            return
        copy = self.store.duplicate(self._current.id)
        self.reload(copy.id)
        self.assistantsChanged.emit()

    def _confirm_delete(self) -> None:
        if self._current is None or self._draft:
            return
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Delete assistant"),
                          self.tr("Delete the assistant “{name}”? Chats started from "
                                  "it keep their messages.").format(name=self._current.name),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.finished.connect(lambda result: self.delete_current()
                             if result == QMessageBox.StandardButton.Yes else None)
        box.open()

    def delete_current(self) -> None:
        if self._current is None or self._draft:
            return
        row = self.list.currentRow()
        self.store.delete(self._current.id)
        self._dirty = False
        ids = [i for i in self.ids() if i != self._current.id]
        self.reload(ids[min(row, len(ids) - 1)] if ids else None)
        self.assistantsChanged.emit()

    # -- form --------------------------------------------------------------------------------

    def _show(self, assistant: Assistant | None) -> None:
        self._loading = True
        self._draft = assistant is None
        a = assistant or Assistant(name="")
        self._current = a
        for button in (self.duplicate_button, self.delete_button, self.up_button,
                       self.down_button):
            button.setEnabled(assistant is not None)
        self.form.show_assistant(a)
        self.error_label.clear()
        self._dirty = False
        self.save_button.setEnabled(False)
        self._loading = False

    def _changed(self) -> None:
        if not self._loading and self._current is not None:
            self._dirty = True
            self.save_button.setEnabled(True)

    def form_value(self) -> Assistant | None:
        """The assistant as the form shows it (``None`` when nothing is selected)."""
        return None if self._current is None else self.form.value(self._current)

    def save_current(self) -> bool:
        """Save the form; ``False`` (with the reason shown) when it is not valid."""
        value = self.form_value()
        if value is None:
            return True
        try:
            saved = self.store.save(value)
        except AssistaError as exc:
            self.error_label.setText(exception_text(exc))
            return False
        self._current = saved
        self._dirty = False
        self.save_button.setEnabled(False)
        self.error_label.clear()
        if self._draft:  # the first assistant: now it is in the list
            self.reload(saved.id)
        item = self.list.currentItem()
        if item is not None and item.data(ID_ROLE) == saved.id:
            item.setText(saved.name)
        self.assistantsChanged.emit()
        return True

    def _must_keep(self) -> bool:
        """Unsaved edits that cannot be saved yet keep the dialog open (a new assistant
        nobody named yet is simply dropped)."""
        if self._draft and not self.form.name_edit.text().strip():
            return False
        return self._dirty and not self.save_current()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._must_keep():
            event.ignore()
            return
        super().closeEvent(event)

    def reject(self) -> None:
        if self._must_keep():
            return
        super().reject()
