"""Settings → MCP servers with real things: a Claude-Desktop JSON file, a stdio server
written with the mcp SDK (tests/tools/mcp_test_server.py), a command that does not exist,
and a chat whose model calls the server's tools."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import Qt

from desktop.app import AppContext
from desktop.chat.chat_tools import ChatTools
from desktop.tools.mcp.connection import McpConnection
from desktop.ui.tools.mcp_dialog import McpDialog
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window
from tests.ui.tools.test_approval_card import cell, finish, start, wait_card

SERVER = str(Path(__file__).parents[2] / "tools" / "mcp_test_server.py")


def open_dialog(window: MainWindow) -> McpDialog:
    dialog = window.dialogs.open("mcp")
    assert isinstance(dialog, McpDialog) and dialog.isVisible()
    return dialog


def connection(window: MainWindow, name: str) -> McpConnection | None:
    manager = window.controller.tools.mcp
    return manager.get(name) if manager is not None else None


def running(window: MainWindow, name: str) -> bool:
    conn = connection(window, name)
    return conn is not None and conn.state == "running"


def stop_servers(qtbot: Any, window: MainWindow) -> None:
    task = asyncio.ensure_future(window.controller.tools.stop_mcp())
    qtbot.waitUntil(task.done, timeout=30000)


def test_import_from_a_claude_desktop_file_and_from_pasted_text(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    tmp_path: Path,
) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    dialog = open_dialog(window)
    assert dialog.stack.currentIndex() == 0  # the "no servers yet" hint
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps({"mcpServers": {
        "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone", "Europe/Paris"],
                 "env": {"TZ": "UTC"}},
        "remote": {"url": "https://mcp.example.com/mcp",
                   "headers": {"Authorization": "Bearer abc"}},
        "legacy": {"url": "https://old.example.com/sse"},
    }}))
    assert dialog.import_file(str(path))
    assert dialog.server_list.count() == 3
    assert "Imported 3 servers: time, remote, legacy" in dialog.message.text()
    form = dialog.form
    assert dialog.server_list.currentRow() == 0
    assert form.command_edit.text() == "uvx"
    assert form.args_edit.text() == "mcp-server-time --local-timezone Europe/Paris"
    assert form.env_edit.toPlainText() == "TZ=UTC"
    assert "not started — Save to start it" in dialog.server_list.item(0).text()
    assert form.form_layout.isRowVisible(form.command_edit)
    assert not form.form_layout.isRowVisible(form.url_edit)
    dialog.server_list.setCurrentRow(1)
    assert form.transport_combo.currentData() == "http"
    assert form.url_edit.text() == "https://mcp.example.com/mcp"
    assert form.headers_edit.toPlainText() == "Authorization: Bearer abc"
    assert not form.form_layout.isRowVisible(form.command_edit)
    dialog.server_list.setCurrentRow(2)
    assert form.transport_combo.currentData() == "sse"

    # Pasted text: an error is one clear line; a valid paste gets a unique name
    paste = dialog.open_paste()
    paste.text.setPlainText("{nope")
    paste.accept()
    assert dialog.message.text().startswith("⚠ The MCP configuration is not valid JSON (line 1).")
    assert dialog.server_list.count() == 3
    paste = dialog.open_paste()
    paste.text.setPlainText('{"time": {"command": "uvx", "args": ["mcp-server-time"]}}')
    paste.accept()
    assert dialog.server_list.count() == 4 and dialog.servers[3]["name"] == "time-2"
    assert dialog.import_file(str(tmp_path / "missing.json")) is False
    assert "Cannot read the MCP configuration" in dialog.message.text()

    # Closing with unsaved changes warns once
    qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and "unsaved changes" in dialog.message.text()

    # An invalid server blocks saving, with the reason
    dialog.server_list.setCurrentRow(1)
    form.url_edit.clear()
    qtbot.keyClicks(form.url_edit, "ftp://nowhere")
    assert "needs an http(s) URL" in dialog.server_list.item(1).text()
    assert not dialog.save()
    assert "needs an http(s) URL" in dialog.message.text()
    assert ctx.settings_store.load().mcp_servers == []
    form.url_edit.selectAll()
    qtbot.keyClicks(form.url_edit, "https://mcp.example.com/v2")

    # Switched off and removed servers are saved as such (nothing is started)
    for row in range(4):
        dialog.server_list.setCurrentRow(row)
        form.enabled_check.setChecked(False)
    dialog.server_list.setCurrentRow(2)
    dialog.remove_current()
    assert dialog.save()
    saved = ctx.settings_store.load().mcp_servers
    assert [s["name"] for s in saved] == ["time", "remote", "time-2"]
    assert [s["enabled"] for s in saved] == [False, False, False]
    assert saved[1]["url"] == "https://mcp.example.com/v2"
    # the token went to the secret store; settings keep a placeholder
    assert saved[1]["headers"]["Authorization"] != "Bearer abc"
    resolved = {c.name: c for c in ctx.mcp_configs()}
    assert resolved["remote"].headers == {"Authorization": "Bearer abc"}
    assert saved[0]["env"] == {"TZ": "UTC"}
    assert "switched off" in dialog.server_list.item(0).text()
    qtbot.waitUntil(lambda: window.controller._mcp_task is not None
                    and window.controller._mcp_task.done(), timeout=10000)
    qtbot.mouseClick(dialog.close_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    qtbot.waitUntil(lambda: window.dialogs.current("mcp") is None, timeout=5000)  # deleted on close
    again = open_dialog(window)
    assert again.server_list.count() == 3 and not again.dirty
    assert window.dialogs.open("mcp") is again  # one dialog at a time


def test_a_stdio_server_runs_shows_its_tools_and_stderr(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    dialog = open_dialog(window)
    form = dialog.form
    try:
        dialog.add_server("stdio")
        form.name_edit.selectAll()
        qtbot.keyClicks(form.name_edit, "test")
        qtbot.keyClicks(form.command_edit, sys.executable)
        qtbot.keyClicks(form.args_edit, shlex.join([SERVER, "stdio"]))
        form.env_edit.setPlainText("MCP_TEST_FLAG=1")
        dialog.add_server("stdio")
        form.name_edit.selectAll()
        qtbot.keyClicks(form.name_edit, "ghost")
        qtbot.keyClicks(form.command_edit, "no-such-mcp-command-xyz")
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
        saved = ctx.settings_store.load().mcp_servers
        assert [s["name"] for s in saved] == ["test", "ghost"]
        assert saved[0]["args"] == [SERVER, "stdio"] and saved[0]["env"] == {
            "MCP_TEST_FLAG": "1"}

        qtbot.waitUntil(lambda: running(window, "test"), timeout=30000)
        qtbot.waitUntil(lambda: "running · 9 tools" in dialog.server_list.item(0).text(),
                        timeout=5000)
        # The missing command fails at once, saying so (issue 19: no retries)
        qtbot.waitUntil(lambda: "command not found" in dialog.server_list.item(1).toolTip(),
                        timeout=30000)
        dialog.server_list.setCurrentRow(1)
        assert "command not found:" in form.status_label.text()
        assert "not on the login-shell PATH" in form.status_label.text()
        assert not form.tools_table.isVisibleTo(form)
        dialog.server_list.setCurrentRow(0)
        tools = [cell(form.tools_table, r, 0).text() for r in range(form.tools_table.rowCount())]
        assert {"echo", "add", "picture"} <= set(tools)
        assert form.policy_combos["add"].currentText() == "Default (Allow)"  # read-only hint
        assert form.policy_combos["echo"].currentText() == "Default (Ask)"
        # Its tools are offered in the composer's menu
        assert "test__echo" in window.composer.tool_actions
        assert window.composer.tools_button.text().startswith("tools: ")
        # stderr viewer
        qtbot.mouseClick(form.stderr_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "ready" in form.stderr_view.toPlainText(), timeout=10000)
        assert "--- starting" in form.stderr_view.toPlainText()

        # Per-tool switch and policy, saved and applied on restart
        echo_row = tools.index("echo")
        cell(form.tools_table, echo_row, 1).setCheckState(Qt.CheckState.Unchecked)
        add_combo = form.policy_combos["add"]
        add_combo.setCurrentIndex(add_combo.findData("deny"))
        before = connection(window, "test")
        assert dialog.save()
        server = ctx.settings_store.load().mcp_servers[0]
        assert server["disabled_tools"] == ["echo"] and server["tool_policies"] == {
            "add": "deny"}
        qtbot.waitUntil(lambda: connection(window, "test") is not before
                        and running(window, "test")
                        and "test__pid" in window.composer.tool_actions, timeout=30000)
        assert "test__echo" not in window.composer.tool_actions
        registry = window.controller.tools.registry()
        add_tool = registry.get("test__add")
        assert add_tool is not None and add_tool.policy == "deny"

        # Restart
        conn = connection(window, "test")
        assert conn is not None
        starts = conn.starts
        qtbot.mouseClick(form.restart_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: conn.starts == starts + 1 and conn.state == "running",
                        timeout=30000)

        # Switching a tool off for this chat from the composer's menu
        window.composer.tool_actions["test__pid"].trigger()
        assert "test__pid" in window.controller.tool_switches.disabled_tools()
        assert not window.composer.tool_actions["test__pid"].isChecked()
    finally:
        stop_servers(qtbot, window)


def test_the_model_calls_an_mcp_tool_after_approval(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    ctx.settings.update(mcp_servers=[
        {"name": "test", "command": sys.executable, "args": [SERVER, "stdio"]}])
    window = make_window(qtbot, ctx)  # starts the configured servers by itself
    try:
        qtbot.waitUntil(lambda: running(window, "test")
                        and "test__add" in window.composer.tool_actions, timeout=30000)
        fake_server.enqueue_tool_calls([("test__add", json.dumps({"a": 2, "b": 3})),
                                        ("test__echo", json.dumps({"text": "hi"}))],
                                       ids=["add", "echo"])
        fake_server.enqueue_text("2 + 3 = 5")
        start(qtbot, window, "Add 2 and 3")
        card = wait_card(qtbot, window)
        # add is read-only (runs at once); echo asks, naming its server
        assert card.call_id == "echo"
        assert card.source_label.text() == "MCP server “test”"
        assert '"text": "hi"' in card.preview_view.toPlainText()
        finish(qtbot, window, lambda: qtbot.mouseClick(card.allow_once_button,
                                                       Qt.MouseButton.LeftButton))
        cards = window.sidebar.cards
        assert cards["add"].status == "succeeded" and cards["echo"].status == "succeeded"
        assert "5" in cards["add"].meta_label.text()
        assert "echo: hi" in cards["echo"].meta_label.text()
        tools = [m["content"] for m in fake_server.chat_requests[1].json["messages"]
                 if m["role"] == "tool"]
        assert "echo: hi" in tools[1]
    finally:
        stop_servers(qtbot, window)


def test_a_new_server_is_not_called_invalid_before_typing_and_remove_asks(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    dialog = open_dialog(window)
    dialog.add_server()
    text = dialog.server_list.item(0).text()
    assert "invalid" not in text and "new" in text  # nothing typed yet: no error
    qtbot.keyClicks(dialog.form.command_edit, "x")
    dialog.form.command_edit.clear()  # typed, then emptied: now it is an error
    qtbot.waitUntil(lambda: "new —" not in dialog.server_list.item(0).text(), timeout=2000)

    qtbot.mouseClick(dialog.remove_button, Qt.MouseButton.LeftButton)
    box = dialog.remove_box
    assert box is not None
    qtbot.waitUntil(box.isVisible, timeout=2000)
    assert dialog.server_list.count() == 1  # asked, not removed yet
    box.button(box.StandardButton.Cancel).click()
    assert dialog.server_list.count() == 1
    qtbot.mouseClick(dialog.remove_button, Qt.MouseButton.LeftButton)
    box = dialog.remove_box
    assert box is not None
    qtbot.waitUntil(box.isVisible, timeout=2000)
    box.button(box.StandardButton.Yes).click()
    qtbot.waitUntil(lambda: dialog.server_list.count() == 0, timeout=2000)


def test_a_server_with_secrets_reads_as_applied_after_save(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    """Header values live in the secret store (the settings keep placeholders): once
    saved and running, the line does not claim changes are waiting, now or reopened."""
    from tests.tools.mcp_servers import FEATURES, ServerProcess

    plain = ServerProcess(FEATURES, "http")
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    try:
        dialog = open_dialog(window)
        dialog.add_server("http")
        qtbot.keyClicks(dialog.form.url_edit, plain.url())
        dialog.form.headers_edit.setPlainText("X-Team: blue-7781")
        assert dialog.save()
        qtbot.waitUntil(lambda: "running" in dialog.server_list.item(0).text(), timeout=30000)
        assert "not applied" not in dialog.server_list.item(0).toolTip()
        assert ctx.settings_store.load().mcp_servers[0]["headers"]["X-Team"] != "blue-7781"
        dialog.close()
        again = open_dialog(window)
        assert "running" in again.server_list.item(0).text()
        assert "not applied" not in again.server_list.item(0).toolTip()
        again.close()
    finally:
        stop_servers(qtbot, window)
        plain.stop()


def test_the_dialog_needs_only_the_settings_the_tools_and_a_way_to_start_them(
    qtbot: Any, open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    """Built from narrow services (no window, no controller): a removed server is saved
    as gone, announced, and the servers are started again from the settings."""
    ctx = open_ctx()
    ctx.settings.update(mcp_servers=[{"name": "time", "command": "uvx",
                                      "args": ["mcp-server-time"]}])
    started: list[bool] = []
    dialog = McpDialog(ctx.settings, ChatTools(ctx), tmp_path, lambda: started.append(True))
    qtbot.addWidget(dialog)
    assert dialog.server_list.count() == 1
    dialog.remove_current()
    with qtbot.waitSignal(dialog.saved, timeout=1000):
        assert dialog.save()
    assert ctx.settings_store.load().mcp_servers == [] and started == [True]
