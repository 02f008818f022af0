"""The figures of one answer: time to first token, tokens per second, tokens and cost.

For a stored answer they come from its messages (the provider's counts and the stats
:class:`~desktop.chat.generation_stats.GenerationMeter` stored with them). For an
answer still streaming — a compare column — :class:`LiveMeter` watches its events and
estimates what is not known yet (tokens from the text, about four characters each),
then switches to the stored figures as each message finishes. Qt-free.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

import msgspec

from desktop.chat.events import ChatEvent
from desktop.chat.generation_stats import GenerationStats, estimate_tokens
from desktop.core.agent_events import AssistantFinished, AssistantStarted
from desktop.core.events import ReasoningDelta, TextDelta, ToolCallStarted
from desktop.core.messages import Message, Usage
from desktop.core.pricing import Price, cost_of
from desktop.storage.usage_stats import ModelUsage


class AnswerFigures(msgspec.Struct, frozen=True):
    """One answer's figures: time to first token, speed, token counts and cost."""

    first_token_s: float | None = None
    tokens_per_s: float | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    estimated: bool = False  # some counts are estimates (no usage from the provider yet)
    cost: float | None = None  # US dollars; None: no price known


def price_table(prices: Mapping[str, object]) -> dict[str, Price]:
    """The user's own prices (settings ``prices``: ModelPrice values) as :class:`Price`."""
    return {model: Price(getattr(p, "input", 0.0), getattr(p, "output", 0.0),
                         getattr(p, "cached_input", None)) for model, p in prices.items()}


def figures_of(messages: Sequence[Message], prices: Mapping[str, Price] | None = None
               ) -> AnswerFigures:
    """The figures of a finished answer (its assistant messages of one turn)."""
    answers = [m for m in messages if m.role == "assistant"]
    usage = Usage()
    cost: float | None = None
    for message in answers:
        if message.usage is None:
            continue
        usage = usage + message.usage.model_copy(update={"cost": None})
        one = cost_of(message.model, message.usage, prices)
        if one is not None:
            cost = (cost or 0.0) + one
    stats = [s for s in (GenerationStats.of(m) for m in answers) if s is not None]
    first = next((s.first_token_s for s in stats if s.first_token_s is not None), None)
    rates = [s.tokens_per_s for s in stats if s.tokens_per_s is not None]
    return AnswerFigures(first_token_s=first, tokens_per_s=rates[-1] if rates else None,
                         input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                         reasoning_tokens=usage.reasoning_tokens,
                         estimated=any(s.estimated for s in stats), cost=cost)


class LiveMeter:
    """An observer of one answer's events; :meth:`figures` at any time."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.finished: list[Message] = []
        self._started: float | None = None  # the first request of the answer
        self._first: float | None = None  # its first token
        self._round_first: float | None = None  # the streaming message's first token
        self._chars = 0  # of the message streaming now
        self._model: str | None = None

    def __call__(self, event: ChatEvent) -> None:
        if isinstance(event, AssistantStarted):
            now = self.clock()
            self._started = self._started if self._started is not None else now
            self._round_first, self._chars, self._model = None, 0, event.model
        elif isinstance(event, TextDelta | ReasoningDelta | ToolCallStarted):
            now = self.clock()
            if self._first is None:
                self._first = now
            if self._round_first is None:
                self._round_first = now
            self._chars += len(getattr(event, "text", "") or getattr(event, "name", ""))
        elif isinstance(event, AssistantFinished):
            self.finished.append(event.message)
            self._round_first, self._chars = None, 0

    def figures(self, prices: Mapping[str, Price] | None = None) -> AnswerFigures:
        done = figures_of(self.finished, prices)
        first = done.first_token_s
        if first is None and self._first is not None and self._started is not None:
            first = self._first - self._started
        if not self._chars:
            return AnswerFigures(first, done.tokens_per_s, done.input_tokens,
                                 done.output_tokens, done.reasoning_tokens, done.estimated,
                                 done.cost)
        streaming = estimate_tokens(self._chars)
        rate = done.tokens_per_s
        if self._round_first is not None:
            elapsed = self.clock() - self._round_first
            rate = streaming / elapsed if elapsed > 0 and streaming > 1 else rate
        cost = done.cost
        if self._model is not None:
            extra = cost_of(self._model, Usage(output_tokens=streaming), prices)
            cost = (cost or 0.0) + extra if extra is not None else cost
        return AnswerFigures(first, rate, done.input_tokens, done.output_tokens + streaming,
                             done.reasoning_tokens, True, cost)


def model_cost(row: ModelUsage, prices: Mapping[str, Price] | None = None
               ) -> tuple[float | None, bool]:
    """A model's cost over a period: what providers reported plus the tokens they sent
    no cost for, priced now. ``(cost, complete)``: ``complete`` is False when some
    tokens have no known price (the cost is then what is known, or None)."""
    unpriced = Usage(input_tokens=row.unpriced_input, cached_tokens=row.unpriced_cached,
                     output_tokens=row.unpriced_output)
    if not (unpriced.input_tokens or unpriced.output_tokens):
        if row.reported_cost:
            return row.reported_cost, True
        return cost_of(row.model, unpriced, prices), True  # 0 when priced, else unknown
    priced = cost_of(row.model, unpriced, prices)
    if priced is None:
        return (row.reported_cost if row.reported_cost else None), False
    return row.reported_cost + priced, True
