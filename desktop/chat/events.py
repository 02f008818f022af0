"""What observers of a chat are told, beyond the agent loop's own events.

An observer of a chat receives, in order: the agent loop's events
(:mod:`desktop.core.agent_events`, :mod:`desktop.core.events`), tool progress
(:class:`~desktop.tools.approval.ToolProgress`), and the events below, which belong
to the chat service: retries, queueing, the tool-round question and the end of the
turn. All are plain dataclasses with a ``type``, so they print as JSON too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, Literal

import msgspec

from desktop.chat.research.progress import ResearchProgress
from desktop.core.agent_events import AgentEvent
from desktop.core.error_codes import ErrorInfo, retry_failure
from desktop.core.messages import Message
from desktop.tools.approval import ToolProgress

if TYPE_CHECKING:
    from desktop.chat.server_questions import PendingQuestion

#: What the chat list shows for a chat: nothing (idle), waiting for a provider slot,
#: answering, waiting for the user (an approval or "Continue?"), failed, or finished
#: while nobody was looking.
ChatState = Literal["idle", "queued", "answering", "approval", "failed", "unread"]


class ProviderRetrying(msgspec.Struct, frozen=True):
    """The provider refused or failed before answering and is asked again."""

    provider: str
    attempt: int  # 0 for the first retry
    delay_s: float
    reason: str  # "HTTP 429", or an exception's name
    max_retries: int = 0  # retries the provider makes at most (0: unknown)

    @property
    def info(self) -> ErrorInfo:
        """Why, as a code (rate_limited, server_error, timeout, unreachable) + params."""
        return retry_failure(self.reason, self.provider)
    type: ClassVar[str] = "provider_retrying"


class TurnQueued(msgspec.Struct, frozen=True):
    """The request waits for one of its provider's slots (``waiting=False``: got one)."""

    waiting: bool
    type: ClassVar[str] = "turn_queued"


class ConfirmRequested(msgspec.Struct, frozen=True):
    """The tool-round limit was reached: answer with ``ChatService.answer_confirm``."""

    rounds: int
    type: ClassVar[str] = "confirm_requested"


class TurnFailed(msgspec.Struct, frozen=True):
    """The turn could not run or ended with an error the loop did not report."""

    message: str  # in English
    info: ErrorInfo | None = None  # its code + params, to word it in the user's language
    type: ClassVar[str] = "turn_failed"


class TurnEnded(msgspec.Struct, frozen=True):
    """Last event of a turn: everything is saved."""

    session_id: str
    status: str  # a RunStatus, or "failed" when it could not run
    type: ClassVar[str] = "turn_ended"


class SaveFailed(msgspec.Struct, frozen=True):
    """Messages of the turn could not be stored after retries (before TurnEnded).

    ``messages`` are whole (as shown); the window can offer to save them again
    (``SessionStore.save_message`` for each, in order)."""

    session_id: str
    message: str
    messages: list[Message] = msgspec.field(default_factory=list)
    type: ClassVar[str] = "save_failed"


class ServerQuestionAsked(msgspec.Struct, frozen=True):
    """An MCP server asks the user (a form to fill, or messages for the model to
    answer): show ``question`` and call its ``resolve`` (desktop.chat.server_questions)."""

    question: PendingQuestion
    type: ClassVar[str] = "server_question_asked"


class ServerQuestionClosed(msgspec.Struct, frozen=True):
    """The question went away (answered, or the turn ended first)."""

    question_id: str
    type: ClassVar[str] = "server_question_closed"


ServiceEvent = (ProviderRetrying | TurnQueued | ConfirmRequested | TurnFailed | SaveFailed
                | TurnEnded | ServerQuestionAsked | ServerQuestionClosed | ResearchProgress)
ChatEvent = AgentEvent | ToolProgress | ServiceEvent
ChatObserver = Callable[[ChatEvent], None]


def retry_text(name: str, attempt: int, delay_s: float, reason: str) -> str:
    """A sentence for a retry; ``attempt`` counts from 0 (the first retry)."""
    why = {"HTTP 429": "is rate-limiting requests", "HTTP 529": "is overloaded",
           "HTTP 503": "is unavailable", "HTTP 408": "timed out"}.get(reason)
    if why is None:
        why = (f"answered {reason}" if reason.startswith("HTTP ")
               else f"could not be reached ({reason})")
    wait = f"{delay_s:.0f} s" if delay_s >= 1 else "a moment"
    return f"{name} {why}; trying again in {wait} (retry {attempt + 1})…"
