"""The tool panel's "Undo this turn's changes": after a turn in which the assistant
wrote files (a real loopback model, a real workspace), the button shows; undoing puts
the files back and says so; a file changed since makes it refuse and touch nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync

from desktop.app import AppContext
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window, send


def window_writing(qtbot: Any, open_ctx: Callable[..., AppContext],
                   server: FakeOpenAIServer, ws: Path) -> MainWindow:
    ctx = open_ctx()
    add_provider(ctx, server)
    ctx.settings.update(tool_policies={"write_file": "allow"})
    window = make_window(qtbot, ctx)
    window.controller.set_workspace(str(ws))
    server.enqueue_tool_calls([
        ("write_file", json.dumps({"path": "notes.txt", "content": "rewritten\n"})),
        ("write_file", json.dumps({"path": "new/file.txt", "content": "created\n"}))])
    server.enqueue_text("Done.")
    send(qtbot, window, "Change the notes")
    return window


def test_undo_puts_the_files_back(qtbot: Any, qt_loop: qasync.QEventLoop,
                                  fake_server: FakeOpenAIServer,
                                  open_ctx: Callable[..., AppContext], tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("original\n")
    window = window_writing(qtbot, open_ctx, fake_server, ws)
    bar = window.tool_activity.undo_bar
    qtbot.waitUntil(lambda: bar.button.isVisibleTo(window), timeout=10000)
    assert (ws / "notes.txt").read_text() == "rewritten\n"
    sid = window.controller.session_id
    assert sid is not None
    bar.run_undo(sid)
    assert (ws / "notes.txt").read_text() == "original\n"
    assert not (ws / "new" / "file.txt").exists()
    text = bar.result.text()
    assert "restored: " in text and "deleted: " in text and "notes.txt" in text
    assert not bar.button.isVisibleTo(window)  # nothing left to undo


def test_undo_refuses_when_a_file_changed(qtbot: Any, qt_loop: qasync.QEventLoop,
                                          fake_server: FakeOpenAIServer,
                                          open_ctx: Callable[..., AppContext],
                                          tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("original\n")
    window = window_writing(qtbot, open_ctx, fake_server, ws)
    bar = window.tool_activity.undo_bar
    qtbot.waitUntil(lambda: bar.button.isVisibleTo(window), timeout=10000)
    (ws / "notes.txt").write_text("my own edit\n")
    sid = window.controller.session_id
    assert sid is not None
    bar.run_undo(sid)
    assert "Nothing was undone" in bar.result.text()
    assert "changed since" in bar.result.text()
    assert (ws / "notes.txt").read_text() == "my own edit\n"
    assert (ws / "new" / "file.txt").read_text() == "created\n"


def test_undo_of_a_turn_that_wrote_a_file_then_ran_a_command_on_it(
        qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
        open_ctx: Callable[..., AppContext], tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("original\n")
    (ws / "old.txt").write_text("removed by the command\n")
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    ctx.settings.update(tool_policies={"write_file": "allow", "run_command": "allow"})
    window = make_window(qtbot, ctx)
    window.controller.set_workspace(str(ws))
    fake_server.enqueue_tool_calls([
        ("write_file", json.dumps({"path": "notes.txt", "content": "rewritten\n"}))])
    fake_server.enqueue_tool_calls([("run_command", json.dumps(
        {"command": "echo appended >> notes.txt; rm old.txt; echo made > made.txt"}))])
    fake_server.enqueue_text("Done.")
    send(qtbot, window, "Change the notes, then run a command")
    bar = window.tool_activity.undo_bar
    qtbot.waitUntil(lambda: bar.button.isVisibleTo(window), timeout=20000)
    assert (ws / "notes.txt").read_text() == "rewritten\nappended\n"
    sid = window.controller.session_id
    assert sid is not None
    bar.run_undo(sid)
    assert (ws / "notes.txt").read_text() == "original\n"
    assert (ws / "old.txt").read_text() == "removed by the command\n"
    assert sorted(p.name for p in ws.iterdir()) == ["notes.txt", "old.txt"]
    assert "restored: " in bar.result.text() and "made.txt" in bar.result.text()
