"""The main window chats with a real loopback server, shows tools, survives a restart."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import Qt

from desktop.app import AppContext
from desktop.core.messages import Message
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse
from tests.support.sse_builders import text_stream
from tests.ui.conversation_helpers import add_provider, make_window, send

# make_window, add_provider and send are shared with the other window tests (one copy)


def test_chat_with_tool_call_then_restart(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("Release on Friday.\nFix bug 412.\n")
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    window.controller.set_workspace(str(workspace))

    fake_server.enqueue_tool_calls([("read_file", json.dumps({"files": [{"path": "notes.txt"}]}))])
    fake_server.enqueue_text("The notes cover **two** items: the release and bug 412.")
    send(qtbot, window, "Read notes.txt and summarise it")

    # The sidebar shows the call, finished successfully
    cards = list(window.sidebar.cards.values())
    assert [c.call.name for c in cards] == ["read_file"]
    assert cards[0].status == "succeeded"
    assert "notes.txt" in cards[0].args_label.text()
    # The model received the file's content as the tool result
    second = fake_server.chat_requests[1].json
    tool_messages = [m for m in second["messages"] if m["role"] == "tool"]
    assert "Release on Friday." in tool_messages[0]["content"]
    assert second["messages"][0]["role"] == "system"
    # The chat shows the streamed markdown answer, rendered
    history = window.controller.history
    assert history[-1].text == "The notes cover **two** items: the release and bug 412."
    widget = window.chat.widget_for(history[-1].id)
    assert widget is not None
    assert "two" in widget.body.toPlainText() and "**" not in widget.body.toPlainText()
    # Usage and session list
    assert window.sessions.list.count() == 1
    assert window.sessions.list.item(0).text() == "Read notes.txt and summarise it"
    session_id = window.controller.session_id
    window.close()
    ctx.close()

    # Restart: the session and its messages are there
    ctx2 = open_ctx()
    window2 = make_window(qtbot, ctx2)
    assert window2.sessions.list.count() == 1
    item = window2.sessions.list.item(0)
    window2.sessions.list.itemClicked.emit(item)
    assert window2.controller.session_id == session_id
    roles = [m.role for m in window2.controller.history]
    assert roles == ["user", "assistant", "tool", "assistant"]
    assert [c.status for c in window2.sidebar.cards.values()] == ["succeeded"]
    last = window2.chat.widget_for(window2.controller.history[-1].id)
    assert last is not None and "bug 412" in last.body.toPlainText()


def test_provider_error_is_shown_and_session_stays_usable(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    fake_server.enqueue_error(400, "model 'gpt-test' does not exist")
    send(qtbot, window, "hello")
    assert window.controller.history[-1].status == "error"
    failed = window.chat.widget_for(window.controller.history[-1].id)
    assert failed is not None and failed.status_label.isVisible()
    assert "does not exist" in failed.status_label.text()
    fake_server.enqueue_text("Hi again")
    send(qtbot, window, "try again")
    assert window.controller.history[-1].text == "Hi again"


def test_a_retried_request_is_said_in_the_status_line(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    shown: list[str] = []
    # (connected after the window's own slot: sees what the status line shows)
    window.controller.statusMessage.connect(
        lambda _text, _ms: shown.append(window.statusBar().currentMessage()))
    fake_server.enqueue_error(429, "slow down", headers={"Retry-After": "0"})
    fake_server.enqueue_text("Answered after a retry")
    send(qtbot, window, "hello")
    assert shown == ["Loopback is rate-limiting requests; trying again in a moment (retry 1)…"]
    assert window.controller.history[-1].text == "Answered after a retry"
    assert len(fake_server.chat_requests) == 2


def test_retry_text() -> None:
    from desktop.ui.window.controller import retry_text

    assert retry_text("OpenAI", 1, 4.2, "HTTP 503") == (
        "OpenAI is unavailable; trying again in 4 s (retry 2)…")
    assert retry_text("Claude", 0, 2, "HTTP 529") == (
        "Claude is overloaded; trying again in 2 s (retry 1)…")
    assert retry_text("Local", 0, 0.5, "ConnectError") == (
        "Local could not be reached (ConnectError); trying again in a moment (retry 1)…")
    assert retry_text("X", 2, 1, "HTTP 500") == (
        "X answered HTTP 500; trying again in 1 s (retry 3)…")


def test_stop_keeps_partial_answer(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    response = ScriptedResponse(chunks=text_stream("partial answer that never ends", 4),
                                hold_after=4)
    fake_server.enqueue(response)
    qtbot.keyClicks(window.composer.input, "go")
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.controller.history[-1:] != [] and
                    window.chat._current is not None and
                    "partial" in "".join(window.chat._current._text_chunks), timeout=10000)
    assert window.composer.send_button.text() == "Stop"
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Escape)
    response.release()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    last = window.controller.history[-1]
    assert last.status == "stopped"
    assert last.text.startswith("partial")
    assert window.composer.send_button.text() == "Send"
    stored = ctx.sessions.load_messages(window.controller.session_id or "")
    assert stored[-1].status == "stopped"


def test_first_user_without_provider_is_asked_to_add_one(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    monkeypatch: Any,
) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    opened: list[bool] = []
    monkeypatch.setattr(window.dialogs, "open", lambda kind: opened.append(kind == "providers"))
    window.controller.providerMissing.disconnect()
    window.controller.providerMissing.connect(window._provider_missing)
    qtbot.keyClicks(window.composer.input, "hello")
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    assert opened == [True]
    assert window.chat_pane.error_banner.isVisible()


def test_environment_provider_is_listed_and_selected(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx({"OPENAI_API_KEY": "sk-env-key-000000000000", "OPENAI_BASE_URL":
                    fake_server.base_url})
    window = make_window(qtbot, ctx)
    assert "environment" in window.top_bar.provider_combo.currentText()
    fake_server.enqueue_text("from env")
    send(qtbot, window, "hi")
    assert window.controller.history[-1].text == "from env"
    auth = fake_server.chat_requests[0].headers.get("authorization")
    assert auth == "Bearer sk-env-key-000000000000"


def test_tool_round_limit_asks_to_continue(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("a")
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    agent = ctx.settings.current.agent.model_copy(update={"tool_round_limit": 1,
                                                          "limit_behavior": "confirm"})
    ctx.settings.update(agent=agent, workspace=str(tmp_path))
    window = make_window(qtbot, ctx)
    args = json.dumps({"path": "."})
    for _ in range(2):
        fake_server.enqueue_tool_calls([("list_directory", args)])
    qtbot.keyClicks(window.composer.input, "look around")
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    # First limit: the question is asked in the conversation; continue
    status = window.chat.turn_status
    qtbot.waitUntil(lambda: status.kind == "confirm", timeout=10000)
    assert status.continue_button.isVisibleTo(window)
    assert "1 round" in status.label.text()
    with qtbot.waitSignal(status.confirmAnswered) as answered:
        qtbot.mouseClick(status.continue_button, Qt.MouseButton.LeftButton)
    assert answered.args == [True]
    # Second limit: stop here
    qtbot.waitUntil(lambda: status.kind == "confirm" and len(fake_server.chat_requests) == 2,
                    timeout=10000)
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000) as blocker:
        qtbot.mouseClick(status.stop_here_button, Qt.MouseButton.LeftButton)
    assert blocker.args[0].status == "limit"
    assert len(fake_server.chat_requests) == 2
    assert [c.status for c in window.sidebar.all_cards] == ["succeeded", "succeeded"]


def test_the_tool_round_question_follows_its_chat(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    agent = ctx.settings.current.agent.model_copy(update={"tool_round_limit": 1,
                                                          "limit_behavior": "confirm"})
    ctx.settings.update(agent=agent, workspace=str(tmp_path))
    window = make_window(qtbot, ctx)
    fake_server.enqueue_tool_calls([("list_directory", json.dumps({"path": "."}))])
    qtbot.keyClicks(window.composer.input, "look around")
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    status = window.chat.turn_status
    qtbot.waitUntil(lambda: status.kind == "confirm", timeout=10000)
    asking = window.controller.session_id
    # Another chat on screen: nothing is asked there
    window.controller.new_session()
    assert status.kind == ""
    # Back: the question is asked again, and the answer reaches the asking chat
    window.controller.open_session(asking or "")
    qtbot.waitUntil(lambda: status.kind == "confirm", timeout=10000)
    fake_server.enqueue_text("Found a.txt.")
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        qtbot.mouseClick(status.continue_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    assert window.controller.history[-1].text == "Found a.txt."


def test_attachments_are_sent_in_the_user_message(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    config = add_provider(ctx, fake_server)
    ctx.settings_store.save_provider(config.model_copy(update={"model": "gpt-4o"}))
    window = make_window(qtbot, ctx)
    notes = tmp_path / "notes.txt"
    notes.write_text("line one\n")
    image = tmp_path / "dot.png"
    image.write_bytes(bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"))
    assert window.chat_pane.add_attachment(notes) and window.chat_pane.add_attachment(image)
    assert not window.chat_pane.add_attachment(tmp_path / "missing.txt")
    assert window.chat_pane.error_banner.isVisible()
    assert len(window.composer.chips) == 2
    fake_server.enqueue_text("I see a dot.")
    send(qtbot, window, "What are these?")
    body = fake_server.last_chat_body
    content = body["messages"][-1]["content"]
    kinds = [c["type"] for c in content]
    assert kinds.count("image_url") == 1
    assert any("line one" in c.get("text", "") for c in content)
    assert window.composer.chips == []
    stored = ctx.sessions.load_messages(window.controller.session_id or "")
    assert stored[0].attachment_names == ["notes.txt", "dot.png"]
    assert stored[0].body_text == "What are these?"


def test_image_refused_for_a_model_without_vision(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    config = add_provider(ctx, fake_server)
    ctx.settings_store.save_provider(config.model_copy(update={"model": "gpt-3.5-turbo"}))
    window = make_window(qtbot, ctx)
    image = tmp_path / "dot.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    assert window.chat_pane.add_attachment(image)
    qtbot.keyClicks(window.composer.input, "look")
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    assert "cannot see images" in window.chat_pane.error_banner.text()
    assert fake_server.chat_requests == []
    assert len(window.composer.chips) == 1  # nothing lost


def test_session_usage_and_cost() -> None:
    from desktop.core.messages import Usage
    from desktop.core.pricing import Price
    from desktop.ui.chat.usage_text import format_usage, session_usage

    messages = [
        Message.user("q"),
        Message(role="assistant", model="gpt-4o",
                usage=Usage(input_tokens=1000, output_tokens=500, reasoning_tokens=100)),
        Message(role="assistant", model="mystery", usage=Usage(input_tokens=10,
                                                               output_tokens=5, cost=0.01)),
    ]
    total = session_usage(messages, {})
    assert total.input_tokens == 1010 and total.output_tokens == 505
    assert total.cost is not None and abs(total.cost - (0.0025 + 0.005 + 0.01)) < 1e-9
    text = format_usage(total)
    assert "1.0k in" in text and "505 out" in text and "(100 thinking)" in text and "$" in text
    mine = session_usage(messages[:2], {"gpt-4o": Price(0.0, 0.0)})
    assert mine.cost == 0.0
    assert session_usage([Message(role="assistant", model="mystery",
                                  usage=Usage(input_tokens=1))], {}).cost is None


def test_theme_from_the_view_menu_is_saved(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    from desktop.ui import theme

    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    try:
        dark = window.chat.theme_actions[2]
        menus = [a.menu() for a in window.menuBar().actions() if a.menu() is not None]
        assert any(dark in menu.actions() for menu in menus)
        dark.trigger()
        assert theme.is_dark()
        assert ctx.settings_store.load().theme == "dark"
    finally:
        window.chat.theme_actions[1].trigger()  # back to light for the other tests
