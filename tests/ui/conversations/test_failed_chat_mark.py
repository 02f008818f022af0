"""A chat whose answer failed keeps a ring in the chat list (README: "a ring when it
failed"), whether it failed on screen or in the background, until it answers again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor

from desktop.app import AppContext
from desktop.ui import theme
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window


def _send(qtbot: Any, window: MainWindow, text: str) -> None:
    window.composer.input.setFocus()
    qtbot.keyClicks(window.composer.input, text)
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)


def _ring_pixels(window: MainWindow, session_id: str) -> int:
    """Pixels in the error colour at the right end of the chat's row."""
    chat_list = window.sessions.list
    item = window.sessions.item_for(session_id)
    assert item is not None
    row = chat_list.visualItemRect(item)
    mark = QRect(row.right() - 30, row.top(), 30, row.height())
    image = chat_list.viewport().grab(mark).toImage()
    error = QColor(theme.colors()["error"])

    def near(color: QColor) -> bool:
        return (abs(color.red() - error.red()) + abs(color.green() - error.green())
                + abs(color.blue() - error.blue())) < 90
    return sum(near(image.pixelColor(x, y)) for x in range(image.width())
               for y in range(image.height()))


def test_a_failed_chat_keeps_its_ring_until_it_answers(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    window.resize(1200, 800)
    qtbot.waitUntil(lambda: window.ready, timeout=5000)
    fake_server.enqueue_error(400, "The model does not exist")
    _send(qtbot, window, "Hello?")
    failed = window.controller.session_id
    assert failed is not None
    # on screen when it failed: the list marks it all the same
    qtbot.waitUntil(lambda: window.sessions.state_of(failed) == "failed", timeout=5000)
    qtbot.waitUntil(lambda: _ring_pixels(window, failed) > 8, timeout=5000)
    item = window.sessions.item_for(failed)
    assert item is not None
    assert "failed" in str(item.data(Qt.ItemDataRole.AccessibleTextRole))
    # another chat, then back: still marked (looking at it does not mend it)
    window.controller.new_session()
    fake_server.enqueue_text("Fine, thanks.")
    _send(qtbot, window, "Another question")
    other = window.controller.session_id
    assert other is not None and other != failed
    assert window.sessions.state_of(failed) == "failed"
    assert window.sessions.state_of(other) == "idle"
    window.controller.open_session(failed)
    qtbot.waitUntil(lambda: window.controller.session_id == failed, timeout=5000)
    assert window.sessions.state_of(failed) == "failed"
    # it answers: the ring goes
    fake_server.enqueue_text("Hello!")
    _send(qtbot, window, "Try again")
    qtbot.waitUntil(lambda: window.sessions.state_of(failed) == "idle", timeout=5000)
    assert _ring_pixels(window, failed) == 0
