from __future__ import annotations

import pytest

from desktop.core.messages import Usage
from desktop.core.pricing import Price, cost_of, price_for
from desktop.core.provider import ModelCapabilities
from desktop.providers.capabilities import known_capabilities, resolve_capabilities


@pytest.mark.parametrize(
    ("model", "tools", "vision", "reasoning"),
    [
        ("gpt-4o-mini", True, True, False),
        ("o3-mini", True, True, True),
        ("o1-mini", False, False, True),
        ("claude-sonnet-4-5", True, True, True),
        ("claude-3-5-haiku-latest", True, True, False),
        ("gemini-2.5-flash", True, True, True),
        ("openai/gpt-4.1", True, True, False),
        ("llava:13b", True, True, False),
        ("deepseek-r1:8b", True, False, True),
        ("some-unknown-model", True, False, False),
    ],
)
def test_known_models(model: str, tools: bool, vision: bool, reasoning: bool) -> None:
    caps = resolve_capabilities(model)
    assert (caps.tools, caps.vision, caps.reasoning) == (tools, vision, reasoning)


def test_reported_and_overrides_win_in_order() -> None:
    reported = ModelCapabilities(vision=True, context_window=8192)
    caps = resolve_capabilities("my-local-model", reported)
    assert caps.vision and caps.context_window == 8192
    overrides = {"tools": False, "models": {"my-local-model": {"vision": False}}}
    caps = resolve_capabilities("my-local-model", reported, overrides)
    assert caps.tools is False and caps.vision is False
    assert caps.context_window == 8192


def test_known_table_gives_limits() -> None:
    caps = known_capabilities("gpt-4.1-mini")
    assert caps is not None and caps.context_window == 1047576


def test_cost_prefers_reported_then_table_then_none() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    assert cost_of("gpt-4o", usage) == pytest.approx(12.5)
    assert cost_of("gpt-4o", usage.model_copy(update={"cost": 0.5})) == 0.5
    assert cost_of("unknown-model", usage) is None
    assert cost_of(None, usage) is None


def test_cached_tokens_discounted_and_overrides() -> None:
    usage = Usage(input_tokens=1_000_000, cached_tokens=400_000, output_tokens=0)
    assert cost_of("gpt-4o", usage) == pytest.approx(0.6 * 2.5 + 0.4 * 1.25)
    mine = {"gpt-4o": Price(1.0, 1.0)}
    assert price_for("gpt-4o", mine) == Price(1.0, 1.0)
    assert cost_of("gpt-4o", usage, mine) == pytest.approx(1.0)
