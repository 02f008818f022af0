"""Chats answer in the background: switching chats or pressing Ctrl+N never stops an
answer, and coming back shows everything streamed meanwhile, then the live rest."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from desktop.app import AppContext
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream
from tests.ui.window.test_main_window import add_provider, make_window

LONG = "".join(f"Paragraph {i}: the answer goes on and on.\n\n" for i in range(40))


def ask_long(qtbot: Any, window: Any, server: FakeOpenAIServer,
             hold_after: int = 20) -> tuple[ScriptedResponse, str]:
    """Ask for the long answer and wait until the server holds it part-way: the chat
    is answering. Returns the held response and the chat's id."""
    answer = ScriptedResponse(chunks=text_stream(LONG, 7), hold_after=hold_after)
    server.enqueue(answer)
    qtbot.keyClicks(window.composer.input, "Write something long")
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    qtbot.waitUntil(answer.holding.is_set, timeout=10000)
    chat = window.controller.session_id
    assert chat is not None
    return answer, chat


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
    long_answer, chat_a = ask_long(qtbot, window, fake_server)
    fake_server.enqueue(ScriptedResponse(chunks=text_stream("Short answer in chat B.")))
    assert controller.busy

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
    answer, chat_a = ask_long(qtbot, window, fake_server, hold_after=30)
    controller.new_session()
    turn = controller.service.running(chat_a)
    assert turn is not None
    qtbot.waitUntil(lambda: bool(turn.streamed_text()), timeout=5000)
    streamed = turn.streamed_text()

    controller.open_session(chat_a)  # back while it is still answering
    assert controller.busy and window.composer.send_button.text() == "Stop"
    assert window.chat._current is not None
    assert window.chat._current.plain_text().startswith(streamed)
    with qtbot.waitSignal(controller.bridge.runFinished, timeout=10000):
        answer.release()
    qtbot.waitUntil(lambda: not controller.busy, timeout=10000)
    assert _shown_text(window, chat_a) == LONG
    assert window.sessions.state_of(chat_a) == "idle"  # watched: not unread


def test_quitting_while_chats_answer_asks_first_and_keeps_what_streamed(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    controller = window.controller
    answer, chat = ask_long(qtbot, window, fake_server)
    turn = controller.service.running(chat)
    assert turn is not None
    qtbot.waitUntil(lambda: bool(turn.streamed_text()), timeout=5000)

    window.close()  # the chat is answering: the window asks and stays
    qtbot.waitUntil(lambda: window.quit_guard.box is not None and window.quit_guard.box.isVisible(),
                    timeout=5000)
    assert window.isVisible() and controller.busy
    box = window.quit_guard.box
    assert box is not None and "1 chat is still answering" in box.text()
    box.button(box.StandardButton.Cancel).click()
    qtbot.waitUntil(lambda: window.quit_guard.box is None, timeout=5000)
    assert window.isVisible() and controller.busy  # Cancel: nothing stopped

    window.close()
    qtbot.waitUntil(lambda: window.quit_guard.box is not None, timeout=5000)
    box = window.quit_guard.box
    quit_button = next(b for b in box.buttons() if b.text() == "Quit")
    quit_button.click()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=5000)
    qtbot.waitUntil(lambda: controller.service.running(chat) is None, timeout=10000)
    answer.release()
    stored = ctx.sessions.load_messages(chat)[-1]
    assert stored.status == "stopped" and stored.text and LONG.startswith(stored.text)


def test_an_approval_from_a_background_chat_names_it_and_leads_there(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    from tests.support.openai_server import tool_call_stream

    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    controller = window.controller
    fake_server.enqueue(ScriptedResponse(chunks=tool_call_stream(
        [("fetch_url", '{"url": "https://example.com/page"}')])))
    fake_server.enqueue(ScriptedResponse(chunks=text_stream("Could not look.")))
    qtbot.keyClicks(window.composer.input, "Look at my page")
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    chat = controller.session_id
    assert chat is not None
    told: list[tuple[str, str]] = []
    window.notifier.notify = lambda title, text, **_: bool(  # type: ignore[method-assign]
        told.append((title, text)))
    controller.new_session()  # the user moves on before the model asks
    qtbot.waitUntil(lambda: bool(window.sidebar.approval_cards), timeout=10000)
    card = next(iter(window.sidebar.approval_cards.values()))
    assert card.chat_button.text() == "Chat: Look at my page"
    qtbot.waitUntil(lambda: window.sessions.state_of(chat) == "approval", timeout=5000)
    assert told == [("Approval needed", "Look at my page: Fetch web page waits for your approval")]
    card.chat_button.click()
    assert controller.session_id == chat
    card.deny_button.click()
    qtbot.waitUntil(lambda: controller.service.running(chat) is None, timeout=10000)
    assert ctx.sessions.load_messages(chat)[-1].text == "Could not look."


def test_the_desktop_is_told_only_when_the_window_is_not_in_front(qtbot: Any) -> None:
    from PySide6.QtWidgets import QWidget

    from desktop.ui.window.notifier import DesktopNotifier

    window = QWidget()
    qtbot.addWidget(window)
    notifier = DesktopNotifier(window)
    assert not window.isActiveWindow()
    assert notifier.notify("Approval needed", "A chat: run_command waits")
    assert notifier.sent == [("Approval needed", "A chat: run_command waits")]
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    assert not notifier.notify("Approval needed", "again")
    assert len(notifier.sent) == 1


def test_an_answer_opens_no_window_of_its_own(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    """A widget made visible before it has a parent becomes a window of its own, which
    takes the focus (and so every shortcut) from the main window."""
    from PySide6.QtCore import QEvent, QObject

    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    shown: list[str] = []

    class Watch(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Show and isinstance(watched, QWidget) and \
                    watched.isWindow() and watched is not window and \
                    watched.windowType() not in (Qt.WindowType.Popup, Qt.WindowType.ToolTip):
                shown.append(type(watched).__name__)
            return False

    watch = Watch()
    app = QApplication.instance()
    assert app is not None
    app.installEventFilter(watch)
    try:
        fake_server.enqueue(ScriptedResponse(chunks=text_stream("An answer. " * 20)))
        with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
            qtbot.keyClicks(window.composer.input, "hello")
            qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    finally:
        app.removeEventFilter(watch)
    assert shown == []



def test_quit_from_the_menu_while_a_chat_answers_puts_the_question_in_front(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    """Quit (Ctrl+Q, the tray) brings the window forward and asks: the question is the
    window in front, not under the window it belongs to (without a window manager that
    keeps dialogs above their window, raising the window covered its question)."""
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    answer, chat = ask_long(qtbot, window, fake_server)
    turn = window.controller.service.running(chat)
    assert turn is not None
    qtbot.waitUntil(lambda: bool(turn.streamed_text()), timeout=5000)
    window.tray.quit_action.trigger()
    box = window.quit_guard.box
    assert box is not None
    qtbot.waitUntil(lambda: box.isVisible() and QApplication.activeWindow() is box,
                    timeout=5000)
    window.bring_to_front()  # (again: another start of the app asks for the window)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is box, timeout=5000)
    box.reject()
    answer.release()
    qtbot.waitUntil(lambda: window.controller.service.running(chat) is None, timeout=10000)
