"""Replay: send a recorded request again, to the same or another model or provider.

Not a chat turn: nothing is saved to the chat and no tool runs. The request is the
provider-neutral one the inspector kept (messages, system prompt, tools, options),
rebuilt and streamed through the provider layer, so another provider gets it in its
own wire format; the new exchange is recorded by the inspector like any other.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Any

import msgspec

from desktop.core.errors import AssistaError
from desktop.core.events import ErrorEvent, TextDelta, ToolCallComplete, UsageEvent
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest, ToolSpec

if TYPE_CHECKING:
    from desktop.chat.app_context import BuildProvider
    from desktop.core.settings import ProviderConfig
    from desktop.storage.inspector_records import ExchangeRecord

__all__ = ["ReplayResult", "original_result", "replay", "request_from_record"]


class ReplayResult(msgspec.Struct, frozen=True):
    """What one replayed request gave back: its text or error, and its timings."""

    label: str  # provider and model
    text: str
    error: str | None
    first_token_s: float | None
    total_s: float | None
    output_tokens: int | None

    @property
    def tokens_per_s(self) -> float | None:
        if not self.output_tokens or self.first_token_s is None or self.total_s is None:
            return None
        span = self.total_s - self.first_token_s
        return self.output_tokens / span if span > 0 else None


def request_from_record(record: ExchangeRecord, model: str | None = None) -> ChatRequest:
    """The recorded request as a ChatRequest (``model`` instead of the recorded one)."""
    data: dict[str, Any] | None = record.chat_request
    if not data:
        raise AssistaError("this record has no request to replay (recorded by an older "
                           "version)", code="replay_no_request")
    return ChatRequest(
        model=model or str(data.get("model") or record.model),
        messages=[Message.model_validate(m) for m in data.get("messages") or []],
        system=data.get("system"),
        tools=[ToolSpec(**t) for t in data.get("tools") or []],
        temperature=data.get("temperature"),
        max_tokens=data.get("max_tokens"),
        reasoning=bool(data.get("reasoning")),
        reasoning_budget=data.get("reasoning_budget"),
        reasoning_effort=data.get("reasoning_effort"),
        extra=dict(data.get("extra") or {}),
    )


def original_result(record: ExchangeRecord) -> ReplayResult:
    """The recorded answer, in the same shape as a replay's."""
    return ReplayResult(f"{record.provider} · {record.model}", record.answer_text,
                        record.error, record.first_token_s, record.end_s,
                        record.output_tokens)


async def replay(build_provider: BuildProvider, record: ExchangeRecord, config: ProviderConfig,
                 model: str) -> ReplayResult:
    """Stream the recorded request to ``config``/``model``; never raises for a
    provider failure (it is the result's ``error``)."""
    label = f"{config.name} · {model}"
    started = time.monotonic()
    first: float | None = None
    parts: list[str] = []
    deltas = 0
    tokens: int | None = None
    error: str | None = None
    try:
        request = request_from_record(record, model)
        provider = build_provider(config)
    except AssistaError as exc:
        return ReplayResult(label, "", str(exc), None, None, None)
    try:
        async with contextlib.aclosing(provider.stream(request)) as events:
            async for event in events:
                if isinstance(event, TextDelta | ToolCallComplete):
                    if first is None:
                        first = time.monotonic() - started
                    deltas += 1
                    parts.append(event.text if isinstance(event, TextDelta) else
                                 f"\n[tool call {event.name} {event.arguments}]\n")
                elif isinstance(event, UsageEvent) and event.usage.output_tokens:
                    tokens = event.usage.output_tokens
                elif isinstance(event, ErrorEvent):
                    error = event.message
    except AssistaError as exc:
        error = str(exc)
    finally:
        with contextlib.suppress(Exception):
            await provider.aclose()
    return ReplayResult(label, "".join(parts), error, first, time.monotonic() - started,
                        tokens if tokens is not None else (deltas or None))
