"""Chat → Edit system prompt…: the current chat's own system prompt.

A chat inherits its assistant's prompt, else the default from Settings; it may have
its own instead (stored with the chat). The dialog also shows the whole prompt the
model is sent (base prompt + custom instructions + workspace and date).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop.core.prompt import base_prompt, build_system_prompt
from desktop.ui import default_prompt
from desktop.ui.plain_text import plain_label

if TYPE_CHECKING:
    from desktop.ui.window.controller import ChatController


class SessionPromptDialog(QDialog):
    def __init__(self, controller: ChatController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.setWindowTitle(self.tr("System prompt of this chat"))
        self.resize(640, 560)
        sources = controller.profile.prompt_sources(
            controller.tool_switches.enabled_tools())
        self._sources = sources
        assistant = controller.profile.assistant()
        # (the app's default in the interface's language; what is sent shows below)
        self.inherited = default_prompt.shown(base_prompt(sources.default, sources.assistant))
        origin = (self.tr("the assistant “{name}”").format(name=assistant.name)
                  if assistant is not None and (assistant.system_prompt or "").strip()
                  else self.tr("the default system prompt (Settings → Preferences)"))
        title = (controller.services.chat_title(controller.session_id)
                 if controller.session_id else None)
        layout = QVBoxLayout(self)
        heading = plain_label(f"“{title}”" if title is not None else self.tr("The new chat"))
        heading.setObjectName("appTitle")
        layout.addWidget(heading)
        self.own_check = QCheckBox(self.tr("Use this chat's own system prompt"))
        self.own_check.setToolTip(self.tr("Otherwise the chat uses {origin}.").format(
            origin=origin))
        self.inherit_label = QLabel(self.tr("Without it, this chat uses {origin}.").format(
            origin=origin))
        self.inherit_label.setObjectName("emptyHint")
        self.inherit_label.setWordWrap(True)
        self.editor = QPlainTextEdit()
        self.editor.setAccessibleName(self.tr("System prompt"))
        own = controller.profile.session_prompt()
        self.own_check.setChecked(own is not None)
        self.editor.setPlainText(own if own is not None else self.inherited)
        self.editor.setReadOnly(own is None)
        self.preview = QPlainTextEdit()
        self.preview.setReadOnly(True)
        self.preview.setAccessibleName(self.tr("Full system prompt"))
        self.preview.setMaximumHeight(160)
        self.preview.setObjectName("reasoningView")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        for widget in (self.own_check, self.inherit_label, self.editor):
            layout.addWidget(widget)
        full = QLabel(
                self.tr("What the model is sent (with your custom instructions, the workspace "
                      "and the date):"))
        full.setWordWrap(True)
        layout.addWidget(full)
        layout.addWidget(self.preview)
        layout.addWidget(buttons)
        self.own_check.toggled.connect(self._own_toggled)
        self.editor.textChanged.connect(self._update_preview)
        self._update_preview()

    def _own_toggled(self, own: bool) -> None:
        self.editor.setReadOnly(not own)
        if not own:
            self.editor.setPlainText(self.inherited)
        else:
            self.editor.setFocus()
            self.editor.moveCursor(self.editor.textCursor().MoveOperation.End)
        self._update_preview()

    def value(self) -> str | None:
        """The chat's own prompt as the dialog shows it (``None``: inherit)."""
        return self.editor.toPlainText().strip() if self.own_check.isChecked() else None

    def _update_preview(self) -> None:
        sources = msgspec.structs.replace(self._sources, session=self.value())
        self.preview.setPlainText(build_system_prompt(sources) or self.tr("(no system prompt)"))

    def save(self) -> None:
        self.controller.profile.set_session_prompt(self.value())
        self.accept()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.editor.setFocus(Qt.FocusReason.OtherFocusReason)
