"""The figures of an answer: from its stored messages, and live while it streams."""

from __future__ import annotations

import pytest

from desktop.chat.answer_figures import LiveMeter, figures_of, price_table
from desktop.core.agent_events import AssistantFinished, AssistantStarted
from desktop.core.events import TextDelta
from desktop.core.messages import Message, TextPart, Usage
from desktop.core.pricing import Price
from desktop.core.settings import ModelPrice


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def stored(text: str, tokens_in: int, tokens_out: int, *, first: float, rate: float,
           model: str = "gpt-4o") -> Message:
    return Message(role="assistant", model=model, parts=[TextPart(text=text)],
                   usage=Usage(input_tokens=tokens_in, output_tokens=tokens_out),
                   provider_data={"generation": {"first_token_s": first,
                                                 "tokens_per_s": rate, "estimated": False}})


def test_a_stored_answer_sums_its_rounds_and_prices_them() -> None:
    rounds = [stored("a", 1000, 100, first=0.5, rate=40.0),
              stored("b", 1200, 300, first=0.2, rate=60.0)]
    figures = figures_of(rounds)
    assert (figures.input_tokens, figures.output_tokens) == (2200, 400)
    assert figures.first_token_s == 0.5  # the answer's first token, not a later round's
    assert figures.tokens_per_s == 60.0
    assert figures.cost == pytest.approx((2200 * 2.50 + 400 * 10.0) / 1e6)  # built-in
    own = figures_of(rounds, price_table({"gpt-4o": ModelPrice(input=1.0, output=1.0)}))
    assert own.cost == pytest.approx(2600 / 1e6)
    assert figures_of([stored("x", 10, 10, first=0.1, rate=1.0, model="unknown")]).cost is None


def test_live_figures_estimate_while_streaming_then_take_the_stored_ones() -> None:
    clock = Clock()
    meter = LiveMeter(clock)
    assert meter.figures().first_token_s is None
    meter(AssistantStarted(message_id="m1", round=1, model="gpt-4o"))
    clock.now += 0.75
    meter(TextDelta("x" * 40))  # about ten tokens
    clock.now += 1.0
    meter(TextDelta("x" * 40))
    live = meter.figures({"gpt-4o": Price(0.0, 1000.0)})
    assert live.first_token_s == pytest.approx(0.75)
    assert live.estimated and live.output_tokens == 20
    assert live.tokens_per_s == pytest.approx(20.0)
    assert live.cost == pytest.approx(20 * 1000.0 / 1e6)
    meter(AssistantFinished(stored("x" * 80, 50, 21, first=0.7, rate=19.5)))
    done = meter.figures()
    assert not done.estimated
    assert (done.first_token_s, done.tokens_per_s, done.output_tokens) == (0.7, 19.5, 21)
