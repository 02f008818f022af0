"""Token and cost figures as the top bar shows them."""

from __future__ import annotations

from collections.abc import Mapping

from desktop.core.messages import Message, Usage
from desktop.providers.pricing import Price, cost_of


def format_usage(usage: Usage) -> str:
    def k(n: int) -> str:
        return f"{n / 1000:.1f}k" if n >= 1000 else str(n)

    text = f"tokens {k(usage.input_tokens)} in · {k(usage.output_tokens)} out"
    if usage.reasoning_tokens:
        text += f" ({k(usage.reasoning_tokens)} thinking)"
    if usage.cost is not None:
        text += f" · ${usage.cost:.4f}" if usage.cost < 1 else f" · ${usage.cost:.2f}"
    return text


def session_usage(messages: list[Message], prices: Mapping[str, Price]) -> Usage:
    """Token totals of a conversation, with a cost where every priced answer has one."""
    total = Usage()
    cost: float | None = None
    for message in messages:
        if message.usage is None:
            continue
        total = total + message.usage.model_copy(update={"cost": None})
        one = cost_of(message.model, message.usage, prices)
        if one is not None:
            cost = (cost or 0.0) + one
    return total.model_copy(update={"cost": cost})


def usage_tooltip(total: Usage) -> str:
    return (f"This chat: {total.input_tokens} input tokens ({total.cached_tokens} cached), "
            f"{total.output_tokens} output tokens ({total.reasoning_tokens} thinking)"
            + (f", about ${total.cost:.4f}" if total.cost is not None else
               ", no price known for this model"))
