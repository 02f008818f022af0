"""Normalized stream events every provider adapter yields.

These sit on the per-token hot path, so they are ``msgspec`` structs (made, compared
and shown in C), not pydantic models; a tag such as ``type`` is a fact of the class.
``to_dict`` gives the JSON shape printed by ``assista ask --json``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

import msgspec

from desktop.core.error_codes import ErrorInfo
from desktop.core.messages import Source, Usage


class TextDelta(msgspec.Struct):
    """A piece of the answer's text."""

    text: str
    type: ClassVar[str] = "text_delta"


class ReasoningDelta(msgspec.Struct):
    """A piece of the model's reasoning."""

    text: str
    type: ClassVar[str] = "reasoning_delta"


class ReasoningComplete(msgspec.Struct):
    """A reasoning block finished; carries what must be sent back verbatim."""

    text: str = ""
    signature: str | None = None
    redacted: bool = False
    provider_data: dict[str, Any] = msgspec.field(default_factory=dict)
    type: ClassVar[str] = "reasoning_complete"


class ToolCallStarted(msgspec.Struct):
    """The model began a tool call (its arguments follow)."""

    index: int
    id: str
    name: str
    type: ClassVar[str] = "tool_call_started"


class ToolCallComplete(msgspec.Struct):
    """A tool call with all its arguments (JSON text)."""

    index: int
    id: str
    name: str
    arguments: str
    provider_data: dict[str, Any] = msgspec.field(default_factory=dict)
    type: ClassVar[str] = "tool_call_complete"


class UsageEvent(msgspec.Struct):
    """The token counts the provider reported."""

    usage: Usage
    type: ClassVar[str] = "usage"


class SourcesEvent(msgspec.Struct):
    """Grounding sources / citations for the answer (may arrive more than once)."""

    sources: list[Source]
    type: ClassVar[str] = "sources"


class ImageEvent(msgspec.Struct):
    """An image in the answer (see :mod:`desktop.core.images`): base64 ``data`` of
    ``media_type``, or ``problem`` (``too_large``, ``not_an_image``, ``bad_data``...)
    when the provider sent one that is not kept."""

    data: str = ""
    media_type: str = "image/png"
    source: str = ""
    problem: str | None = None
    size: int = 0
    #: Sent back with the image on the next turn (Gemini's ``thoughtSignature``).
    provider_data: dict[str, Any] = msgspec.field(default_factory=dict)
    type: ClassVar[str] = "image"


@dataclass(slots=True)
class ErrorEvent:
    """An error reported by the provider inside or before the stream."""

    message: str
    code: str | None = None  # the provider's own code, or our transport code
    status: int | None = None
    provider: str | None = None
    #: The closed code + params the window words it by (desktop.core.error_codes);
    #: None: an event made without one (shown with ``message``).
    info: ErrorInfo | None = field(default=None, compare=False)
    type: str = field(default="error", init=False)


class EndEvent(msgspec.Struct):
    """The stream finished; ``finish_reason`` is normalized (stop/length/tool_calls/...).

    ``provider_data`` is stored on the assistant message (e.g. a Responses API
    ``response_id`` used for ``previous_response_id`` chaining).
    """

    finish_reason: str = "stop"
    provider_data: dict[str, Any] = msgspec.field(default_factory=dict)
    type: ClassVar[str] = "end"


StreamEvent = (
    TextDelta
    | ReasoningDelta
    | ReasoningComplete
    | ToolCallStarted
    | ToolCallComplete
    | UsageEvent
    | SourcesEvent
    | ImageEvent
    | ErrorEvent
    | EndEvent
)


def field_names(event: Any) -> tuple[str, ...]:
    """The fields of an event: a ``msgspec.Struct`` or a dataclass (the events that
    leave a field out of comparing or showing)."""
    if isinstance(event, msgspec.Struct):
        return event.__struct_fields__
    return tuple(f.name for f in dataclasses.fields(event))


def event_to_dict(event: Any) -> dict[str, Any]:
    """JSON-ready dict of any event (pydantic fields dumped)."""
    out: dict[str, Any] = {"type": event.type}
    for name in field_names(event):
        if name == "type":
            continue
        value = getattr(event, name)
        if callable(value):
            continue
        if hasattr(value, "model_dump"):
            value = value.model_dump(mode="json")
        elif isinstance(value, ErrorInfo):
            value = value.to_json()
        elif isinstance(value, list):
            value = [v.model_dump(mode="json") if hasattr(v, "model_dump") else v
                     for v in value]
        out[name] = value
    return out
