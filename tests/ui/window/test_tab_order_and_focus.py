"""Keyboard focus in the main window: Tab goes in reading order (chat list, messages,
composer, Tool activity), focus goes back where it was when a dialog closes, and the
New chat button shows a focus ring that can be seen in both themes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QToolButton, QWidget

from desktop.app import AppContext
from desktop.ui import theme
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_chat, make_window


@pytest.fixture(autouse=True)
def _restore_theme(qapp: QApplication) -> Iterator[None]:
    mode = theme.mode()
    yield
    theme.apply_theme(qapp, mode)


def _window(qtbot: Any, ctx: AppContext, server: FakeOpenAIServer) -> MainWindow:
    add_provider(ctx, server)
    session = make_chat(ctx, "Trip to Kyoto", "Where should I stay?", "Near Gion.")
    window = make_window(qtbot, ctx)
    window.resize(1300, 850)
    qtbot.waitUntil(lambda: window.ready, timeout=5000)
    window.controller.open_session(session)
    qtbot.waitUntil(lambda: len(_message_actions(window)) >= 2, timeout=5000)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    return window


def _message_actions(window: MainWindow) -> list[QToolButton]:
    return [b for b in window.chat.findChildren(QToolButton, "messageAction")
            if b.isVisibleTo(window)]


def _tab_round(qtbot: Any, window: MainWindow, start: QWidget) -> list[QWidget]:
    start.setFocus()
    qtbot.waitUntil(start.hasFocus)
    seen: list[QWidget] = [start]
    for _ in range(200):
        focused = QApplication.focusWidget()
        assert focused is not None
        qtbot.keyClick(focused, Qt.Key.Key_Tab)
        now = QApplication.focusWidget()
        assert now is not None and now.window() is window
        if now is start:
            return seen
        seen.append(now)
    raise AssertionError("Tab never came back to where it started")


def test_tab_goes_in_reading_order(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    fake_server: FakeOpenAIServer,
) -> None:
    window = _window(qtbot, open_ctx(), fake_server)
    sessions, composer = window.sessions, window.composer
    # (Tool activity starts closed: opened, it comes after the composer)
    qtbot.mouseClick(window.top_bar.sidebar_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(window.sidebar.isVisible)
    order = _tab_round(qtbot, window, sessions.search_button)

    def at(widget: QWidget) -> int:
        return order.index(widget)

    # (as in any exclusive group, only the chosen view is a stop; arrows move in it)
    switcher = [sessions.view_buttons["chats"]]
    actions = _message_actions(window)
    assert at(sessions.search_button) < at(sessions.list) < min(map(at, switcher))
    assert max(map(at, switcher)) < at(window.chat) < min(map(at, actions))
    assert max(map(at, actions)) < at(composer.input) < at(composer.attach_button)
    assert at(composer.attach_button) < at(composer.compare_button)
    sidebar = [w for w in order if window.sidebar.isAncestorOf(w)]
    assert sidebar and at(composer.compare_button) < min(map(at, sidebar))
    # the messages' buttons message by message, top to bottom, as laid out in each
    by_order = sorted(actions, key=at)
    tops = [b.parentWidget().mapTo(window.chat, QPoint(0, 0)).y() for b in by_order]
    assert tops == sorted(tops)
    lefts = [b.mapTo(window.chat, QPoint(0, 0)).x() for b in by_order[:3]]
    assert lefts == sorted(lefts)  # Copy, More actions, Edit: left to right
    # Shift+Tab goes back the same way
    composer.input.setFocus()
    qtbot.keyClick(composer.input, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert QApplication.focusWidget() is order[at(composer.input) - 1]


def test_focus_goes_back_where_it_was_when_a_dialog_closes(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    fake_server: FakeOpenAIServer,
) -> None:
    window = _window(qtbot, open_ctx(), fake_server)
    for kind in ("preferences", "about", "providers"):
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
        window.composer.input.setFocus()
        qtbot.waitUntil(window.composer.input.hasFocus)
        dialog = window.dialogs.open(kind)
        qtbot.waitUntil(dialog.isVisible)
        # While it is open the window's focus moves on (a message's buttons are made
        # and destroyed as the chat scrolls; a window manager may move it as well).
        _message_actions(window)[0].setFocus()
        assert window.focusWidget() is not window.composer.input
        dialog.reject()
        qtbot.waitUntil(lambda: window.focusWidget() is window.composer.input)


def _contrast(a: QColor, b: QColor) -> float:
    def lum(c: QColor) -> float:
        def channel(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + \
            0.0722 * channel(c.blueF())
    high, low = sorted((lum(a), lum(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_new_chat_shows_a_visible_focus_ring(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    fake_server: FakeOpenAIServer, mode: str,
) -> None:
    window = _window(qtbot, open_ctx(), fake_server)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply_theme(app, mode)
    button = window.sessions.new_button
    button.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(button.hasFocus)
    image = button.grab().toImage()
    middle = image.height() // 2
    fill = image.pixelColor(image.width() // 2, 3)  # inside, above the text
    ring = image.pixelColor(1, middle)  # on the left edge
    # WCAG 2.2 (non-text contrast): 3:1 between the ring and what is next to it
    assert _contrast(ring, fill) >= 3.0, (mode, ring.name(), fill.name())
    around = QColor(theme.colors()["sidebar"])
    assert _contrast(ring, around) >= 3.0, (mode, ring.name(), around.name())
