"""One compare run: the same question answered by 2–4 models at once, each answer a
sibling branch below one user message.

A :class:`CompareRun` is what the window's compare view and ``assista ask
--compare`` watch: one :class:`CompareColumn` per model, each with its own
:class:`~desktop.chat.running.RunningTurn` (its events, observers, tools and
approvals), and a group turn that stands for the whole run in the chat service
(so the chat shows as answering, Stop stops every column, and the end of the run
is the group's ``TurnEnded``). Qt-free.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import msgspec

from desktop.chat.events import ChatEvent, ChatObserver
from desktop.chat.running import RunningTurn
from desktop.core.agent_events import AssistantStarted
from desktop.core.error_codes import ErrorInfo
from desktop.core.messages import Message
from desktop.core.save_queue import MessageStore

if TYPE_CHECKING:
    from desktop.chat.approvals import PendingApproval
    from desktop.core.settings import ProviderConfig
    from desktop.tools.approval import ApprovalRequest, Approver

MIN_MODELS = 2
MAX_MODELS = 4



class CompareTarget(msgspec.Struct, frozen=True):
    """A model on a provider; ``label`` is how the user named it (the CLI's item)."""

    config: ProviderConfig
    model: str
    label: str = ""

    @property
    def name(self) -> str:
        return self.label or self.model


class PerModel(msgspec.Struct, frozen=True):
    """An approver for each model of a run, made for it (a terminal's asking says
    which model asks)."""

    approver_for: Callable[[CompareTarget], Approver]


class ColumnStore:
    """Saves one column's messages as a chain below the question.

    The columns of a run stream into one chat at once, so "after the end of the
    active branch" (where a message without a parent goes) would mix them: here
    the column's first message is a child of the question, and each later one
    (tool results, the next round) a child of the column's previous message."""

    def __init__(self, store: MessageStore, parent_id: str) -> None:
        self.store = store
        self.tip = parent_id
        self._parents: dict[str, str] = {}

    def save_message(self, session_id: str, message: Message) -> None:
        parent = self._parents.get(message.id)
        if parent is None:
            parent = self._parents[message.id] = self.tip
            self.tip = message.id
        message.parent_id = parent
        self.store.save_message(session_id, message)


@dataclass(eq=False)
class CompareColumn:
    """One model's answer in a compare run, with its own turn."""

    index: int
    target: CompareTarget
    turn: RunningTurn
    store: ColumnStore | None = None
    # Its tools' questions waiting on the approval board (told apart by the request
    # itself: two providers may well use the same call ids).
    asking: list[ApprovalRequest] = field(default_factory=list)
    first_id: str | None = None  # its first answer message (the sibling to keep)
    ended: bool = False  # finished, stopped or failed, and saved

    def __post_init__(self) -> None:
        self.turn.observers.append(self._seen)

    def _seen(self, event: ChatEvent) -> None:
        if isinstance(event, AssistantStarted) and self.first_id is None:
            self.first_id = event.message_id

    def asks(self, pending: PendingApproval) -> bool:
        return any(request is pending.request for request in self.asking)

    @property
    def status(self) -> str:
        """"running", "complete", "stopped", "limit" or "failed"."""
        turn = self.turn
        if not self.ended:
            return "running"
        if turn.failure is not None:
            return "failed"
        if turn.result is None:
            return "stopped"
        return "failed" if turn.result.status == "error" else turn.result.status

    @property
    def error(self) -> str | None:
        if self.turn.failure is not None:
            return self.turn.failure
        return self.turn.result.error if self.turn.result is not None else None

    @property
    def error_info(self) -> ErrorInfo | None:
        """The code + params of :attr:`error` (None: it has none)."""
        if self.turn.failure is not None:
            return self.turn.failure_info
        return self.turn.result.error_info if self.turn.result is not None else None

    @property
    def answer(self) -> list[Message]:
        """The messages this model added (its answer, with tool rounds)."""
        return self.turn.history[len(self.turn.base):]

    def observe(self, observer: ChatObserver) -> Callable[[], None]:
        """What the column streamed so far, then live; returns the function that
        stops watching."""
        self.turn.observers.append(observer)
        self.turn.replay(observer)

        def unobserve() -> None:
            if observer in self.turn.observers:
                self.turn.observers.remove(observer)

        return unobserve


class CompareRun(msgspec.Struct, eq=False, weakref=True):
    """One question answered by several models at once: the columns and the group turn."""

    session_id: str
    question: Message  # the user message every column answers
    columns: list[CompareColumn]
    group: RunningTurn  # stands for the run in the chat service
    saved: bool = True
    kept: int | None = None  # the column the user kept (None: the first one)
    ended: bool = False  # every column ended and the kept answer is shown
    # Asking other models about an answer: that answer's messages (choice number
    # len(columns), shown unless another is kept).
    earlier: list[Message] = msgspec.field(default_factory=list)
    on_end: list[Callable[[CompareRun], None]] = msgspec.field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.ended or self.group.done

    def answer_ids(self) -> list[str | None]:
        """The first message of each answer to choose from: the columns', then the
        earlier one's."""
        return [*(c.first_id for c in self.columns), *(m.id for m in self.earlier[:1])]

    def column_of(self, pending: PendingApproval) -> CompareColumn | None:
        """The column whose tool asks ``pending`` (None: not this run's)."""
        return next((c for c in self.columns if c.asks(pending)), None)

    async def wait(self) -> None:
        if self.group.task is not None:
            await asyncio.gather(self.group.task, return_exceptions=True)
