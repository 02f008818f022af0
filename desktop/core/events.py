"""Normalized stream events every provider adapter yields.

These sit on the per-token hot path, so they are slotted dataclasses rather than
pydantic models. ``to_dict`` gives the JSON shape printed by ``assista ask --json``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from desktop.core.error_codes import ErrorInfo
from desktop.core.messages import Source, Usage


@dataclass(slots=True)
class TextDelta:
    """A piece of the answer's text."""

    text: str
    type: str = field(default="text_delta", init=False)


@dataclass(slots=True)
class ReasoningDelta:
    """A piece of the model's reasoning."""

    text: str
    type: str = field(default="reasoning_delta", init=False)


@dataclass(slots=True)
class ReasoningComplete:
    """A reasoning block finished; carries what must be sent back verbatim."""

    text: str = ""
    signature: str | None = None
    redacted: bool = False
    provider_data: dict[str, Any] = field(default_factory=dict)
    type: str = field(default="reasoning_complete", init=False)


@dataclass(slots=True)
class ToolCallStarted:
    """The model began a tool call (its arguments follow)."""

    index: int
    id: str
    name: str
    type: str = field(default="tool_call_started", init=False)


@dataclass(slots=True)
class ToolCallComplete:
    """A tool call with all its arguments (JSON text)."""

    index: int
    id: str
    name: str
    arguments: str
    provider_data: dict[str, Any] = field(default_factory=dict)
    type: str = field(default="tool_call_complete", init=False)


@dataclass(slots=True)
class UsageEvent:
    """The token counts the provider reported."""

    usage: Usage
    type: str = field(default="usage", init=False)


@dataclass(slots=True)
class SourcesEvent:
    """Grounding sources / citations for the answer (may arrive more than once)."""

    sources: list[Source]
    type: str = field(default="sources", init=False)


@dataclass(slots=True)
class ImageEvent:
    """An image in the answer (see :mod:`desktop.core.images`): base64 ``data`` of
    ``media_type``, or ``problem`` (``too_large``, ``not_an_image``, ``bad_data``...)
    when the provider sent one that is not kept."""

    data: str = ""
    media_type: str = "image/png"
    source: str = ""
    problem: str | None = None
    size: int = 0
    #: Sent back with the image on the next turn (Gemini's ``thoughtSignature``).
    provider_data: dict[str, Any] = field(default_factory=dict)
    type: str = field(default="image", init=False)


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


@dataclass(slots=True)
class EndEvent:
    """The stream finished; ``finish_reason`` is normalized (stop/length/tool_calls/...).

    ``provider_data`` is stored on the assistant message (e.g. a Responses API
    ``response_id`` used for ``previous_response_id`` chaining).
    """

    finish_reason: str = "stop"
    provider_data: dict[str, Any] = field(default_factory=dict)
    type: str = field(default="end", init=False)


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


def event_to_dict(event: Any) -> dict[str, Any]:
    """JSON-ready dict of any dataclass event (pydantic fields dumped)."""
    out: dict[str, Any] = {"type": event.type}
    for f in dataclasses.fields(event):
        if f.name == "type":
            continue
        value = getattr(event, f.name)
        if callable(value):
            continue
        if hasattr(value, "model_dump"):
            value = value.model_dump(mode="json")
        elif isinstance(value, ErrorInfo):
            value = value.to_json()
        elif isinstance(value, list):
            value = [v.model_dump(mode="json") if hasattr(v, "model_dump") else v
                     for v in value]
        out[f.name] = value
    return out
