"""Opens the quick-ask window (tray menu, ``assista quick``) and connects it to the
main window: "Open in the main window" shows its chat there, and a finished answer
the user is not looking at becomes a desktop notification."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from desktop.ui.quick.quick_window import QuickAskWindow
from desktop.ui.window.controller import ChatController

if TYPE_CHECKING:
    from desktop.ui.window.main_window import MainWindow

#: What ``assista quick`` may put into the question: nothing, the selected text, the clipboard.
PREFILLS = ("none", "selection", "clipboard")


class QuickAsk(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.quick_window: QuickAskWindow | None = None

    def ensure(self) -> QuickAskWindow:
        if self.quick_window is None:
            main = self.window.controller
            # Its own adapter on the app's one chat service: turns run there, not here.
            controller = ChatController(main.ctx, self, service=main.service)
            quick = QuickAskWindow(controller)
            quick.openInMainRequested.connect(self.open_in_main)
            quick.answerFinished.connect(self._answer_finished)
            screen = self.window.screen().availableGeometry()  # top middle, like a launcher
            quick.move(screen.x() + (screen.width() - quick.width()) // 2,
                       screen.y() + screen.height() // 6)
            self.quick_window = quick
        return self.quick_window

    def open(self, prefill: str = "none") -> QuickAskWindow:
        """Show the window in front, with a fresh question unless its answer is still
        coming; ``prefill``: "selection" or "clipboard" puts that text in the question."""
        quick = self.ensure()
        if not quick.isVisible() and not quick.controller.busy and \
                quick.controller.session_id is not None:
            quick.new_chat()
        if prefill in ("selection", "clipboard"):
            quick.insert_selection(selection=prefill == "selection")
        quick.show()
        quick.raise_()
        quick.activateWindow()
        quick.input.setFocus()
        return quick

    def command(self, command: str) -> None:
        """A request from another start of the app: ``quick [none|selection|clipboard]``."""
        words = command.split()
        self.open(words[1] if len(words) > 1 and words[1] in PREFILLS else "none")

    def open_in_main(self, session_id: str) -> None:
        self.window.controller.open_session(session_id)
        self.window.bring_to_front()

    def _answer_finished(self, text: str, failed: bool) -> None:
        quick = self.quick_window
        if quick is None:
            return
        title = ""
        session_id = quick.controller.session_id
        if session_id is not None:
            info = self.window.controller.ctx.sessions.get_session(session_id)
            title = info.title if info is not None else ""
        self.window.notifier.answer_finished(title, text, failed=failed, shown_in=quick)

    def close(self) -> None:
        if self.quick_window is not None:
            self.quick_window.hide()
            self.quick_window.deleteLater()
            self.quick_window = None
