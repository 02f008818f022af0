"""When an answer is done: screen readers hear it, and a user who is elsewhere is told.

The chat on screen: when its run finishes, the answer's text is announced politely
(after whatever the screen reader is reading) through the body that shows it, and a
desktop notification is sent if the window is not the active one. A chat answering
in the background that finishes unwatched (its state turns ``unread`` or
``failed``) gets a notification too.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from desktop.core.errors import AssistaError
from desktop.ui.error_text import error_text
from desktop.ui.markdown.accessible import Announcer

if TYPE_CHECKING:
    from desktop.core.agent_events import RunFinished
    from desktop.ui.window.main_window import MainWindow


class Attention(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.announcer = Announcer()
        controller = window.controller
        controller.bridge.runFinished.connect(self._run_finished)
        controller.chatStateChanged.connect(self._state_changed)

    def _title(self, session_id: str | None) -> str:
        if not session_id:
            return ""
        with contextlib.suppress(AssistaError):
            return self.window.controller.services.chat_title(session_id) or ""
        return ""

    def _run_finished(self, event: RunFinished) -> None:
        controller = self.window.controller
        last = next((m for m in reversed(controller.history) if m.role == "assistant"), None)
        shown = self.window.chat.widget_for(last.id) if last is not None else None
        # What is shown (and read out), not the markdown source.
        text = shown.plain_body_text() if shown is not None else (last.text if last else "")
        if event.status == "error" and event.error:
            text = error_text(event.info, event.error)
        if event.status == "stopped":
            return
        if text:
            self.announcer.announce(shown.body if shown is not None else self.window.chat, text)
        self.window.notifier.answer_finished(self._title(controller.session_id), text,
                                             failed=event.status == "error")

    def _state_changed(self, session_id: str, state: str) -> None:
        if session_id == self.window.controller.session_id or state not in ("unread", "failed"):
            return  # the chat on screen is told by _run_finished
        self.window.notifier.answer_finished(self._title(session_id), "",
                                             failed=state == "failed")
