"""Chats answer in the background: switching chats or pressing Ctrl+N never stops an
answer, and coming back shows everything streamed meanwhile, then the live rest."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop.app import AppContext
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream
from tests.ui.window.test_main_window import add_provider, make_window

LONG = "".join(f"Paragraph {i}: the answer goes on and on.\n\n" for i in range(40))


def _shown_text(window: Any, session_id: str) -> str:
    """The text of the chat's last assistant message as the chat view shows it."""
    messages = window.controller.history
    last = next(m for m in reversed(messages) if m.role == "assistant")
    widget = window.chat.widget_for(last.id)
    assert widget is not None
    return str(widget.plain_text())


def test_a_long_answer_keeps_streaming_through_ctrl_n_and_another_question(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    controller = window.controller
    long_answer = ScriptedResponse(chunks=text_stream(LONG, 7), hold_after=20)
    fake_server.enqueue(long_answer)
    fake_server.enqueue(ScriptedResponse(chunks=text_stream("Short answer in chat B.")))

    qtbot.keyClicks(window.composer.input, "Write something long")
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    qtbot.waitUntil(long_answer.holding.is_set, timeout=10000)
    chat_a = controller.session_id
    assert chat_a is not None and controller.busy

    # Ctrl+N with the focus in the message box, as a user presses it
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    window.composer.input.setFocus()
    qtbot.keyClick(window.composer.input, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: controller.session_id is None, timeout=5000)
    assert not controller.busy and window.composer.send_button.text() == "Send"
    assert controller.service.running(chat_a) is not None  # A goes on
    qtbot.waitUntil(lambda: window.sessions.state_of(chat_a) == "answering", timeout=5000)

    with qtbot.waitSignal(controller.bridge.runFinished, timeout=10000):
        qtbot.keyClicks(window.composer.input, "Ask in chat B")
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    chat_b = controller.session_id
    assert chat_b not in (None, chat_a)
    qtbot.waitUntil(lambda: not controller.busy, timeout=10000)
    assert _shown_text(window, chat_b) == "Short answer in chat B."

    long_answer.release()  # A finishes while B is on screen
    qtbot.waitUntil(lambda: controller.service.running(chat_a) is None, timeout=10000)
    qtbot.waitUntil(lambda: window.sessions.state_of(chat_a) == "unread", timeout=5000)

    for session_id, text in ((chat_a, LONG), (chat_b, "Short answer in chat B.")):
        stored = ctx.sessions.load_messages(session_id)[-1]
        assert stored.status == "complete" and stored.text == text

    controller.open_session(chat_a)
    qtbot.waitUntil(lambda: window.sessions.state_of(chat_a) == "idle", timeout=5000)
    assert _shown_text(window, chat_a) == LONG


def test_returning_to_a_chat_mid_answer_shows_what_streamed_then_follows_live(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    controller = window.controller
    answer = ScriptedResponse(chunks=text_stream(LONG, 7), hold_after=30)
    fake_server.enqueue(answer)
    qtbot.keyClicks(window.composer.input, "Write something long")
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    qtbot.waitUntil(answer.holding.is_set, timeout=10000)
    chat_a = controller.session_id
    assert chat_a is not None
    controller.new_session()
    streamed = "".join(e.text for e in controller.service.running(chat_a)._log
                       if type(e).__name__ == "TextDelta")
    qtbot.waitUntil(lambda: bool(streamed), timeout=5000)

    controller.open_session(chat_a)  # back while it is still answering
    assert controller.busy and window.composer.send_button.text() == "Stop"
    assert window.chat._current is not None
    assert window.chat._current.plain_text().startswith(streamed)
    with qtbot.waitSignal(controller.bridge.runFinished, timeout=10000):
        answer.release()
    qtbot.waitUntil(lambda: not controller.busy, timeout=10000)
    assert _shown_text(window, chat_a) == LONG
    assert window.sessions.state_of(chat_a) == "idle"  # watched: not unread
