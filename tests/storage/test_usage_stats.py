"""Usage per model, read from a seeded database: answers (not tool rounds), tokens,
reported and unpriced tokens, median speed, and the period filter."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.app import AppContext
from desktop.chat.answer_figures import model_cost
from desktop.core.messages import Message, TextPart, ToolCallPart, ToolResultPart, Usage
from desktop.core.pricing import Price
from desktop.storage.usage_stats import usage_by_model

DAY = 86400.0


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[AppContext]:
    context = AppContext.open(tmp_path / "data", environ={}, log_to_stderr=False)
    yield context
    context.close()


def answer(model: str, tokens_in: int, tokens_out: int, *, rate: float | None = None,
           cost: float | None = None, age_days: float = 0.0,
           calls: bool = False) -> Message:
    data = {"generation": {"tokens_per_s": rate, "estimated": False}} if rate else {}
    parts: list[TextPart | ToolCallPart] = [TextPart(text="answer")]
    if calls:
        parts = [ToolCallPart(id=f"call-{time.monotonic_ns()}", name="read_file")]
    return Message(role="assistant", model=model, parts=list(parts), provider_data=data,
                   usage=Usage(input_tokens=tokens_in, output_tokens=tokens_out, cost=cost),
                   created_at=time.time() - age_days * DAY)


def seed(ctx: AppContext) -> None:
    """Chat 1: a question answered by model-a in two rounds (a tool call between), and
    again by model-b as a sibling; chat 2: two model-a answers, one of them 40 days old,
    one with a cost the provider reported."""
    store = ctx.sessions
    one = store.create_session("one").id
    question = Message.user("Q1")
    store.save_message(one, question)
    first = answer("model-a", 100, 10, rate=50.0, calls=True)
    store.save_message(one, first)
    call = first.tool_calls[0]
    store.save_message(one, Message(role="tool", parts=[ToolResultPart(
        tool_call_id=call.id, name=call.name, content="ok")]))
    store.save_message(one, answer("model-a", 150, 20, rate=30.0))
    store.add_message(one, answer("model-b", 100, 40, rate=80.0), question.id)
    two = store.create_session("two").id
    store.save_message(two, Message.user("Q2"))
    store.save_message(two, answer("model-a", 200, 30, rate=40.0, cost=0.5))
    store.save_message(two, Message.user("Q3"))
    store.save_message(two, answer("model-a", 1000, 100, age_days=40))


def test_usage_per_model_over_everything(ctx: AppContext) -> None:
    seed(ctx)
    rows = {r.model: r for r in usage_by_model(ctx.db)}
    assert set(rows) == {"model-a", "model-b"}
    a, b = rows["model-a"], rows["model-b"]
    assert (a.answers, a.responses) == (3, 4)  # the tool round is not an answer
    assert (a.input_tokens, a.output_tokens) == (1450, 160)
    assert a.reported_cost == pytest.approx(0.5)
    assert (a.unpriced_input, a.unpriced_output) == (1250, 130)
    assert a.median_tokens_per_s == pytest.approx(40.0)  # of 50, 30, 40
    assert (b.answers, b.input_tokens, b.output_tokens) == (1, 100, 40)
    assert b.median_tokens_per_s == pytest.approx(80.0)
    assert [r.model for r in usage_by_model(ctx.db)] == ["model-a", "model-b"]


def test_the_period_leaves_older_answers_out(ctx: AppContext) -> None:
    seed(ctx)
    rows = {r.model: r for r in usage_by_model(ctx.db, time.time() - 30 * DAY)}
    assert (rows["model-a"].answers, rows["model-a"].input_tokens) == (2, 450)


def test_costs_add_reported_and_priced_tokens(ctx: AppContext) -> None:
    seed(ctx)
    rows = {r.model: r for r in usage_by_model(ctx.db)}
    prices = {"model-a": Price(1.0, 2.0)}
    cost, complete = model_cost(rows["model-a"], prices)
    assert complete and cost == pytest.approx(0.5 + (1250 * 1.0 + 130 * 2.0) / 1e6)
    assert model_cost(rows["model-b"], prices) == (None, False)  # no price known
    cost, complete = model_cost(rows["model-a"], {})
    assert (cost, complete) == (0.5, False)  # what was reported, not all of it


def test_a_model_without_tokens_or_price_has_no_cost_not_a_free_one(ctx: AppContext) -> None:
    session = ctx.sessions.create_session("x").id
    ctx.sessions.save_message(session, Message.user("Q"))
    ctx.sessions.save_message(session, Message(role="assistant", model="local-model",
                                               status="stopped"))
    (row,) = usage_by_model(ctx.db)
    assert (row.answers, row.input_tokens, row.median_tokens_per_s) == (1, 0, None)
    assert model_cost(row, {}) == (None, True)
    assert model_cost(row, {"local-model": Price(1.0, 1.0)}) == (0.0, True)
