"""Typed conversation messages made of parts.

A message has a role and an ordered list of parts. Parts carry a ``type``
discriminator so that a stored message round-trips through JSON losslessly.
``provider_data`` keeps opaque, provider-specific fields (signatures, encrypted
reasoning, ids) that must be sent back verbatim on the next turn.
"""

from __future__ import annotations

import time
import uuid
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant", "tool"]
MessageStatus = Literal["complete", "streaming", "stopped", "error", "interrupted"]


def new_id(prefix: str = "") -> str:
    """A fresh unique id, optionally prefixed (``call_``, ``msg_``)."""
    return f"{prefix}{uuid.uuid4().hex}"


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid")
    provider_data: dict[str, Any] = Field(default_factory=dict)


class TextPart(_Part):
    type: Literal["text"] = "text"
    text: str


class ReasoningPart(_Part):
    """Visible thinking. ``signature``/``redacted`` are kept for providers that verify them."""

    type: Literal["reasoning"] = "reasoning"
    text: str = ""
    signature: str | None = None
    redacted: bool = False
    duration_s: float | None = None


class ToolCallPart(_Part):
    """A request from the model to run a tool; ``arguments`` is the raw JSON text."""

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: str = "{}"


class ToolResultPart(_Part):
    """The outcome of one tool call, fed back to the model."""

    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    name: str
    content: str
    is_error: bool = False
    status: Literal["succeeded", "failed", "denied", "cancelled"] = "succeeded"
    duration_s: float | None = None


class Source(BaseModel):
    """One grounding source or citation: a numbered link under the answer."""

    title: str = ""
    url: str | None = None
    snippet: str | None = None
    # A file source (a knowledge-base hit): its path and where in it.
    path: str | None = None
    page: int | None = None
    line: int | None = None


class SourcesPart(_Part):
    """Grounding / citations returned with an answer (Gemini groundingMetadata,
    OpenAI url_citation annotations, Anthropic citations)."""

    type: Literal["sources"] = "sources"
    sources: list[Source] = []


class ImagePart(_Part):
    """Reserved for attachments: base64 data with its media type."""

    type: Literal["image"] = "image"
    media_type: str = "image/png"
    data: str = ""
    name: str | None = None


Part = Annotated[
    TextPart | ReasoningPart | ToolCallPart | ToolResultPart | ImagePart | SourcesPart,
    Field(discriminator="type"),
]


class Usage(BaseModel):
    """Normalized token counts for one response (or a sum of several)."""

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0
    cost: float | None = None

    def __add__(self, other: Usage) -> Usage:
        cost: float | None = None
        if self.cost is not None or other.cost is not None:
            cost = (self.cost or 0.0) + (other.cost or 0.0)
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            cost=cost,
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


class Message(BaseModel):
    id: str = Field(default_factory=lambda: new_id("msg_"))
    role: Role
    parts: list[Part] = []
    created_at: float = Field(default_factory=time.time)
    status: MessageStatus = "complete"
    model: str | None = None
    provider: str | None = None
    usage: Usage | None = None
    error: str | None = None
    finish_reason: str | None = None
    parent_id: str | None = None  # the message this one answers / follows (branches)
    # Opaque per-provider data kept with the message, e.g. {"response_id": ...}
    provider_data: dict[str, Any] = Field(default_factory=dict)

    @property
    def text(self) -> str:
        """All visible answer text, concatenated."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def body_text(self) -> str:
        """Text the user typed or the model wrote, without inlined attachments."""
        return "".join(p.text for p in self.parts
                       if isinstance(p, TextPart) and "attachment" not in p.provider_data)

    @property
    def attachment_names(self) -> list[str]:
        names: list[str] = []
        for p in self.parts:
            if isinstance(p, ImagePart):
                names.append(p.name or "image")
            elif isinstance(p, TextPart) and isinstance(p.provider_data.get("attachment"), str):
                names.append(p.provider_data["attachment"])
        return names

    @property
    def reasoning(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, ReasoningPart))

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        return [p for p in self.parts if isinstance(p, ToolCallPart)]

    @property
    def tool_results(self) -> list[ToolResultPart]:
        return [p for p in self.parts if isinstance(p, ToolResultPart)]

    @classmethod
    def user(cls, text: str) -> Message:
        return cls(role="user", parts=[TextPart(text=text)])

    @classmethod
    def system(cls, text: str) -> Message:
        return cls(role="system", parts=[TextPart(text=text)])
