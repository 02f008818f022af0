"""Events the orchestrator reports while it runs a turn (on top of stream events).

Consumers (the Qt bridge, the CLI printer, the session recorder) receive every
provider :mod:`~desktop.core.events` event as well as these.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Literal

import msgspec

from desktop.core.error_codes import ErrorInfo
from desktop.core.events import StreamEvent
from desktop.core.messages import Message, ToolCallPart, ToolResultPart, Usage

RunStatus = Literal["complete", "stopped", "error", "limit"]


@dataclass(slots=True)
class AssistantStarted:
    """A new assistant message begins (one per model request)."""

    message_id: str
    round: int
    model: str | None
    snapshot: Callable[[], Message] | None = field(default=None, repr=False, compare=False)
    type: str = field(default="assistant_started", init=False)


class AssistantFinished(msgspec.Struct):
    """The assistant message is complete (or stopped / failed) and final."""

    message: Message
    type: ClassVar[str] = "assistant_finished"


class ToolRunStarted(msgspec.Struct):
    """A tool call of the answer starts running."""

    call: ToolCallPart
    round: int
    message_id: str
    type: ClassVar[str] = "tool_run_started"


class ToolRunFinished(msgspec.Struct):
    """A tool call ended (done, failed or cancelled): its result."""

    result: ToolResultPart
    round: int
    type: ClassVar[str] = "tool_run_finished"


class ToolResultsMessage(msgspec.Struct):
    """The tool-role message holding one round's results, as appended to history."""

    message: Message
    type: ClassVar[str] = "tool_results"


class LimitReached(msgspec.Struct):
    """The tool-round limit is reached; ``will_ask``: the user is asked whether to go on."""

    rounds: int
    will_ask: bool
    type: ClassVar[str] = "limit_reached"


class ContextTrimmed(msgspec.Struct):
    """Older turns were left out (or summarized) to fit the model's context window."""

    dropped: int
    notice: str
    type: ClassVar[str] = "context_trimmed"


class RunFinished(msgspec.Struct):
    """The run ended: how, its usage, and the error when it failed."""

    status: RunStatus
    usage: Usage
    error: str | None = None
    info: ErrorInfo | None = None  # the error's code + params, to word it translated
    type: ClassVar[str] = "run_finished"


AgentEvent = (
    StreamEvent
    | AssistantStarted
    | AssistantFinished
    | ToolRunStarted
    | ToolRunFinished
    | ToolResultsMessage
    | LimitReached
    | ContextTrimmed
    | RunFinished
)
