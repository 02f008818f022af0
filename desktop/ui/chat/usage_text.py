"""Token and cost figures as the top bar and the message headers show them."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QCoreApplication

from desktop.chat.generation_stats import GenerationStats
from desktop.core.messages import Message, Usage
from desktop.providers.pricing import Price, cost_of
from desktop.ui import locale_format

_k = locale_format.compact_count


def usage_text(usage: Usage | None, estimated: bool = False) -> str:
    """"1.2k in · 340 out" for a message header ("≈" when estimated)."""
    if usage is None or (usage.input_tokens == 0 and usage.output_tokens == 0):
        return ""
    about = "≈" if estimated else ""
    text = QCoreApplication.translate("UsageText", "{input} in · {output} out").format(
        input=about + _k(usage.input_tokens), output=about + _k(usage.output_tokens))
    if usage.reasoning_tokens:
        text += QCoreApplication.translate("UsageText", " ({count} reasoning)").format(
            count=_k(usage.reasoning_tokens))
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
        text += QCoreApplication.translate("UsageText", " · {rate} tok/s").format(
            rate=locale_format.decimal(rates[-1], 0))
    tip = [QCoreApplication.translate("UsageText",
                                      "Tokens for this answer: prompt in, generated out")]
    if estimated:
        tip.append(QCoreApplication.translate(
            "UsageText", "≈: estimated from the text (the provider sent no counts: the answer "
            "was stopped or failed)"))
    first = next((s.first_token_s for s in stats if s.first_token_s is not None), None)
    if first is not None:
        tip.append(QCoreApplication.translate("UsageText", "First token after {seconds} s").format(
            seconds=locale_format.decimal(first, 2)))
    if rates:
        tip.append(QCoreApplication.translate("UsageText", "{rate} tokens per second").format(
            rate=locale_format.decimal(rates[-1], 1)))
    return text, "\n".join(tip)


def format_usage(usage: Usage) -> str:
    text = QCoreApplication.translate("UsageText", "tokens {input} in · {output} out").format(
        input=_k(usage.input_tokens), output=_k(usage.output_tokens))
    if usage.reasoning_tokens:
        text += QCoreApplication.translate("UsageText", " ({count} thinking)").format(
            count=_k(usage.reasoning_tokens))
    if usage.cost is not None:
        text += " · " + locale_format.cost(usage.cost, 4 if usage.cost < 1 else 2)
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
    n = locale_format.integer
    text = QCoreApplication.translate(
        "UsageText", "This chat: {input} input tokens ({cached} cached), "
        "{output} output tokens ({thinking} thinking)").format(
        input=n(total.input_tokens), cached=n(total.cached_tokens),
        output=n(total.output_tokens), thinking=n(total.reasoning_tokens))
    if total.cost is not None:
        return text + QCoreApplication.translate("UsageText", ", about {cost}").format(
            cost=locale_format.cost(total.cost, 4))
    return text + QCoreApplication.translate("UsageText", ", no price known for this model")
