"""The chat column's scroll bar is opaque (Qt then repaints only the bar, not the chat
pane, splitter and window under it, when a streamed answer changes its range) and
looks as before: its track shows the column's background, in either theme."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

from desktop.core.messages import Message, TextPart
from desktop.ui import theme
from desktop.ui.chat.chat_view import ChatView
from desktop.ui.chat.column_scroll_bar import ColumnScrollBar
from desktop.ui.window.bridge import AgentBridge


@pytest.fixture
def view(qtbot: Any) -> Iterator[ChatView]:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply_theme(app, "light")  # as the app does at start (a transparent track)
    host = QWidget()
    host.resize(700, 400)
    chat = ChatView(AgentBridge())
    QVBoxLayout(host).addWidget(chat)
    qtbot.addWidget(host)
    host.show()
    qtbot.waitExposed(host)
    long = "\n\n".join(f"Paragraph {n} of a long answer." for n in range(80))
    chat.show_messages([Message.user("question"),
                        Message(role="assistant", parts=[TextPart(text=long)])])
    qtbot.waitUntil(lambda: chat.verticalScrollBar().maximum() > 0)
    yield chat


def track_color(bar: ColumnScrollBar) -> QColor:
    """A pixel of the track, away from the handle (the view is scrolled to the end,
    so the handle is at the bottom)."""
    image = bar.grab().toImage()
    return image.pixelColor(bar.width() // 2, 2)


def test_the_bar_is_opaque_and_its_track_is_the_column_background(view: ChatView) -> None:
    bar = view.verticalScrollBar()
    assert isinstance(bar, ColumnScrollBar)
    assert bar.testAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
    assert bar.value() == bar.maximum() > 0  # following the end: the top is track
    assert track_color(bar).name() == QColor(theme.colors()["window"]).name()


def test_the_bar_stays_opaque_and_follows_a_theme_change(view: ChatView) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    bar = view.verticalScrollBar()
    assert isinstance(bar, ColumnScrollBar)
    light = track_color(bar).name()
    try:
        theme.apply_theme(app, "dark")
        QApplication.processEvents()
        # (the style sheet's polish turns the attribute off on scroll bars; it is set again)
        assert bar.testAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        dark = track_color(bar).name()
        assert dark == QColor(theme.colors()["window"]).name() != light
    finally:
        theme.apply_theme(app, "light")
