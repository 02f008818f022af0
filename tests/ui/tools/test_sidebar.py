"""The tool-activity sidebar in a real window: live command output, Cancel, the status
filter, turn headers, details with highlighted JSON and diffs, and clicks on a call."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import Qt

from desktop.app import AppContext
from desktop.ui.plain_text import plain_tooltip
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.tools.test_approval_card import start
from tests.ui.window.test_main_window import add_provider, make_window


def window_with_workspace(qtbot: Any, open_ctx: Callable[..., AppContext],
                          server: FakeOpenAIServer, tmp_path: Path,
                          **policies: str) -> tuple[MainWindow, Path]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    ctx = open_ctx()
    add_provider(ctx, server)
    window = make_window(qtbot, ctx)
    window.controller.set_workspace(str(workspace))
    if policies:
        window.controller.update_settings(tool_policies=policies)
    return window, workspace


def feed_fifo(path: Path, text: str) -> threading.Thread:
    """Write to a FIFO from a thread (opening it blocks until the reader opens it)."""
    thread = threading.Thread(target=lambda: path.write_text(text), daemon=True)
    thread.start()
    return thread


def tool_contents(server: FakeOpenAIServer, request: int) -> list[str]:
    messages = server.chat_requests[request].json["messages"]
    return [str(m["content"]) for m in messages if m["role"] == "tool"]


def test_run_command_output_appears_live(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    window, workspace = window_with_workspace(qtbot, open_ctx, fake_server, tmp_path,
                                              run_command="allow")
    fifo = workspace / "gate"
    os.mkfifo(fifo)
    command = "echo first line; cat gate; echo last line"
    fake_server.enqueue_tool_calls([("run_command", json.dumps({"command": command}))],
                                   ids=["cmd"])
    fake_server.enqueue_text("The command printed three lines.")
    start(qtbot, window, "Run it")
    qtbot.waitUntil(lambda: "cmd" in window.sidebar.cards
                    and "first line" in window.sidebar.cards["cmd"].output_text(), timeout=10000)
    card = window.sidebar.cards["cmd"]
    # Still running: the output arrived before the command finished
    assert card.status == "running" and window.controller.busy
    assert card.spinner.isVisibleTo(card) and card.cancel_button.isVisibleTo(card)
    assert card.output_view.isVisibleTo(card)
    assert "last line" not in card.output_text()
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        feed_fifo(fifo, "from the gate\n")
    assert card.status == "succeeded"
    assert not card.spinner.isVisibleTo(card) and not card.cancel_button.isVisibleTo(card)
    assert "s · exit 0 · last line" in card.meta_label.text()
    # Expanded: the result shows the full stdout (the live view gives way to it)
    card.expand.click()
    details = card.details.toPlainText()
    assert "stdout" in details and "from the gate" in details and "last line" in details
    assert not card.output_view.isVisibleTo(card)


def test_a_command_that_exits_non_zero_is_a_failed_call(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    """It used to show "✓ succeeded" for exit code 2; the model still gets the output."""
    window, _workspace = window_with_workspace(qtbot, open_ctx, fake_server, tmp_path,
                                               run_command="allow")
    command = "echo partial output; echo 'no such file' >&2; exit 2"
    fake_server.enqueue_tool_calls([("run_command", json.dumps({"command": command}))],
                                   ids=["cmd"])
    fake_server.enqueue_text("It failed.")
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        start(qtbot, window, "Run it")
    card = window.sidebar.cards["cmd"]
    assert card.status == "failed"
    assert card.status_label.text() == "✗ failed"
    assert "exit 2" in card.meta_label.text()
    card.expand.click()
    details = card.details.toPlainText()
    assert "partial output" in details and "no such file" in details
    [sent] = tool_contents(fake_server, 1)
    error = json.loads(sent)["error"]
    assert error["exit_code"] == 2 and error["stdout"] == "partial output\n"
    assert error["stderr"] == "no such file\n"


def test_cancel_a_running_call(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    window, workspace = window_with_workspace(qtbot, open_ctx, fake_server, tmp_path,
                                              run_command="allow")
    os.mkfifo(workspace / "never")
    fake_server.enqueue_tool_calls(
        [("run_command", json.dumps({"command": "echo waiting; cat never"}))], ids=["cmd"])
    fake_server.enqueue_text("It was cancelled.")
    start(qtbot, window, "Run it")
    qtbot.waitUntil(lambda: "cmd" in window.sidebar.cards
                    and "waiting" in window.sidebar.cards["cmd"].output_text(), timeout=10000)
    card = window.sidebar.cards["cmd"]
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        qtbot.mouseClick(card.cancel_button, Qt.MouseButton.LeftButton)
    assert card.status == "cancelled"
    assert "cancelled" in card.status_label.text()
    # The model was told, and the turn went on to its answer
    assert '"code":"cancelled"' in tool_contents(fake_server, 1)[0]
    assert window.controller.history[-1].text == "It was cancelled."
    # Cancelled mid-run: the output seen so far stays available in the details
    card.expand.click()
    assert card.output_view.isVisibleTo(card) and "waiting" in card.output_text()


def test_filter_turns_details_and_clicks(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    window, _workspace = window_with_workspace(qtbot, open_ctx, fake_server, tmp_path,
                                               fetch_url="deny", edit_file="allow")
    sidebar = window.sidebar
    read = json.dumps({"files": [{"path": "notes.txt"}]})
    missing = json.dumps({"files": [{"path": "missing.txt"}]})
    fetch = json.dumps({"url": "https://example.com/"})
    fake_server.enqueue_tool_calls([("read_file", read), ("read_file", missing),
                                    ("fetch_url", fetch)], ids=["ok", "bad", "no"])
    fake_server.enqueue_text("First answer.")
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        start(qtbot, window, "Look")
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    edit = json.dumps({"path": "notes.txt", "old_string": "beta", "new_string": "gamma"})
    fake_server.enqueue_tool_calls([("edit_file", edit)], ids=["edit"])
    fake_server.enqueue_text("Second answer.")
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        start(qtbot, window, "Edit")
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)

    assert [c.status for c in sidebar.all_cards] == ["succeeded", "failed", "denied",
                                                     "succeeded"]
    assert [t.header.text() for t in sidebar.turns] == ["▾ Turn 1 · 3 calls",
                                                        "▾ Turn 2 · 1 call"]
    texts = [sidebar.filter_combo.itemText(i) for i in range(sidebar.filter_combo.count())]
    assert texts[0] == "All calls (4)" and "Failed (1)" in texts and "Succeeded (2)" in texts

    def shown() -> list[str]:
        return [c.call.id for c in sidebar.all_cards if c.isVisibleTo(sidebar)]

    sidebar.set_filter("failed")
    assert shown() == ["bad"]
    assert sidebar.turns[0].header.isVisibleTo(sidebar)
    assert not sidebar.turns[1].header.isVisibleTo(sidebar)
    sidebar.set_filter("denied")
    assert shown() == ["no"]
    assert "set to Deny" in sidebar.cards["no"].meta_label.text()
    sidebar.set_filter("running")
    assert shown() == [] and sidebar.empty.isVisibleTo(sidebar)
    assert sidebar.empty.text() == "No running calls."
    sidebar.set_filter("all")
    assert shown() == ["ok", "bad", "no", "edit"] and not sidebar.empty.isVisibleTo(sidebar)
    # A turn header folds its calls away
    qtbot.mouseClick(sidebar.turns[0].header, Qt.MouseButton.LeftButton)
    assert shown() == ["edit"] and sidebar.turns[0].header.text().startswith("▸")
    qtbot.mouseClick(sidebar.turns[0].header, Qt.MouseButton.LeftButton)

    # Details: highlighted JSON arguments and a coloured diff for the edit
    card = sidebar.cards["edit"]
    assert "+1 −1" in card.meta_label.text()
    card.expand.click()
    html = card.details.toHtml()
    text = card.details.toPlainText()
    assert "Arguments" in text and '"old_string": "beta"' in text
    assert "-beta" in text and "+gamma" in text and "Diff" in text
    assert "background-color" in html and "color:#" in html.replace(" ", "")
    failed = sidebar.cards["bad"]
    failed.expand.click()
    assert "does not exist" in failed.details.toPlainText()

    # Clicking a call scrolls the chat to the message that made it
    assistant = next(m for m in window.controller.history if m.tool_calls
                     and m.tool_calls[0].id == "ok")
    scrolled: list[str] = []
    window.sidebar.messageClicked.connect(scrolled.append)
    with qtbot.waitSignal(window.sidebar.messageClicked, timeout=2000):
        qtbot.mouseClick(sidebar.cards["ok"].args_label, Qt.MouseButton.LeftButton)
    assert scrolled == [assistant.id]

    # Reopening the chat rebuilds the same list from storage
    session = window.controller.session_id or ""
    window.controller.new_session()
    assert sidebar.all_cards == [] and sidebar.empty.isVisibleTo(sidebar)
    window.controller.open_session(session)
    assert [c.status for c in sidebar.all_cards] == ["succeeded", "failed", "denied",
                                                     "succeeded"]
    assert len(sidebar.turns) == 2


def png(width: int, height: int) -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QColor, QImage

    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("#2563eb"))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # the stub wants bytes
    return bytes(data.data())


def test_images_from_a_result_show_as_thumbnails(qtbot: Any) -> None:
    import base64

    from desktop.core.agent_events import ToolRunFinished, ToolRunStarted
    from desktop.core.messages import ToolCallPart, ToolResultPart
    from desktop.tools.approval import ToolProgress
    from desktop.ui.tools.sidebar import ToolSidebar
    from desktop.ui.window.bridge import AgentBridge

    bridge = AgentBridge()
    sidebar = ToolSidebar(bridge)
    qtbot.addWidget(sidebar)
    sidebar.show()
    sidebar.begin_turn()
    call = ToolCallPart(id="pic", name="test__picture", arguments="{}")
    bridge.toolRunStarted.emit(ToolRunStarted(call=call, round=1, message_id="m1"))
    bridge.toolProgress.emit(ToolProgress("pic", call.name, "status", "running"))
    card = sidebar.cards["pic"]
    assert card.status == "running" and sidebar._timer.isActive()
    data = base64.b64encode(png(40, 30)).decode()
    result = ToolResultPart(
        tool_call_id="pic", name=call.name, duration_s=0.5,
        content=json.dumps({"status": "success", "result": {"text": "a pixel"}}),
        provider_data={"images": [{"mime_type": "image/png", "data": data},
                                  {"mime_type": "image/png", "data": "bm90IGFuIGltYWdl"},
                                  {"mime_type": "image/png"}]})
    bridge.toolRunFinished.emit(ToolRunFinished(result=result, round=1))
    assert card.status == "succeeded" and card.meta_label.text() == "0.50 s · a pixel"
    assert len(card.image_labels) == 2
    label, broken = card.image_labels
    assert not label.pixmap().isNull()
    assert label.toolTip() == plain_tooltip("image/png, 40×30")  # (a server's words)
    assert broken.text() == "[image: image/png] (cannot be shown)"
    assert not card.images.isVisibleTo(card)  # thumbnails show in the expanded card
    card.expand.click()
    assert card.images.isVisibleTo(card) and "a pixel" in card.details.toPlainText()
    # Progress for an unknown or finished call is ignored
    bridge.toolProgress.emit(ToolProgress("pic", call.name, "output", "late"))
    bridge.toolProgress.emit(ToolProgress("other", "x", "status", "running"))
    assert card.output_text() == "" and card.status == "succeeded"
