"""How each answer was generated: time to first token, tokens per second, and token
counts for answers the provider never reported usage for.

Providers report usage in the stream's last event, so an answer that was stopped, cut
off or failed has none (it showed "0 in · 0 out"). :class:`GenerationMeter` sits in
front of the session recorder: it times every answer and, when the provider sent no
counts (or only the prompt's), estimates them from the text (about four characters a
token) and says so. The figures are stored with the message, in
``provider_data["generation"]`` (no provider reads that key back), so they are shown
again when the chat is reopened. Qt-free.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import msgspec

from desktop.core.agent_events import AgentEvent, AssistantFinished, AssistantStarted
from desktop.core.events import (
    ReasoningDelta,
    TextDelta,
    ToolCallComplete,
    ToolCallStarted,
    UsageEvent,
)
from desktop.core.messages import Message, TextPart, ToolCallPart, ToolResultPart, Usage

STATS_KEY = "generation"
CHARS_PER_TOKEN = 4.0
IMAGE_TOKENS = 800  # a typical cost of one attached image, for an estimate only


class GenerationStats(msgspec.Struct, frozen=True):
    """How one answer was generated, as stored with its message."""

    first_token_s: float | None = None  # from the request to the first token
    tokens_per_s: float | None = None  # output tokens over the time they streamed in
    estimated: bool = False  # the usage was estimated, not reported by the provider

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"estimated": self.estimated}
        if self.first_token_s is not None:
            out["first_token_s"] = round(self.first_token_s, 3)
        if self.tokens_per_s is not None:
            out["tokens_per_s"] = round(self.tokens_per_s, 1)
        return out

    @classmethod
    def of(cls, message: Message) -> GenerationStats | None:
        """The stats stored with ``message`` (None: an older message, or a user's)."""
        raw = message.provider_data.get(STATS_KEY)
        if not isinstance(raw, dict):
            return None
        first, rate = raw.get("first_token_s"), raw.get("tokens_per_s")
        return cls(first_token_s=float(first) if isinstance(first, int | float) else None,
                   tokens_per_s=float(rate) if isinstance(rate, int | float) else None,
                   estimated=bool(raw.get("estimated", False)))


def estimate_tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN) if chars > 0 else 0


def message_chars(message: Message) -> int:
    """Characters a model reads or writes for ``message`` (images as a typical size)."""
    total = 0
    for part in message.parts:
        if isinstance(part, TextPart):
            total += len(part.text)
        elif isinstance(part, ToolCallPart):
            total += len(part.name) + len(part.arguments)
        elif isinstance(part, ToolResultPart):
            total += len(part.content)
        elif part.type == "image":
            total += int(IMAGE_TOKENS * CHARS_PER_TOKEN)
        elif part.type == "reasoning":
            total += len(getattr(part, "text", ""))
    return total


class GenerationMeter:
    """A sink in front of ``downstream`` that adds stats (and, where the provider sent
    none, estimated usage) to every finished assistant message."""

    def __init__(self, downstream: Callable[[AgentEvent], None], history: list[Message],
                 system: str | None = None, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.downstream = downstream
        self.history = history  # the live list the loop appends messages to
        self.system = system
        self.clock = clock
        self._started = 0.0
        self._first: float | None = None
        self._chars = 0
        self._reported_output = False
        self._prompt_chars = 0
        self.finished: dict[str, Message] = {}  # message id -> the message with its stats

    async def settled(self) -> None:
        """Wait for the saves of the sink behind (see Orchestrator._run_tools)."""
        settled = getattr(self.downstream, "settled", None)
        if settled is not None:
            await settled()

    def __call__(self, event: AgentEvent) -> None:
        if type(event) is TextDelta:  # nearly every event: the per-token path
            if self._first is None:
                self._first = self.clock()
            self._chars += len(event.text)
            self.downstream(event)
            return
        if isinstance(event, AssistantStarted):
            self._started, self._first, self._chars = self.clock(), None, 0
            self._reported_output = False
            self._prompt_chars = len(self.system or "") + sum(
                message_chars(m) for m in self.history)
        elif isinstance(event, (TextDelta, ReasoningDelta)):
            self._token_seen()
            self._chars += len(event.text)
        elif isinstance(event, ToolCallStarted):
            self._token_seen()
            self._chars += len(event.name)
        elif isinstance(event, ToolCallComplete):
            self._chars += len(event.arguments)
        elif isinstance(event, UsageEvent):
            self._reported_output |= event.usage.output_tokens > 0
        elif isinstance(event, AssistantFinished):
            event = AssistantFinished(self._with_stats(event.message))
        self.downstream(event)

    def _token_seen(self) -> None:
        if self._first is None:
            self._first = self.clock()

    def _with_stats(self, message: Message) -> Message:
        now = self.clock()
        usage = message.usage or Usage()
        estimated = False
        if not self._reported_output and self._chars:
            usage = usage.model_copy(update={"output_tokens": estimate_tokens(self._chars)})
            estimated = True
        if usage.input_tokens == 0 and self._prompt_chars and (estimated or
                                                               message.usage is None):
            usage = usage.model_copy(update={
                "input_tokens": estimate_tokens(self._prompt_chars)})
            estimated = True
        first = self._first - self._started if self._first is not None else None
        rate = None
        if self._first is not None and now > self._first and usage.output_tokens > 1:
            rate = usage.output_tokens / (now - self._first)
        stats = GenerationStats(first_token_s=first, tokens_per_s=rate, estimated=estimated)
        enriched = message.model_copy(update={
            "usage": usage if (usage.input_tokens or usage.output_tokens) else message.usage,
            "provider_data": {**message.provider_data, STATS_KEY: stats.to_json()}})
        self.finished[enriched.id] = enriched
        for index in range(len(self.history) - 1, -1, -1):  # the loop appended it last
            if self.history[index] is message:
                self.history[index] = enriched
                break
        return enriched

    def patch(self, messages: list[Message]) -> list[Message]:
        """``messages`` (a run's new messages) with the stats added."""
        return [self.finished.get(m.id, m) for m in messages]
