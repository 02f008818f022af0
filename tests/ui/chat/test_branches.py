"""Editing a message and regenerating an answer make sibling branches; nothing is lost."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync

from desktop.app import AppContext
from desktop.ui.window.controller import ChatController
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.window.test_main_window import add_provider


def run(qtbot: Any, controller: ChatController, start: Callable[[], bool]) -> None:
    with qtbot.waitSignal(controller.bridge.runFinished, timeout=10000):
        assert start()
    qtbot.waitUntil(lambda: not controller.busy, timeout=10000)


def texts(controller: ChatController) -> list[str]:
    return [m.text for m in controller.history]


def test_edit_regenerate_and_switch(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    controller = ChatController(ctx)
    fake_server.enqueue_text("Answer A")
    run(qtbot, controller, lambda: controller.send("Question 1"))
    first_user, first_answer = controller.history
    assert texts(controller) == ["Question 1", "Answer A"]

    fake_server.enqueue_text("Answer B")
    run(qtbot, controller, lambda: controller.edit_and_resend(first_user.id, "Question 1b"))
    assert texts(controller) == ["Question 1b", "Answer B"]
    # the edited request did not carry the old version
    sent = [m["content"] for m in fake_server.last_chat_body["messages"][1:]]
    assert sent == ["Question 1b"]
    edited = controller.history[0]
    assert controller.branch_label(edited.id) == "2/2"

    controller.step_branch(edited.id, -1)
    assert texts(controller) == ["Question 1", "Answer A"]
    assert controller.branch_label(first_user.id) == "1/2"

    fake_server.enqueue_text("Answer A2")
    run(qtbot, controller, lambda: controller.regenerate(first_answer.id))
    assert texts(controller) == ["Question 1", "Answer A2"]
    assert controller.branch_label(controller.history[1].id) == "2/2"
    assert [m["content"] for m in fake_server.last_chat_body["messages"][1:]] == ["Question 1"]

    # nothing was overwritten: every version is stored
    stored = {m.text for m in ctx.sessions.load_all_messages(controller.session_id or "")}
    assert {"Question 1", "Question 1b", "Answer A", "Answer B", "Answer A2"} <= stored

    # a restart shows the branch that was active
    session_id = controller.session_id or ""
    ctx.close()
    again = ChatController(open_ctx())
    again.open_session(session_id)
    assert texts(again) == ["Question 1", "Answer A2"]


def test_branch_bar_in_the_window(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    from PySide6.QtCore import Qt

    from tests.ui.window.test_main_window import make_window, send

    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    fake_server.enqueue_text("First answer")
    send(qtbot, window, "Hello")
    user, answer = window.controller.history
    user_widget = window.chat.widget_for(user.id)
    assert user_widget is not None and not user_widget.branch_bar.label.isVisibleTo(user_widget)

    # Edit: the text comes back into the composer, Enter sends a new version
    qtbot.mouseClick(user_widget.branch_bar.action, Qt.MouseButton.LeftButton)
    assert window.chat_pane.edit_banner.isVisibleTo(window)
    assert window.composer.input.toPlainText() == "Hello"
    window.composer.input.setPlainText("Hello again")
    fake_server.enqueue_text("Second answer")
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    assert [m.text for m in window.controller.history] == ["Hello again", "Second answer"]
    edited = window.chat.widget_for(window.controller.history[0].id)
    assert edited is not None and edited.branch_bar.label.text() == "2/2"
    assert not window.chat_pane.edit_banner.isVisibleTo(window)

    # ‹ goes back to the original, whose answer is still there
    qtbot.mouseClick(edited.branch_bar.previous, Qt.MouseButton.LeftButton)
    assert [m.text for m in window.controller.history] == ["Hello", "First answer"]

    # Regenerate the original answer
    first = window.chat.widget_for(answer.id)
    assert first is not None
    fake_server.enqueue_text("Another first answer")
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        qtbot.mouseClick(first.branch_bar.action, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    latest = window.chat.widget_for(window.controller.history[-1].id)
    assert latest is not None and latest.branch_bar.label.text() == "2/2"
    assert window.controller.history[-1].text == "Another first answer"
