"""Token prices per model, to show a cost where the provider does not report one.

Prices are US dollars per million tokens. The built-in table covers common models
and can be wrong or stale: the user's own entries (settings) always win. A model
with no known price has no cost (``None``), never a guessed one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import msgspec

from desktop.core.messages import Usage


class Price(msgspec.Struct, frozen=True):
    """A model's price in US dollars per million tokens."""

    input: float  # per 1M input tokens
    output: float  # per 1M output tokens (reasoning tokens are billed as output)
    cached_input: float | None = None  # per 1M cached input tokens, when discounted

    def cost(self, usage: Usage) -> float:
        cached = min(usage.cached_tokens, usage.input_tokens)
        cached_rate = self.cached_input if self.cached_input is not None else self.input
        fresh = usage.input_tokens - cached
        return (fresh * self.input + cached * cached_rate
                + usage.output_tokens * self.output) / 1_000_000


# Lower-cased model id patterns, most specific first.
BUILTIN_PRICES: list[tuple[str, Price]] = [
    (r"gpt-4o-mini", Price(0.15, 0.60, 0.075)),
    (r"gpt-4o", Price(2.50, 10.00, 1.25)),
    (r"gpt-4\.1-nano", Price(0.10, 0.40, 0.025)),
    (r"gpt-4\.1-mini", Price(0.40, 1.60, 0.10)),
    (r"gpt-4\.1", Price(2.00, 8.00, 0.50)),
    (r"gpt-5-nano", Price(0.05, 0.40, 0.005)),
    (r"gpt-5-mini", Price(0.25, 2.00, 0.025)),
    (r"gpt-5", Price(1.25, 10.00, 0.125)),
    (r"o4-mini", Price(1.10, 4.40, 0.275)),
    (r"o3-mini", Price(1.10, 4.40, 0.55)),
    (r"(^|/)o3", Price(2.00, 8.00, 0.50)),
    (r"claude-(opus-4|4-opus)", Price(15.00, 75.00, 1.50)),
    (r"claude-(sonnet-4|4-sonnet|3-7-sonnet|3-5-sonnet)", Price(3.00, 15.00, 0.30)),
    (r"claude-(haiku-4|3-5-haiku)", Price(1.00, 5.00, 0.10)),
    (r"gemini-2\.5-pro", Price(1.25, 10.00, 0.31)),
    (r"gemini-2\.5-flash-lite", Price(0.10, 0.40, 0.025)),
    (r"gemini-2\.5-flash", Price(0.30, 2.50, 0.075)),
    (r"gemini-2\.0-flash", Price(0.10, 0.40, 0.025)),
    (r"deepseek-(chat|v3)", Price(0.27, 1.10, 0.07)),
    (r"deepseek-(reasoner|r1)", Price(0.55, 2.19, 0.14)),
]
_COMPILED = [(re.compile(p), price) for p, price in BUILTIN_PRICES]


def price_for(model: str, overrides: Mapping[str, Price] | None = None) -> Price | None:
    """The user's price for ``model`` (exact id), else the first built-in match."""
    if overrides and model in overrides:
        return overrides[model]
    name = model.lower()
    for pattern, price in _COMPILED:
        if pattern.search(name):
            return price
    return None


def cost_of(model: str | None, usage: Usage,
            overrides: Mapping[str, Price] | None = None) -> float | None:
    """The provider's reported cost, else one computed from the price table."""
    if usage.cost is not None:
        return usage.cost
    if not model:
        return None
    price = price_for(model, overrides)
    return price.cost(usage) if price is not None else None
