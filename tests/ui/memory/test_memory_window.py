"""Memory in the window, against a loopback server that records the requests: the
model's remember call shows "Memory saved: … · Undo" in the chat, the fact reaches a
new chat's system prompt, and Undo forgets it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import qasync

from desktop.app import AppContext
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window, send, system_text

FACT = "The user's dog is called Pixel."


def remember_in_a_chat(qtbot: Any, ctx: AppContext, server: FakeOpenAIServer) -> MainWindow:
    ctx.settings.update(tool_policies={"remember": "allow"})
    add_provider(ctx, server)
    window = make_window(qtbot, ctx)
    server.enqueue_tool_calls([("remember", json.dumps({"fact": FACT}))])
    server.enqueue_text("I'll remember that.")
    send(qtbot, window, "Remember that my dog is called Pixel")
    return window


def notice_of(window: MainWindow) -> Any:
    call = next(m for m in window.controller.history if m.tool_calls)
    widget = window.chat.widget_for(call.id)
    assert widget is not None
    return widget.tool_calls.memories


def test_memory_saved_shows_in_the_chat_and_reaches_a_new_chat(
        qtbot: Any, qt_loop: qasync.QEventLoop,
        open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        window = remember_in_a_chat(qtbot, ctx, server)
        notices = notice_of(window)
        qtbot.waitUntil(notices.isVisible)
        assert notices.text() == f"Memory saved: {FACT} · Undo"
        window.controller.new_session()
        server.enqueue_text("Pixel.")
        send(qtbot, window, "What is my dog's name?")
        assert f"<memory>{FACT}</memory>" in system_text(server.chat_requests[-1].json)


def test_undo_forgets_the_memory(qtbot: Any, qt_loop: qasync.QEventLoop,
                                 open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        window = remember_in_a_chat(qtbot, ctx, server)
        notices = notice_of(window)
        qtbot.waitUntil(notices.isVisible)
        [memory] = window.controller.service.memories.all()
        with qtbot.waitSignal(window.controller.statusMessage) as said:
            notices.labels[0].linkActivated.emit(f"undo:{memory.id}")
        assert said.args[0] == "Memory removed."
        assert window.controller.service.memories.all() == []
        assert notices.text() == f"Memory removed: {FACT}"


def test_a_temporary_chat_from_the_file_menu_uses_no_memory_and_is_not_kept(
        qtbot: Any, qt_loop: qasync.QEventLoop,
        open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        add_provider(ctx, server)
        window = make_window(qtbot, ctx)
        window.controller.service.memories.add(FACT)
        action = next(a for m in window.menuBar().actions() if m.menu() is not None
                      for a in m.menu().actions() if a.text() == "New t&emporary chat")
        action.trigger()
        assert window.chat_pane.temporary_banner.isVisibleTo(window)
        for question in ("first", "second"):
            server.enqueue_text(f"answer to {question}")
            send(qtbot, window, question)
        body = server.chat_requests[-1].json
        assert "Pixel" not in system_text(body)
        assert "remember" not in [t["function"]["name"] for t in body.get("tools", [])]
        assert [m["content"] for m in body["messages"][1:]] == [
            "first", "answer to first", "second"]
        assert ctx.sessions.list_sessions(archived=None) == []
        window.controller.new_session()  # left: gone
        assert not window.chat_pane.temporary_banner.isVisibleTo(window)
        assert window.controller.temporary is None
        assert ctx.sessions.list_sessions(archived=None) == []


def test_a_temporary_chat_offers_no_second_version(
        qtbot: Any, qt_loop: qasync.QEventLoop,
        open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        add_provider(ctx, server)
        window = make_window(qtbot, ctx)
        window.controller.new_temporary_chat()
        server.enqueue_text("an answer")
        send(qtbot, window, "a question")
        answer = window.controller.history[-1]
        with qtbot.waitSignal(window.controller.statusMessage) as said:
            assert window.controller.regenerate(answer.id) is False
        assert "not available" in said.args[0]
        assert len(server.chat_requests) == 1
        assert ctx.sessions.list_sessions(archived=None) == []
