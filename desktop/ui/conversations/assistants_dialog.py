"""Assistants: named system prompts with a default provider, model, temperature and
tools. :class:`AssistantsDialog` creates, edits, duplicates, deletes and reorders them
(the top bar's picker is :class:`desktop.ui.conversations.assistant_picker.AssistantPicker`).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.errors import AssistaError
from desktop.storage.assistants import Assistant
from desktop.ui import theme
from desktop.ui.icons import icon

if TYPE_CHECKING:
    from desktop.app import AppContext
    from desktop.ui.conversations.assistant_gallery import AssistantGallery

ID_ROLE = Qt.ItemDataRole.UserRole


class AssistantsDialog(QDialog):
    """Edit the assistants; changes are saved with Save, or when switching or closing."""

    assistantsChanged = Signal()

    def __init__(self, ctx: AppContext, tool_names: list[str],
                 parent: QWidget | None = None, *, select: str | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.store = ctx.assistants
        self.tool_names = tool_names
        self.setWindowTitle("Assistants")
        self.resize(860, 600)
        self._current: Assistant | None = None
        self.gallery: AssistantGallery | None = None
        self._dirty = False
        self._loading = False
        root = QHBoxLayout(self)
        root.addLayout(self._build_left())
        right = QVBoxLayout()
        right.addWidget(self._build_form(), 1)
        right.addLayout(self._build_bottom())
        root.addLayout(right, 1)
        self.reload(select)

    # -- construction ------------------------------------------------------------------

    def _build_left(self) -> QVBoxLayout:
        left = QVBoxLayout()
        title = QLabel("Assistants")
        title.setObjectName("panelTitle")
        self.list = QListWidget()
        self.list.setAccessibleName("Assistants")
        self.list.setFixedWidth(240)
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.list.model().rowsMoved.connect(self._rows_moved)
        self.list.currentItemChanged.connect(self._current_changed)
        buttons = QHBoxLayout()
        self.new_button = QPushButton("New")
        self.duplicate_button = QPushButton("Duplicate")
        self.delete_button = QPushButton("Delete")
        self.up_button = QPushButton(icon("arrow-up"), "")
        self.up_button.setAccessibleName("Move up")
        self.up_button.setToolTip("Move up (drag to reorder)")
        self.down_button = QPushButton(icon("arrow-down"), "")
        self.down_button.setAccessibleName("Move down")
        self.down_button.setToolTip("Move down (drag to reorder)")
        self.new_button.clicked.connect(self.new_assistant)
        self.duplicate_button.clicked.connect(self.duplicate_current)
        self.delete_button.clicked.connect(self._confirm_delete)
        self.up_button.clicked.connect(lambda: self.move_current(-1))
        self.down_button.clicked.connect(lambda: self.move_current(1))
        for button in (self.new_button, self.duplicate_button, self.delete_button):
            buttons.addWidget(button)
        self.starters_button = QPushButton("Starter assistants…")
        self.starters_button.setToolTip("Add ready-made assistants (translator, programmer, "
                                        "editor…) to edit as your own")
        self.starters_button.clicked.connect(self.open_starters)
        moves = QHBoxLayout()
        moves.addWidget(self.up_button)
        moves.addWidget(self.down_button)
        moves.addStretch(1)
        moves.addWidget(self.starters_button)
        for widget in (title, self.list):
            left.addWidget(widget)
        left.addLayout(buttons)
        left.addLayout(moves)
        return left

    def _build_form(self) -> QWidget:
        self.form_box = QWidget()
        form = QFormLayout(self.form_box)
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("e.g. Code reviewer")
        self.description_edit = QLineEdit()
        self.description_edit.setPlaceholderText("Optional: what it is for")
        self.prompt_edit = QPlainTextEdit()
        self.prompt_edit.setPlaceholderText("The system prompt of chats started from it "
                                            "(empty: the default system prompt)")
        self.provider_combo = QComboBox()
        self.provider_combo.setAccessibleName("Default provider")
        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        self.model_combo.setAccessibleName("Default model")
        model_edit = self.model_combo.lineEdit()
        if model_edit is not None:
            model_edit.setPlaceholderText("The provider's default model")
        self.temperature_check = QCheckBox("Set")
        self.temperature_spin = QDoubleSpinBox()
        self.temperature_spin.setRange(0.0, 2.0)
        self.temperature_spin.setSingleStep(0.1)
        self.temperature_spin.setDecimals(2)
        self.temperature_spin.setValue(0.7)
        temperature = QHBoxLayout()
        temperature.addWidget(self.temperature_check)
        temperature.addWidget(self.temperature_spin)
        temperature.addStretch(1)
        self.tools_check = QCheckBox("Only these tools (otherwise the app's tool settings)")
        self.tools_box = QWidget()
        self.tools_box.setAccessibleName("Enabled tools")
        grid = QGridLayout(self.tools_box)
        grid.setContentsMargins(0, 0, 0, 0)
        self.tool_checks: dict[str, QCheckBox] = {}
        for i, name in enumerate(self.tool_names):
            box = QCheckBox(name)
            box.setChecked(True)
            box.toggled.connect(self._changed)
            grid.addWidget(box, i // 3, i % 3)
            self.tool_checks[name] = box
        form.addRow("Name", self.name_edit)
        form.addRow("Description", self.description_edit)
        form.addRow("System prompt", self.prompt_edit)
        form.addRow("Provider", self.provider_combo)
        form.addRow("Model", self.model_combo)
        form.addRow("Temperature", temperature)
        form.addRow("Tools", self.tools_check)
        form.addRow("", self.tools_box)
        for edit in (self.name_edit, self.description_edit):
            edit.textEdited.connect(self._changed)
        self.prompt_edit.textChanged.connect(self._changed)
        self.provider_combo.currentIndexChanged.connect(self._provider_changed)
        self.model_combo.currentTextChanged.connect(self._changed)
        self.temperature_check.toggled.connect(self._changed)
        self.temperature_check.toggled.connect(self.temperature_spin.setEnabled)
        self.temperature_spin.valueChanged.connect(self._changed)
        self.tools_check.toggled.connect(self._changed)
        self.tools_check.toggled.connect(self.tools_box.setEnabled)
        return self.form_box

    def _build_bottom(self) -> QHBoxLayout:
        bottom = QHBoxLayout()
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(f"color: {theme.colors()['error']};")
        self.save_button = QPushButton("Save")
        self.save_button.setObjectName("primaryButton")
        self.save_button.clicked.connect(self.save_current)
        self.close_button = QPushButton("Close")
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
        name, n = "New assistant", 1
        while name in taken:
            n += 1
            name = f"New assistant {n}"
        created = self.store.create(name)
        self.reload(created.id)
        self.name_edit.setFocus()
        self.name_edit.selectAll()
        self.assistantsChanged.emit()

    def open_starters(self) -> None:
        """The gallery; an assistant added from it is selected here, to edit at once."""
        from desktop.ui.conversations.assistant_gallery import AssistantGallery

        if not self._dirty or self.save_current():
            self.gallery = AssistantGallery(self.store, self)
            self.gallery.added.connect(self.reload)
            self.gallery.added.connect(self.assistantsChanged)
            self.gallery.open()

    def duplicate_current(self) -> None:
        if self._current is None or (self._dirty and not self.save_current()):
            return
        copy = self.store.duplicate(self._current.id)
        self.reload(copy.id)
        self.assistantsChanged.emit()

    def _confirm_delete(self) -> None:
        if self._current is None:
            return
        box = QMessageBox(QMessageBox.Icon.Question, "Delete assistant",
                          f"Delete the assistant “{self._current.name}”? Chats started from "
                          "it keep their messages.",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.finished.connect(lambda result: self.delete_current()
                             if result == QMessageBox.StandardButton.Yes else None)
        box.open()

    def delete_current(self) -> None:
        if self._current is None:
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
        self._current = assistant
        self.form_box.setEnabled(assistant is not None)
        for button in (self.duplicate_button, self.delete_button, self.up_button,
                       self.down_button):
            button.setEnabled(assistant is not None)
        a = assistant or Assistant(name="")
        self.name_edit.setText(a.name)
        self.description_edit.setText(a.description)
        self.prompt_edit.setPlainText(a.system_prompt)
        self.provider_combo.clear()
        self.provider_combo.addItem("The provider chosen in the window", None)
        for config in self.ctx.all_providers():
            self.provider_combo.addItem(config.name, config.id)
        index = self.provider_combo.findData(a.provider_id) if a.provider_id else 0
        if index < 0:  # a provider that was removed
            self.provider_combo.addItem(f"(removed provider {a.provider_id})", a.provider_id)
            index = self.provider_combo.count() - 1
        self.provider_combo.setCurrentIndex(index)
        self._fill_models(a.model or "")
        self.temperature_check.setChecked(a.temperature is not None)
        self.temperature_spin.setEnabled(a.temperature is not None)
        if a.temperature is not None:
            self.temperature_spin.setValue(a.temperature)
        self.tools_check.setChecked(a.enabled_tools is not None)
        self.tools_box.setEnabled(a.enabled_tools is not None)
        for name, box in self.tool_checks.items():
            box.setChecked(a.enabled_tools is None or name in a.enabled_tools)
        self.error_label.clear()
        self._dirty = False
        self.save_button.setEnabled(False)
        self._loading = False

    def _fill_models(self, model: str) -> None:
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        provider_id = self.provider_combo.currentData()
        config = next((p for p in self.ctx.all_providers() if p.id == provider_id), None)
        if config is not None:
            self.model_combo.addItems([m.id for m in self.ctx.cached_models(config)])
        self.model_combo.setEditText(model)
        self.model_combo.blockSignals(False)

    def _provider_changed(self) -> None:
        if not self._loading:
            self._fill_models(self.model_combo.currentText())
            self._changed()

    def _changed(self) -> None:
        if not self._loading and self._current is not None:
            self._dirty = True
            self.save_button.setEnabled(True)

    def form_value(self) -> Assistant | None:
        """The assistant as the form shows it (``None`` when nothing is selected)."""
        if self._current is None:
            return None
        tools: tuple[str, ...] | None = None
        if self.tools_check.isChecked():
            tools = tuple(name for name, box in self.tool_checks.items() if box.isChecked())
        return dataclasses.replace(
            self._current,
            name=self.name_edit.text(),
            description=self.description_edit.text().strip(),
            system_prompt=self.prompt_edit.toPlainText().strip(),
            provider_id=self.provider_combo.currentData(),
            model=self.model_combo.currentText().strip() or None,
            temperature=(round(self.temperature_spin.value(), 2)
                         if self.temperature_check.isChecked() else None),
            enabled_tools=tools,
        )

    def save_current(self) -> bool:
        """Save the form; ``False`` (with the reason shown) when it is not valid."""
        value = self.form_value()
        if value is None:
            return True
        try:
            saved = self.store.save(value)
        except AssistaError as exc:
            self.error_label.setText(str(exc))
            return False
        self._current = saved
        self._dirty = False
        self.save_button.setEnabled(False)
        self.error_label.clear()
        item = self.list.currentItem()
        if item is not None and item.data(ID_ROLE) == saved.id:
            item.setText(saved.name)
        self.assistantsChanged.emit()
        return True

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._dirty and not self.save_current():
            event.ignore()
            return
        super().closeEvent(event)

    def reject(self) -> None:
        if self._dirty and not self.save_current():
            return
        super().reject()
