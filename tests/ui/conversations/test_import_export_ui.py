"""File → Export chat… / Export all chats… / Import…: a round trip from the window."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtWidgets import QFileDialog, QMessageBox

from desktop.app import AppContext
from desktop.storage.importer import ImportReport
from desktop.ui.conversations.import_export import (
    MARKDOWN_FILTER,
    file_name_for,
    format_for,
    with_suffix,
)
from tests.ui.conversation_helpers import make_chat, make_window, text_message

CHATGPT_SAMPLE = Path(__file__).parents[2] / "storage" / "data" / "chatgpt_conversations.json"


def test_file_names_and_formats() -> None:
    assert file_name_for('a/b: "c"?') == "a b c"
    assert file_name_for("...") == "chat"
    assert format_for("x.md") == "markdown" and format_for("x.JSON") == "json"
    assert format_for("x", MARKDOWN_FILTER) == "markdown" and format_for("x") == "json"
    assert with_suffix("/tmp/x", "markdown") == Path("/tmp/x.md")
    assert with_suffix("/tmp/x.txt", "json") == Path("/tmp/x.txt")


def branched_chat(ctx: AppContext) -> str:
    session_id = make_chat(ctx, "Погода и 天気", "What's the weather?")
    first = text_message("assistant", "Sunny.")
    ctx.sessions.save_message(session_id, first)
    ctx.sessions.start_branch(session_id, first.id)
    ctx.sessions.save_message(session_id, text_message("assistant", "Rainy, take an umbrella."))
    ctx.sessions.set_pinned(session_id, True)
    ctx.sessions.update_session(session_id, system_prompt="Be brief.")
    return session_id


def choose_file(qtbot: Any, io: Any, path: Path) -> None:
    dialog = io.dialog
    assert isinstance(dialog, QFileDialog) and dialog.isVisible()
    dialog.selectFile(str(path))
    dialog.accept()


def test_export_current_then_import_round_trips(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    tmp_path: Path,
) -> None:
    ctx = open_ctx()
    session_id = branched_chat(ctx)
    make_chat(ctx, "Other chat", "not exported")
    window = make_window(qtbot, ctx)
    io = window.conversations.io
    window.controller.open_session(session_id)
    original = ctx.sessions.export_record(session_id).to_json()

    # File → Export chat… (the file dialog opens without blocking; JSON by default)
    target = tmp_path / "out" / "chat.json"
    target.parent.mkdir()
    io.export_current()
    with qtbot.waitSignal(io.finished, timeout=10000) as done:
        choose_file(qtbot, io, target)
    assert str(target) in done.args[0]
    doc = json.loads(target.read_text(encoding="utf-8"))
    assert [s["id"] for s in doc["sessions"]] == [session_id]
    assert "sk-" not in target.read_text(encoding="utf-8")

    # The chat is deleted for good, then imported back from the UI: identical
    ctx.sessions.delete_session(session_id)
    ctx.sessions.purge_deleted(session_id=session_id)
    window.refresh_sessions()
    assert window.sessions.item_for(session_id) is None
    with qtbot.waitSignal(io.imported, timeout=10000) as imported:
        io.start_import(target)
    report = imported.args[0]
    assert isinstance(report, ImportReport) and report.imported == [session_id]
    assert ctx.sessions.export_record(session_id).to_json() == original
    qtbot.waitUntil(lambda: window.sessions.item_for(session_id) is not None)
    assert window.sessions.headers()[0] == "Pinned"
    box = io.message_box
    assert isinstance(box, QMessageBox) and "Imported 1 chat (3 messages)" in box.text()
    box.accept()

    # Importing the same file again adds nothing
    with qtbot.waitSignal(io.imported, timeout=10000) as again:
        io.start_import(target)
    assert again.args[0].imported == [] and "already imported" in again.args[0].summary()


def test_export_all_as_markdown_and_import_chatgpt(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    tmp_path: Path,
) -> None:
    ctx = open_ctx()
    branched_chat(ctx)
    make_chat(ctx, "Other chat", "second one")
    window = make_window(qtbot, ctx)
    io = window.conversations.io
    io.export_all()
    assert io.dialog is not None
    io.dialog.selectNameFilter(MARKDOWN_FILTER)
    io.dialog.filterSelected.emit(MARKDOWN_FILTER)
    with qtbot.waitSignal(io.finished, timeout=10000):
        choose_file(qtbot, io, tmp_path / "all")
    text = (tmp_path / "all.md").read_text(encoding="utf-8")
    assert "Погода и 天気" in text and "Other chat" in text and "umbrella" in text

    sample = tmp_path / "conversations.json"
    shutil.copy(CHATGPT_SAMPLE, sample)
    before = len(ctx.sessions.list_sessions())
    io.import_file()
    with qtbot.waitSignal(io.imported, timeout=10000) as imported:
        choose_file(qtbot, io, sample)
    report = imported.args[0]
    assert report.source == "chatgpt" and report.imported
    shown = len(ctx.sessions.list_sessions())  # archived ChatGPT chats go to Archived
    assert shown > before
    qtbot.waitUntil(lambda: window.sessions.list.count() == shown)


def test_errors_are_one_line(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    tmp_path: Path,
) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    io = window.conversations.io
    with qtbot.waitSignal(io.failed) as no_chat:
        io.export_current()  # no chat open
    assert "Open a chat" in no_chat.args[0]
    bad = tmp_path / "notes.json"
    bad.write_text("this is not json", encoding="utf-8")
    with qtbot.waitSignal(io.failed, timeout=10000) as failed:
        io.start_import(bad)
    assert failed.args[0].startswith("Import of notes.json failed:")
    assert "\n" not in failed.args[0]
    assert window.chat_pane.error_banner.isVisible()
