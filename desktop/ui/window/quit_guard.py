"""Quitting while chats answer asks first: Cancel keeps them answering; Quit stops
them, and what they wrote so far is kept, marked stopped. The question is asked
without a nested event loop, so the answers go on streaming while it is open."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop.ui.window.helpers import delete_on_close, window_log

if TYPE_CHECKING:
    from desktop.ui.window.controller import ChatController


class QuitGuard(QObject):
    def __init__(self, window: QWidget, controller: ChatController) -> None:
        super().__init__(window)
        self.window = window
        self.controller = controller
        self.box: QMessageBox | None = None
        self._confirmed = False

    def may_close(self) -> bool:
        """True when the window may close now; otherwise the question is shown and
        the window closes again once the user says Quit."""
        running = 0 if self._confirmed else self.controller.running_count()
        if running:
            self._ask(running)
        return not running

    def allow(self) -> None:
        """The window closes without asking (Quit was chosen, or the session ends)."""
        self._confirmed = True

    def _ask(self, running: int) -> None:
        if self.box is not None and self.box.isVisible():
            self.box.raise_()
            return
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Quit while answering?"),
                          self.tr("%n chats are still answering. Quit anyway? What they have "
                                  "written so far is kept, marked as stopped.", "", running),
                          QMessageBox.StandardButton.NoButton, self.window)
        quit_button = box.addButton(self.tr("Quit"), QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        delete_on_close(box)

        def answered(_result: int) -> None:
            self.box = None
            clicked = box.clickedButton()
            window_log().info("quit while answering? %s", "quit" if clicked is quit_button
                              else "cancel" if clicked is not None else "closed")
            if clicked is quit_button:
                self.allow()
                self.window.close()

        box.finished.connect(answered)
        self.box = box
        box.open()
