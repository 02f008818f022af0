"""Opening one chat after another does not keep the previous chats' widgets.

The chat freezes what is alive out of Python's cyclic garbage collector after showing a
history (``gc.freeze``, so full collections do not stall scrolling). A message widget
that is part of a reference cycle when it is released would then never be freed, and
memory would grow with every chat opened (issue 13). So released widgets must be freed
by reference counting alone: these tests run with the cyclic collector off.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

from desktop.core.messages import Message, TextPart
from desktop.ui.chat.chat_view import ChatView
from desktop.ui.window.bridge import AgentBridge

ANSWER = "Some **bold** text, a [link](https://example.com) and code:\n\n```python\nx = 1\n```\n"


@pytest.fixture
def view(qtbot: Any) -> Iterator[ChatView]:
    host = QWidget()
    host.resize(900, 600)
    chat = ChatView(AgentBridge())
    QVBoxLayout(host).addWidget(chat)
    qtbot.addWidget(host)
    host.show()
    qtbot.waitExposed(host)
    yield chat


@pytest.fixture
def no_cycle_collector() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def history(name: str, turns: int = 20) -> list[Message]:
    messages = []
    for n in range(turns):
        messages.append(Message.user(f"{name}: question {n}"))
        messages.append(Message(role="assistant", model="m",
                                parts=[TextPart(text=f"{name} {n}. {ANSWER}")]))
    return messages


def live_objects(view: ChatView) -> list[weakref.ref[Any]]:
    widgets = [item.widget for item in view._items if item.widget is not None]
    refs: list[weakref.ref[Any]] = []
    for widget in widgets:
        refs.append(weakref.ref(widget))
        refs.append(weakref.ref(widget.header_row))
        refs.extend(weakref.ref(body) for body in widget.views())
    return refs


def run_deferred_deletes() -> None:
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def test_opening_another_chat_frees_the_widgets_of_the_last(
        view: ChatView, no_cycle_collector: None) -> None:
    view.show_messages(history("first"))
    refs = live_objects(view)
    assert len(refs) >= 8  # several messages were on screen
    view.show_messages(history("second"))
    run_deferred_deletes()
    alive = [type(ref()).__name__ for ref in refs if ref() is not None]
    assert alive == []
    assert view.widget_for(view._items[-1].messages[0].id) is not None  # the new chat shows


def test_widgets_scrolled_far_away_are_freed(view: ChatView, no_cycle_collector: None) -> None:
    view.show_messages(history("long", turns=150))
    refs = live_objects(view)
    assert refs
    view.verticalScrollBar().setValue(0)  # the last blocks are far away: destroyed
    run_deferred_deletes()
    assert [ref() for ref in refs if ref() is not None] == []
    assert view._items[0].widget is not None
