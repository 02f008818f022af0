"""Tool calls waiting for the user, from every chat at once.

A chat running in the background can ask for approval while another chat is on
screen: the window shows every pending request (with its chat's name) and answers
it through :meth:`PendingApproval.resolve`. Observers are told when a request
appears and when it goes away (answered, stopped, cancelled).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from desktop.tools.approval import ApprovalDecision, ApprovalRequest

log = logging.getLogger(__name__)


@dataclass
class PendingApproval:
    """One tool call waiting for the user. Call :meth:`resolve` exactly once."""

    request: ApprovalRequest
    _future: asyncio.Future[ApprovalDecision] = field(repr=False)
    session_id: str = ""
    chat_title: str = ""

    @property
    def done(self) -> bool:
        return self._future.done()

    def resolve(self, decision: ApprovalDecision) -> None:
        if not self._future.done():
            self._future.set_result(decision)


class ApprovalBoard:
    """Pending approvals of all chats, keyed by call id."""

    def __init__(self) -> None:
        self.pending: dict[str, PendingApproval] = {}
        self.on_request: list[Callable[[PendingApproval], None]] = []
        self.on_close: list[Callable[[str], None]] = []

    def for_chat(self, session_id: str) -> list[PendingApproval]:
        return [p for p in self.pending.values() if p.session_id == session_id]

    async def ask(self, request: ApprovalRequest, session_id: str,
                  chat_title: str) -> ApprovalDecision:
        future: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
        pending = PendingApproval(request, future, session_id, chat_title)
        self.pending[request.call_id] = pending
        self._notify(self.on_request, pending)
        try:
            return await future
        finally:
            self.pending.pop(request.call_id, None)
            self._notify(self.on_close, request.call_id)

    def deny_chat(self, session_id: str, reason: str) -> None:
        for pending in self.for_chat(session_id):
            pending.resolve(ApprovalDecision.deny(reason))

    @staticmethod
    def _notify(callbacks: list[Callable[..., None]], value: object) -> None:
        for callback in list(callbacks):
            try:
                callback(value)
            except Exception:  # a broken observer must not lose the request
                log.exception("an approval observer failed")
