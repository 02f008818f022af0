"""Token and cost figures as the top bar and the message headers show them."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from PySide6.QtCore import QCoreApplication

from desktop.chat.answer_figures import figures_of
from desktop.core.messages import Message, Usage
from desktop.core.pricing import Price, cost_of
from desktop.ui import locale_format

_k = locale_format.compact_count
#: Where a view gets the user's model prices from (they change in Settings).
PriceSource = Callable[[], Mapping[str, Price]]


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


def answer_figures(messages: list[Message],
                   prices: Mapping[str, Price] | None = None) -> tuple[str, str]:
    """The header text and tooltip of an answer (its messages of one turn): tokens,
    time to the first token, tokens per second and cost (``prices``: the user's own,
    over the built-in table)."""
    figures = figures_of(messages, prices)
    total = Usage(input_tokens=figures.input_tokens, output_tokens=figures.output_tokens,
                  reasoning_tokens=figures.reasoning_tokens)
    text = usage_text(total, figures.estimated)
    if text and figures.first_token_s is not None:
        text += QCoreApplication.translate("UsageText", " · {seconds} s").format(
            seconds=locale_format.decimal(figures.first_token_s, 1))
    if text and figures.tokens_per_s is not None:
        text += QCoreApplication.translate("UsageText", " · {rate} tok/s").format(
            rate=locale_format.decimal(figures.tokens_per_s, 0))
    if text and figures.cost is not None:
        text += " · " + locale_format.cost(figures.cost, 4 if figures.cost < 1 else 2)
    tip = [QCoreApplication.translate("UsageText",
                                      "Tokens for this answer: prompt in, generated out")]
    if figures.estimated:
        tip.append(QCoreApplication.translate(
            "UsageText", "≈: estimated from the text (the provider sent no counts: the answer "
            "was stopped or failed)"))
    if figures.first_token_s is not None:
        tip.append(QCoreApplication.translate("UsageText", "First token after {seconds} s").format(
            seconds=locale_format.decimal(figures.first_token_s, 2)))
    if figures.tokens_per_s is not None:
        tip.append(QCoreApplication.translate("UsageText", "{rate} tokens per second").format(
            rate=locale_format.decimal(figures.tokens_per_s, 1)))
    if figures.cost is not None:
        tip.append(QCoreApplication.translate(
            "UsageText", "Cost about {cost} (reported by the provider, else from the model "
            "prices)").format(cost=locale_format.cost(figures.cost, 6)))
    elif text:
        tip.append(QCoreApplication.translate(
            "UsageText", "No price known for this model (Settings → Model prices)"))
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
