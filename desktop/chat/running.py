"""One turn in progress: its task, what it streamed so far, and who is watching.

A turn runs whether or not anyone watches it. Everything it emits is kept (text
and reasoning deltas merged, so the log stays small) so that an observer that
arrives late — the user switching back to the chat — is first shown the chat as it
was when the turn started, then everything streamed meanwhile, then the live rest.
"""

from __future__ import annotations

import asyncio
import logging

import msgspec

from desktop.chat.events import (
    ChatEvent,
    ChatObserver,
    ChatState,
    ConfirmRequested,
    ProviderRetrying,
    TurnQueued,
)
from desktop.core.error_codes import ErrorInfo
from desktop.core.events import ReasoningDelta, TextDelta
from desktop.core.messages import Message
from desktop.core.orchestrator import RunResult
from desktop.core.tooling import ToolRunner
from desktop.tools.approval import ToolProgress

log = logging.getLogger(__name__)

PAST_NEWS = (ConfirmRequested, ProviderRetrying, TurnQueued)
_DELTAS = (TextDelta, ReasoningDelta)  # a tuple: checked per token (no union made each time)


class RunningTurn(msgspec.Struct, eq=False, weakref=True):
    """One turn in progress: its task, its state, what it emitted so far, its observers."""

    session_id: str
    title: str
    base: list[Message]  # the conversation when the turn started (with the new message)
    history: list[Message]  # the live list the loop appends finished messages to
    model: str = ""
    tools: ToolRunner | None = None
    task: asyncio.Task[None] | None = None
    state: ChatState = "answering"
    retry_limit: int = 0  # how often the provider retries a refused request (0: unknown)
    result: RunResult | None = None
    failure: str | None = None
    failure_info: ErrorInfo | None = None  # the failure's code + params
    observers: list[ChatObserver] = msgspec.field(default_factory=list)
    _log: list[ChatEvent | _Run] = msgspec.field(default_factory=list)
    _confirm: asyncio.Future[bool] | None = None
    _rounds: int = 0

    @property
    def done(self) -> bool:
        return self.task is not None and self.task.done()

    def emit(self, event: ChatEvent) -> None:
        self._record(event)
        for observer in list(self.observers):
            try:
                observer(event)
            except Exception:  # the turn goes on, and so do the other observers
                log.exception("a chat observer failed on %s", type(event).__name__)

    def replay(self, observer: ChatObserver) -> None:
        """Give ``observer`` everything streamed so far, in order. News that is no
        longer true (a retry, a queue, a question already answered) is left out; a
        question still open is asked again."""
        for entry in list(self._log):
            event = entry.event() if isinstance(entry, _Run) else entry
            if not isinstance(event, PAST_NEWS):
                observer(event)
        if self.confirm_pending:
            observer(ConfirmRequested(self._rounds))

    def streamed_text(self) -> str:
        """The answer text streamed so far in this turn (every round)."""
        return "".join("".join(entry.pieces) for entry in self._log
                       if isinstance(entry, _Run) and isinstance(entry.first, TextDelta))

    def _record(self, event: ChatEvent) -> None:
        last = self._log[-1] if self._log else None
        if isinstance(last, _Run) and last.takes(event):
            last.pieces.append(event.text)  # type: ignore[union-attr]
        elif isinstance(event, _DELTAS) or (
                isinstance(event, ToolProgress) and event.kind == "output"):
            self._log.append(_Run(event))
        else:
            self._log.append(event)

    # -- the tool-round question -------------------------------------------------------

    async def ask_confirm(self, rounds: int) -> bool:
        """The loop's ``confirm_continue``: wait for :meth:`answer_confirm`."""
        self._confirm = asyncio.get_running_loop().create_future()
        self._rounds = rounds
        self.emit(ConfirmRequested(rounds))
        try:
            return await self._confirm
        finally:
            self._confirm = None

    @property
    def confirm_pending(self) -> bool:
        return self._confirm is not None and not self._confirm.done()

    def answer_confirm(self, proceed: bool) -> None:
        if self._confirm is not None and not self._confirm.done():
            self._confirm.set_result(proceed)

    def cancel(self) -> None:
        self.answer_confirm(False)
        if self.task is not None and not self.task.done():
            self.task.cancel()


class _Run:
    """Consecutive text (or reasoning, or one call's output) deltas, kept as pieces
    and joined once when replayed: joining on every token would copy the whole answer
    each time."""

    def __init__(self, first: TextDelta | ReasoningDelta | ToolProgress) -> None:
        self.first = first
        self.pieces = [first.text]

    def takes(self, event: ChatEvent) -> bool:
        first = self.first
        if isinstance(first, ToolProgress):
            return isinstance(event, ToolProgress) and event.kind == "output" and \
                (event.call_id, event.stream) == (first.call_id, first.stream)
        return type(event) is type(first)

    def event(self) -> ChatEvent:
        text = "".join(self.pieces)
        self.pieces = [text]
        if isinstance(self.first, ToolProgress):
            return msgspec.structs.replace(self.first, text=text)
        return type(self.first)(text)
