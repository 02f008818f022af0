"""An answer's header shows its tokens, time to first token, speed and cost (the user's
own model prices over the built-in table); the tooltip spells them out."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QVBoxLayout, QWidget

from desktop.core.messages import Message, TextPart, Usage
from desktop.core.pricing import Price
from desktop.ui.chat.chat_view import ChatView
from desktop.ui.window.bridge import AgentBridge


def answer(model: str) -> Message:
    return Message(role="assistant", model=model, parts=[TextPart(text="Hello.")],
                   usage=Usage(input_tokens=1200, output_tokens=340),
                   provider_data={"generation": {"first_token_s": 0.42, "tokens_per_s": 51.3,
                                                 "estimated": False}})


def header_of(qtbot: Any, message: Message, prices: dict[str, Price]) -> tuple[str, str]:
    host = QWidget()
    host.resize(1200, 500)
    view = ChatView(AgentBridge())
    view.prices = lambda: prices
    QVBoxLayout(host).addWidget(view)
    qtbot.addWidget(host)
    host.show()
    view.show_messages([Message.user("Hi"), message])
    widget = view.widget_for(message.id)
    assert widget is not None
    row = widget.header_row
    label = row.tokens_label
    # as much as fits beside the whole title and the actions, the rest elided ("…")
    assert label.text() == row.figures or (
        label.text().endswith("…") and row.figures.startswith(label.text()[:-1]))
    return row.figures, label.toolTip()


def test_the_header_has_first_token_speed_and_cost(qtbot: Any) -> None:
    text, tip = header_of(qtbot, answer("gpt-4o"), {})
    cost = (1200 * 2.50 + 340 * 10.0) / 1e6  # the built-in price of gpt-4o
    assert text == f"1.2k in · 340 out · 0.4 s · 51 tok/s · ${cost:.4f}"
    assert "First token after 0.42 s" in tip and "51.3 tokens per second" in tip
    assert f"Cost about ${cost:.6f}" in tip


def test_the_users_prices_win_and_an_unknown_model_has_no_cost(qtbot: Any) -> None:
    text, _tip = header_of(qtbot, answer("my-local-model"), {"my-local-model": Price(1.0, 1.0)})
    assert text.endswith(f"· ${1540 / 1e6:.4f}")
    text, tip = header_of(qtbot, answer("my-local-model"), {})
    assert text == "1.2k in · 340 out · 0.4 s · 51 tok/s"
    assert "No price known" in tip
