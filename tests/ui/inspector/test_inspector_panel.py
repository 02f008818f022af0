"""The request inspector panel in the real window: opened from an answer's Inspect
action and with Ctrl+Shift+I, Copy as curl, Find, and Replay to another model of a
loopback server."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop.app import AppContext
from desktop.ui.inspector.panel import InspectorPanel
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse
from tests.support.sse_builders import text_stream
from tests.ui.conversation_helpers import add_provider, make_window, send

KEY = "sk-loopback-key-123456"


def panels() -> list[InspectorPanel]:
    return [w for w in QApplication.topLevelWidgets()
            if isinstance(w, InspectorPanel) and w.isVisible()]


def last_answer_header(window: MainWindow) -> Any:
    widgets = [w for w in window.chat._by_widget() if w.role == "assistant"]
    assert widgets
    return widgets[-1].header_row


def chat_with_one_answer(qtbot: Any, ctx: AppContext,
                         server: FakeOpenAIServer) -> MainWindow:
    add_provider(ctx, server)
    window = make_window(qtbot, ctx)
    server.enqueue_text("The first answer, recorded.")
    send(qtbot, window, "What do you send?")
    return window


def test_inspect_action_opens_the_panel_with_request_events_and_timings(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    window = chat_with_one_answer(qtbot, open_ctx(), fake_server)
    header = last_answer_header(window)
    header._fill_more_menu()
    [action] = [a for a in header.more_menu.actions() if a.text() == "Inspect the request…"]
    action.trigger()
    qtbot.waitUntil(lambda: len(panels()) == 1)
    panel = panels()[0]
    view = panel.current
    request = view.request.text.toPlainText()
    assert "Authorization: Bearer «redacted»" in request
    assert "What do you send?" in request and KEY not in request
    assert '"model": "gpt-test"' in request  # pretty-printed JSON
    assert view.events.rowCount() > 3
    assert view.events.item(0, 0).text().startswith("+")
    view.events.setCurrentCell(2, 2)
    assert view.event_text.text.toPlainText().startswith("{\n")  # its data, pretty JSON
    assert "HTTP status: 200" in view.response.text.toPlainText()

    view.request.find_field.setText("What do you send")
    assert view.request.count.text() == "1 found"
    assert view.request.text.textCursor().selectedText() == "What do you send"

    panel.copy_curl.click()
    curl = QApplication.clipboard().text()
    assert curl.startswith("curl -N -X POST")
    assert '"Authorization: Bearer ${OPENAI_API_KEY}"' in curl and KEY not in curl
    assert "What do you send?" in curl
    panel.close()


def test_ctrl_shift_i_opens_the_last_answer_and_replay_sends_it_to_another_model(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    window = chat_with_one_answer(qtbot, open_ctx(), fake_server)
    fake_server.enqueue_text("A second answer.")
    send(qtbot, window, "And now?")
    window.activateWindow()
    qtbot.keyClick(window.chat, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier
                   | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: len(panels()) == 1)
    panel = panels()[0]
    assert "And now?" in panel.current.request.text.toPlainText()
    replay = panel.current.replay
    assert replay.original.body.toPlainText() == "A second answer."
    fake_server.enqueue_text("Replayed by another model.")
    replay.model_box.setCurrentText("gpt-other")
    with qtbot.waitSignal(replay.replayed, timeout=10000):
        replay.replay_button.click()
    assert replay.again.body.toPlainText() == "Replayed by another model."
    assert "gpt-other" in replay.again.title.text()
    assert "First token" in replay.again.figures.text()
    sent = fake_server.chat_requests[-1].json
    original = fake_server.chat_requests[-2].json
    assert sent["model"] == "gpt-other"
    assert sent["messages"] == original["messages"]  # the same request, another model
    assert len(window.chat._by_widget()) == 4  # nothing added to the chat
    panel.close()


def test_nothing_recorded_says_so(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    ctx.settings.update(inspector_enabled=False)
    window = chat_with_one_answer(qtbot, ctx, fake_server)
    window.chat_pane.inspect()
    qtbot.waitUntil(lambda: any(isinstance(w, QMessageBox) and w.isVisible()
                                for w in QApplication.topLevelWidgets()))
    box = next(w for w in QApplication.topLevelWidgets()
               if isinstance(w, QMessageBox) and w.isVisible())
    assert "No request was recorded for this answer" in box.text()
    assert not panels()
    box.close()


def test_an_answer_with_a_tool_round_shows_both_requests(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Any,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("Ship on Friday.\n")
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    window.controller.set_workspace(str(workspace))
    fake_server.enqueue_tool_calls([("read_file", json.dumps({"files": [{"path": "notes.txt"}]}))])
    fake_server.enqueue_text("It ships on Friday.")
    send(qtbot, window, "When do we ship?")
    window.chat_pane.inspect()
    qtbot.waitUntil(lambda: len(panels()) == 1)
    panel = panels()[0]
    assert panel.choice.count() == 2 and not panel.choice.isHidden()
    assert '"tool_calls"' not in panel.views[0].request.text.toPlainText()
    second = panel.views[1].request.text.toPlainText()
    assert '"tool_calls"' in second and "Ship on Friday." in second  # the tool's result
    panel.choice.setCurrentIndex(1)
    assert panel.current is panel.views[1] and "HTTP 200" in panel.heading.text()
    panel.close()


def test_events_are_the_server_sent_events_and_the_raw_bytes_have_their_own_tab(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    events = text_stream("Hello there, world", chunk_size=6)
    body = b"".join(events)
    # the server writes the stream in 3-byte pieces: events arrive cut anywhere
    fake_server.enqueue(ScriptedResponse(chunks=[body[i:i + 3]
                                                 for i in range(0, len(body), 3)]))
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    send(qtbot, window, "Say hello")
    window.chat_pane.inspect()
    qtbot.waitUntil(lambda: len(panels()) == 1)
    view = panels()[0].current
    table = view.events
    assert table.rowCount() == len(events)  # one row per SSE event, not per piece
    assert [table.item(r, 1).text() for r in range(table.rowCount())] == \
        ["message"] * len(events)
    assert table.item(table.rowCount() - 1, 2).text() == "[DONE]"
    assert '"content":"Hello "' in table.item(1, 2).text()  # compact JSON on its row
    times = [float(table.item(r, 0).text().strip("+ ms").replace(",", ""))
             for r in range(table.rowCount())]
    assert times == sorted(times)
    table.setCurrentCell(1, 2)
    detail = view.event_text.text.toPlainText()
    assert detail.startswith("{\n") and '\n  "choices": [' in detail  # pretty-printed
    assert json.loads(detail)["choices"][0]["delta"]["content"] == "Hello "
    assert view.tabText(2) == f"Events ({len(events)})"
    raw = view.raw
    assert view.tabText(3) == f"Raw bytes ({raw.rowCount()})"
    record = view.record
    assert b"".join(c.data for c in record.chunks) == body  # nothing lost or changed
    raw.setCurrentCell(0, 2)
    assert view.raw_text.text.toPlainText() == record.chunks[0].text
    panels()[0].close()
