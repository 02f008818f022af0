"""MCP prompts as slash commands in the composer.

Typing ``/`` lists the running servers' prompts (``/name`` — or ``/server:name``
when two servers offer the same name — with their arguments and description) in a
list above the message box; Up/Down choose, Enter or Tab takes one, Escape closes.
A prompt with arguments asks for them in a small form. The prompt's messages then
become the user's turn, followed by whatever was typed after the command, and are
sent like any message. The composer itself is not changed: this widget watches its
input and sends through its ``sendRequested`` signal.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.mcp_inputs import McpInputs, PromptChoice
from desktop.core.errors import AssistaError
from desktop.ui.error_text import exception_text
from desktop.ui.plain_text import plain_label

if TYPE_CHECKING:
    from desktop.ui.chat.composer import Composer

log = logging.getLogger(__name__)


class PromptArgumentsDialog(QDialog):
    """Asks for a prompt's arguments (required ones marked with *)."""

    def __init__(self, choice: PromptChoice, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.choice = choice
        self.setWindowTitle(self.tr("/{0}").format(choice.command))
        layout = QVBoxLayout(self)
        if choice.prompt.description:
            about = plain_label(choice.prompt.description)
            about.setWordWrap(True)
            layout.addWidget(about)
        form = QFormLayout()
        self.edits: dict[str, QLineEdit] = {}
        for argument in choice.arguments:
            edit = QLineEdit()
            edit.setPlaceholderText(argument.description or "")
            edit.setAccessibleName(argument.name)
            form.addRow(plain_label(argument.name + (" *" if argument.required else "")), edit)
            self.edits[argument.name] = edit
        layout.addLayout(form)
        self.problem = plain_label()
        self.problem.hide()
        layout.addWidget(self.problem)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Send"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def values(self) -> dict[str, str]:
        return {name: edit.text().strip() for name, edit in self.edits.items()}

    def accept(self) -> None:
        missing = [a.name for a in self.choice.arguments
                   if a.required and not self.values().get(a.name)]
        if missing:
            self.problem.setText(self.tr("Fill in: {0}").format(", ".join(missing)))
            self.problem.show()
            return
        super().accept()


class SlashPrompts(QObject):
    def __init__(self, composer: Composer, inputs: McpInputs) -> None:
        super().__init__(composer)
        self.composer = composer
        self.inputs = inputs
        self.choices: list[PromptChoice] = []
        self.dialog: PromptArgumentsDialog | None = None
        self._task: asyncio.Future[None] | None = None
        self.popup = QListWidget()
        self.popup.setObjectName("slashPrompts")
        self.popup.setAccessibleName(self.tr("Prompts from MCP servers"))
        self.popup.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.popup.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.popup.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.popup.itemClicked.connect(lambda _item: self.choose())
        self.popup.hide()
        self.error = plain_label()
        self.error.setWordWrap(True)
        self.error.hide()
        layout = composer.layout()
        if isinstance(layout, QVBoxLayout):
            layout.insertWidget(0, self.error)
            layout.insertWidget(0, self.popup)
        composer.input.textChanged.connect(self.update)
        composer.input.installEventFilter(self)

    # -- the list -------------------------------------------------------------------------

    def _typed(self) -> tuple[str, str] | None:
        """(the command typed after "/", the rest) while the text starts with "/"."""
        text = self.composer.input.toPlainText()
        if not text.startswith("/"):
            return None
        command, _sep, rest = text[1:].partition(" ")
        return command, rest

    def update(self) -> None:
        self.error.hide()
        text = self.composer.input.toPlainText()
        if not text.startswith("/") or "\n" in text:
            self.popup.hide()
            return
        command, space, _rest = text[1:].partition(" ")
        wanted = command.lower()
        # While the command is typed, every prompt it starts; once a space follows,
        # the one it names (what comes after is the question sent with it).
        self.choices = [c for c in self.inputs.prompts()
                        if (c.command.lower() == wanted if space
                            else c.command.lower().startswith(wanted))]
        if not self.choices:
            self.popup.hide()
            return
        self.popup.clear()
        for choice in self.choices:
            arguments = ", ".join(a.name + ("" if a.required else "?")
                                  for a in choice.arguments)
            line = f"/{choice.command}" + (f" ({arguments})" if arguments else "")
            about = choice.prompt.description or choice.prompt.title or ""
            item = QListWidgetItem(f"{line} — {about}" if about else line)
            item.setToolTip(self.tr("From MCP server {0}").format(choice.server))
            self.popup.addItem(item)
        rows = min(self.popup.count(), 6)  # as tall as its rows, scrolling beyond six
        self.popup.setFixedHeight(rows * max(self.popup.sizeHintForRow(0), 1)
                                  + 2 * self.popup.frameWidth())
        self.popup.setCurrentRow(0)
        self.popup.show()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if not self.popup.isVisible() or event.type() != QEvent.Type.KeyPress:
            return False
        assert isinstance(event, QKeyEvent)
        key = event.key()
        if key in (Qt.Key.Key_Down, Qt.Key.Key_Up):
            step = 1 if key == Qt.Key.Key_Down else -1
            row = (self.popup.currentRow() + step) % max(self.popup.count(), 1)
            self.popup.setCurrentRow(row)
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab):
            self.choose()
            return True
        if key == Qt.Key.Key_Escape:
            self.popup.hide()
            return True
        return False

    # -- sending --------------------------------------------------------------------------

    def choose(self) -> None:
        row = self.popup.currentRow()
        if not 0 <= row < len(self.choices):
            return
        choice = self.choices[row]
        typed = self._typed()
        rest = typed[1] if typed else ""
        self.popup.hide()
        if not choice.arguments:
            self.send(choice, {}, rest)
            return
        dialog = PromptArgumentsDialog(choice, self.composer)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.send(choice, dialog.values(), rest))
        self.dialog = dialog
        dialog.open()

    def send(self, choice: PromptChoice, arguments: dict[str, str], rest: str) -> None:
        self._task = asyncio.ensure_future(self._send(choice, arguments, rest))

    async def _send(self, choice: PromptChoice, arguments: dict[str, str], rest: str) -> None:
        try:
            turn = await self.inputs.prompt_turn(choice, arguments)
        except AssistaError as exc:
            self.error.setText(self.tr("The prompt /{0} failed: {1}").format(
                choice.command, exception_text(exc)))
            self.error.show()
            return
        parts = [chip.part for chip in self.composer.chips] + turn.parts
        self.composer.sendRequested.emit(turn.with_question(rest), parts)
