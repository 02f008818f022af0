"""The tool panel's "Undo this turn's changes": shown when the chat on screen has a
turn whose tools wrote files that are not undone yet; asks first (naming the files),
then puts them back and says what it did — or why it did nothing (a file changed
since the assistant wrote it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QPushButton, QVBoxLayout, QWidget

from desktop.chat.turn_undo import UndoRefused
from desktop.core.errors import AssistaError
from desktop.tools.checkpoints import TurnChanges
from desktop.ui.error_text import exception_text
from desktop.ui.icons import set_icon
from desktop.ui.plain_text import plain_label, shown

if TYPE_CHECKING:
    from desktop.ui.window.controller import ChatController

MAX_LISTED = 12


class UndoBar(QWidget):
    def __init__(self, controller: ChatController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.changes: TurnChanges | None = None
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        self.button = QPushButton(self.tr("Undo this turn's changes"))
        set_icon(self.button, "undo-2", self.tr("Put back the files the assistant wrote in "
                                                "its last turn in this chat"))
        self.button.setAccessibleName(self.tr("Undo this turn's changes"))
        self.button.clicked.connect(self.undo)
        self.result = plain_label()  # paths and the reason: never markup
        self.result.setObjectName("toolCardMeta")
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result.hide()
        column.addWidget(self.button, 0, Qt.AlignmentFlag.AlignLeft)
        column.addWidget(self.result)
        controller.busyChanged.connect(lambda busy: None if busy else self.refresh())
        controller.sessionOpened.connect(lambda *_a: self.refresh(clear=True))
        self.refresh()

    @classmethod
    def in_panel(cls, controller: ChatController, panel: QWidget) -> UndoBar:
        """A bar placed in the tool panel, under its title row."""
        bar = cls(controller, panel)
        layout = panel.layout()
        if isinstance(layout, QVBoxLayout):
            layout.insertWidget(1, bar)
        return bar

    def refresh(self, *, clear: bool = False) -> None:
        """Show the button when the chat on screen has a turn to undo."""
        if clear:
            self.result.hide()
        sid = self.controller.session_id
        try:
            self.changes = self.controller.services.turn_undo.find(sid) if sid else None
        except AssistaError:
            self.changes = None
        self.button.setVisible(self.changes is not None and not self.controller.busy)
        self.setVisible(self.button.isVisibleTo(self) or not self.result.isHidden())

    def undo(self) -> None:
        changes, sid = self.changes, self.controller.session_id
        if changes is None or sid is None:
            return
        paths = [shown(f.path) for f in changes.files]  # (\u202e must not turn a name)
        listed = "\n".join(paths[:MAX_LISTED]) + (
            "\n" + self.tr("…and %n more", "", len(paths) - MAX_LISTED)
            if len(paths) > MAX_LISTED else "")
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Undo this turn's changes"),
                          self.tr("Put back these files as they were before the assistant's "
                                  "last turn? Files it created are deleted.\n\n{files}")
                          .format(files=listed),
                          QMessageBox.StandardButton.Cancel, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        undo = box.addButton(self.tr("Undo"), QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        if box.clickedButton() is not undo:
            return
        self.run_undo(sid, changes.turn_id)

    def run_undo(self, session_id: str, turn_id: str | None = None) -> None:
        """Undo without asking (the dialog asked); the outcome shows under the button."""
        try:
            results = self.controller.services.turn_undo.undo(session_id, turn_id)
        except UndoRefused as exc:
            text = self.tr("Nothing was undone: files {reason}").format(reason=exception_text(exc))
        except (AssistaError, OSError) as exc:
            text = self.tr("Nothing was undone: {reason}").format(reason=exception_text(exc))
        else:
            restored = sum(r.action == "restored" for r in results)
            deleted = sum(r.action == "deleted" for r in results)
            text = self.tr("Undone: %n file(s) put back", "", restored) + ", " + self.tr(
                "%n deleted", "", deleted) + "\n" + "\n".join(
                f"{r.action}: {shown(r.path)}" for r in results)
        self.result.setText(text)
        self.result.show()
        self.refresh()
