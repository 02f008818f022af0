"""The small contract every provider adapter fulfils.

An adapter turns a :class:`ChatRequest` (typed messages + tool specs) into its
wire format, streams the response and yields normalized
:mod:`desktop.core.events`. Capabilities are plain attributes.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any, Protocol, runtime_checkable

import msgspec

from desktop.core.events import StreamEvent
from desktop.core.messages import Message


class ToolSpec(msgspec.Struct, frozen=True):
    """A tool as the model sees it: a name, a description, a JSON Schema for input."""

    name: str
    description: str
    parameters: dict[str, Any]


class RequestOrigin(msgspec.Struct, frozen=True):
    """Which chat (session) and which answer (message) a model request is made for:
    what the request inspector files a recorded exchange under."""

    session_id: str | None = None
    message_id: str | None = None


class ChatRequest(msgspec.Struct):
    """One model request, the same for every provider: model, messages, tools, options."""

    model: str
    messages: list[Message]
    system: str | None = None
    tools: list[ToolSpec] = msgspec.field(default_factory=list)
    temperature: float | None = None
    max_tokens: int | None = None
    # Reasoning / extended thinking: ``reasoning`` turns it on where a model needs a
    # switch (Anthropic thinking, Gemini thinkingConfig, OpenAI reasoning.effort).
    reasoning: bool = False
    reasoning_budget: int | None = None  # tokens (Anthropic budget_tokens, Gemini budget)
    reasoning_effort: str | None = None  # "low" | "medium" | "high" (OpenAI)
    # Let the model search the web with the provider's own search (Responses web_search,
    # Anthropic's web search server tool, Gemini google_search, OpenRouter's web plugin).
    web_search: bool = False
    extra: dict[str, Any] = msgspec.field(default_factory=dict)
    # Not sent: the chat and answer the request is made for (the inspector's filing).
    origin: RequestOrigin = msgspec.field(default_factory=RequestOrigin)


class ModelCapabilities(msgspec.Struct, frozen=True):
    """What a model can do; ``None`` means unknown (the UI then lets the user decide)."""

    tools: bool | None = None
    vision: bool | None = None
    reasoning: bool | None = None
    max_output_tokens: int | None = None
    context_window: int | None = None


class ModelInfo(msgspec.Struct, frozen=True):
    """One model a provider lists: its id, name, context window and what it can do."""

    id: str
    name: str | None = None
    context_window: int | None = None
    owned_by: str | None = None
    capabilities: ModelCapabilities | None = None


@runtime_checkable
class Provider(Protocol):
    """What the orchestrator needs from an adapter."""

    name: str
    supports_tools: bool
    supports_reasoning: bool

    def stream(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        """Send the request and yield normalized events, ending with EndEvent or ErrorEvent."""
        ...

    async def list_models(self) -> list[ModelInfo]:
        ...

    async def aclose(self) -> None:
        ...
