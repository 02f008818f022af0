"""Token and cost figures as the top bar and the message headers show them."""

from __future__ import annotations

from collections.abc import Mapping

from desktop.chat.generation_stats import GenerationStats
from desktop.core.messages import Message, Usage
from desktop.providers.pricing import Price, cost_of


def _k(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def usage_text(usage: Usage | None, estimated: bool = False) -> str:
    """"1.2k in · 340 out" for a message header ("≈" when estimated)."""
    if usage is None or (usage.input_tokens == 0 and usage.output_tokens == 0):
        return ""
    about = "≈" if estimated else ""
    text = f"{about}{_k(usage.input_tokens)} in · {about}{_k(usage.output_tokens)} out"
    if usage.reasoning_tokens:
        text += f" ({_k(usage.reasoning_tokens)} reasoning)"
    return text


def answer_figures(messages: list[Message]) -> tuple[str, str]:
    """The header text and tooltip of an answer (its messages of one turn): tokens,
    tokens per second; the tooltip adds the time to the first token."""
    total: Usage | None = None
    estimated = False
    stats = [s for s in (GenerationStats.of(m) for m in messages) if s is not None]
    for message in messages:
        if message.usage is not None:
            total = message.usage if total is None else total + message.usage
    estimated = any(s.estimated for s in stats)
    text = usage_text(total, estimated)
    rates = [s.tokens_per_s for s in stats if s.tokens_per_s is not None]
    if rates and text:
        text += f" · {rates[-1]:.0f} tok/s"
    tip = ["Tokens for this answer: prompt in, generated out"]
    if estimated:
        tip.append("≈: estimated from the text (the provider sent no counts: the answer "
                   "was stopped or failed)")
    first = next((s.first_token_s for s in stats if s.first_token_s is not None), None)
    if first is not None:
        tip.append(f"First token after {first:.2f} s")
    if rates:
        tip.append(f"{rates[-1]:.1f} tokens per second")
    return text, "\n".join(tip)


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
