"""Questions MCP servers ask during a turn, put to the user through the chat's own
event stream.

An elicitation (the server wants information) or a sampling request (the server
wants the chat's model to answer messages) belongs to the chat whose tool call it
came from (``request.origin``). :class:`ServerQuestions` emits a
:class:`~desktop.chat.events.ServerQuestionAsked` on that chat's running turn —
so whoever watches the chat (the window's tool panel) shows it, and a late observer
gets it replayed — and waits for :meth:`PendingQuestion.resolve`. When the answer
comes, or the turn ends first (the user stopped it: the server is told "cancel" /
denied), a :class:`~desktop.chat.events.ServerQuestionClosed` follows. A request
from no running turn is declined: nobody is looking at it.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from desktop.chat.events import ServerQuestionAsked, ServerQuestionClosed
from desktop.tools.mcp.server_requests import (
    ElicitationAnswer,
    ElicitationRequest,
    SamplingRequest,
)

if TYPE_CHECKING:
    from desktop.chat.service import ChatService

log = logging.getLogger(__name__)

Answer = ElicitationAnswer | bool  # a form's answer, or "allowed?" for sampling


@dataclass(eq=False)
class PendingQuestion:
    """One server question waiting for the user. Call :meth:`resolve` once."""

    id: str
    kind: Literal["elicitation", "sampling"]
    request: ElicitationRequest | SamplingRequest
    session_id: str
    chat_title: str = ""
    _future: asyncio.Future[Answer] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future(), repr=False)

    @property
    def done(self) -> bool:
        return self._future.done()

    def resolve(self, answer: Answer) -> None:
        if not self._future.done():
            self._future.set_result(answer)


class ServerQuestions:
    """The window's Elicitor (:meth:`elicit`) and SamplingApprover (:meth:`approve_sampling`)."""

    def __init__(self, service: ChatService) -> None:
        self.service = service
        self.pending: dict[str, PendingQuestion] = {}

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        answer = await self._ask("elicitation", request)
        if isinstance(answer, ElicitationAnswer):
            return answer
        return ElicitationAnswer("cancel" if answer is False else "decline")

    async def approve_sampling(self, request: SamplingRequest) -> bool:
        return await self._ask("sampling", request) is True

    async def _ask(self, kind: Literal["elicitation", "sampling"],
                   request: ElicitationRequest | SamplingRequest) -> Answer | None:
        turn = self.service.running(request.origin) if request.origin else None
        if turn is None or turn.task is None:
            log.info("MCP server %s asked outside a running turn; declined", request.server)
            return None
        pending = PendingQuestion(uuid.uuid4().hex, kind, request, turn.session_id, turn.title)
        self.pending[pending.id] = pending
        states = self.service.chat_states
        states.set(turn.session_id, "approval")
        turn.emit(ServerQuestionAsked(pending))
        try:
            waiters: set[asyncio.Future[Any]] = {pending._future, turn.task}
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            return pending._future.result() if pending.done else False  # the turn ended
        finally:
            pending._future.cancel()
            self.pending.pop(pending.id, None)
            if self.service.running(turn.session_id) is turn:
                states.set(turn.session_id, "answering")
            turn.emit(ServerQuestionClosed(pending.id))
