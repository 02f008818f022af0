"""A question typed (Enter) while the window loads is sent as soon as the chat service
exists, before the rest of the window is built; the window then shows it with its
answer so far and live from there. Nothing is lost when it cannot be sent early."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop.app import AppContext
from desktop.ui.window.controller import ChatController
from desktop.ui.window.early_question import EarlyQuestion, reopen_last_chat
from desktop.ui.window.startup_skeleton import EarlyMessageBox, StartupSkeleton
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse
from tests.ui.conversation_helpers import add_provider
from tests.ui.window.test_early_typing import last_chat_with_draft, skeleton_window


def ask_in_skeleton(qtbot: Any, skeleton: StartupSkeleton, text: str) -> EarlyMessageBox:
    """Type ``text`` in the skeleton's message box and press Enter."""
    box = skeleton.message_box
    assert box is not None
    qtbot.keyClicks(box, text)
    qtbot.keyClick(box, Qt.Key.Key_Return)
    return box


def test_a_question_typed_while_loading_is_sent_before_the_window_is_built(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    last = last_chat_with_draft(ctx, fake_server)
    held = ScriptedResponse.sse([{"choices": [{"index": 0, "delta": {"content": "Ans"}}]},
                                 {"choices": [{"index": 0, "delta": {"content": "wered."},
                                               "finish_reason": "stop"}]}], hold_after=1)
    fake_server.enqueue(held)
    window, skeleton = skeleton_window(qtbot, ctx)
    box = ask_in_skeleton(qtbot, skeleton, "sent while loading")
    controller = ChatController(ctx)
    early = EarlyQuestion(window, controller)
    early.start()
    # the request goes out with the window still a skeleton (nothing attached yet)
    qtbot.waitUntil(lambda: len(fake_server.chat_requests) == 1, timeout=10000)
    assert not window.ready and window.centralWidget() is skeleton
    assert early.sent == 1 and controller.session_id == last
    assert box.toPlainText() == "" and not box.isReadOnly()  # ready for more typing
    assert window.statusBar().currentMessage() == "Question sent. Opening the chat…"
    qtbot.waitUntil(held.holding.is_set, timeout=10000)  # "Ans" streamed, the rest held
    turn = controller.service.running(last)
    assert turn is not None
    qtbot.waitUntil(lambda: turn.streamed_text() == "Ans", timeout=10000)  # (arrived)
    window.attach(controller)
    reopen_last_chat(window)
    assert window.controller.session_id == last
    assert window.composer.input.toPlainText() == "kept for later"  # the chat's draft
    # the answer so far is shown, and goes on live
    assert controller.busy and window.composer.send_button.text() == "Stop"
    current = window.chat._current
    assert current is not None and current.plain_text() == "Ans"
    held.release()
    qtbot.waitUntil(lambda: not controller.busy, timeout=10000)
    assert len(fake_server.chat_requests) == 1  # sent once, not again once built
    sent = fake_server.chat_requests[0].json["messages"][-1]
    assert sent["role"] == "user" and "sent while loading" in str(sent["content"])
    texts = [m.text for m in ctx.sessions.load_messages(last)]
    assert texts[-2:] == ["sent while loading", "Answered."]
    question, answer = controller.history[-2:]
    for message, text in ((question, "sent while loading"), (answer, "Answered.")):
        widget = window.chat.widget_for(message.id)
        assert widget is not None and widget.plain_text() == text


def test_enter_in_the_skeleton_once_a_turn_can_run_sends_at_once(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    fake_server.enqueue_text("First answer.")
    window, skeleton = skeleton_window(qtbot, ctx)
    controller = ChatController(ctx)
    EarlyQuestion(window, controller).start()  # nothing typed yet: nothing sent
    assert fake_server.chat_requests == []
    ask_in_skeleton(qtbot, skeleton, "a new chat's question")
    qtbot.waitUntil(lambda: len(fake_server.chat_requests) == 1, timeout=10000)
    qtbot.waitUntil(lambda: not controller.busy, timeout=10000)
    new_chat = controller.session_id
    assert new_chat is not None and skeleton.chosen_chat == new_chat
    window.attach(controller)
    reopen_last_chat(window)
    assert window.controller.session_id == new_chat  # the window shows where it was sent
    assert window.composer.input.toPlainText() == ""
    assert [m.text for m in ctx.sessions.load_messages(new_chat)] == [
        "a new chat's question", "First answer."]
    assert len(fake_server.chat_requests) == 1


def test_a_question_that_cannot_be_sent_early_is_handed_to_the_composer(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    """No provider yet: the early send fails, the text is not lost; the built window
    tries again (and says a provider is missing)."""
    ctx = open_ctx()
    window, skeleton = skeleton_window(qtbot, ctx)
    box = ask_in_skeleton(qtbot, skeleton, "no provider yet")
    controller = ChatController(ctx)
    early = EarlyQuestion(window, controller)
    early.start()
    assert early.sent == 0
    assert box.toPlainText() == "no provider yet" and box.send_requested
    missing: list[bool] = []
    controller.providerMissing.connect(lambda: missing.append(True))
    window.attach(controller)
    reopen_last_chat(window)
    assert missing  # the built window tried to send it, and said why it could not
    assert "no provider yet" in window.composer.input.toPlainText()


@pytest.mark.parametrize("pause", ["build_helpers", "connect", "list_chats",
                                   "build_guides", "fill"])
def test_enter_in_the_composer_while_the_window_is_built_sends_in_the_reopened_chat(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], pause: str,
) -> None:
    """The composer replaces the skeleton's box a few steps before the window reopens
    the last chat: a question sent from it then goes to that chat, once, not to a new
    chat the window does not show (once in CI: answered in a new chat, the text left in
    the composer of the reopened one)."""
    ctx = open_ctx()
    last = last_chat_with_draft(ctx, fake_server)
    fake_server.enqueue_text("Answered.")
    window, skeleton = skeleton_window(qtbot, ctx)
    app = QApplication.instance()
    assert app is not None

    def between_steps() -> None:
        app.processEvents()
        if window.building == pause:  # (the skeleton was replaced by then)
            box = window.composer.input
            assert window.centralWidget() is not skeleton and box.isVisible()
            qtbot.keyClicks(box, "asked while it opens")
            qtbot.keyClick(box, Qt.Key.Key_Return)
            app.processEvents()

    controller = ChatController(ctx)
    EarlyQuestion(window, controller).start()
    window.attach(controller, between_steps=between_steps, hold_sends=True)
    reopen_last_chat(window)
    qtbot.waitUntil(lambda: len(fake_server.chat_requests) == 1, timeout=10000)
    qtbot.waitUntil(lambda: not controller.busy, timeout=10000)
    assert controller.session_id == last
    assert [s.id for s in ctx.sessions.list_sessions()] == [last]  # no other chat
    texts = [m.text for m in ctx.sessions.load_messages(last)]
    assert texts == ["hello", "hi", "asked while it opens", "Answered."]
    sent = fake_server.chat_requests[0].json["messages"][-1]
    assert "asked while it opens" in str(sent["content"])
    assert "kept for later" not in str(sent["content"])
    assert window.composer.input.toPlainText() == "kept for later"  # the chat's draft
    assert not window.composer.input.isReadOnly()
    assert len(fake_server.chat_requests) == 1
