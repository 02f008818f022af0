"""Which of the chat's tool calls wait for the user, and in what order the model asked
for them: the inline approval rows follow that order (calls of one turn run at once,
so their approvals can arrive in any order), and an answer's tool line says "waiting
for your approval" instead of "running…" while one of its calls waits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from desktop.core.agent_events import ToolRunFinished, ToolRunStarted
from desktop.tools.approval import ToolProgress

if TYPE_CHECKING:
    from desktop.ui.chat.chat_view import ChatView
    from desktop.ui.window.bridge import AgentBridge

LAST = 10**9  # the place of a call not seen starting: after the others


class CallStates(QObject):
    def __init__(self, bridge: AgentBridge, chat: ChatView) -> None:
        super().__init__(chat)
        self.chat = chat
        self.places: dict[str, int] = {}  # call id -> its place among the calls seen
        self.owners: dict[str, str] = {}  # call id -> the message that made it
        chat.turn_status.order = self.place
        bridge.toolRunStarted.connect(self._started)
        bridge.toolProgress.connect(self._progress)
        bridge.toolRunFinished.connect(self._finished)

    def place(self, call_id: str) -> int:
        return self.places.get(call_id, LAST)

    def _started(self, event: ToolRunStarted) -> None:
        self.places.setdefault(event.call.id, len(self.places))
        self.owners[event.call.id] = event.message_id

    def _progress(self, progress: ToolProgress) -> None:
        if progress.kind == "status":
            self._mark(progress.call_id, progress.text == "awaiting_approval")

    def _finished(self, event: ToolRunFinished) -> None:
        self._mark(event.result.tool_call_id, False)

    def _mark(self, call_id: str, waiting: bool) -> None:
        message_id = self.owners.get(call_id)
        widget = self.chat.widget_for(message_id) if message_id is not None else None
        if widget is not None:
            widget.tool_calls.set_waiting(call_id, waiting)
