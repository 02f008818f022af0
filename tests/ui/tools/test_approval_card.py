"""Approvals in the window: the model asks for an edit, the sidebar shows the diff, and
each choice does what it says (against a real loopback server and a real workspace)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QMenu, QTableWidget, QTableWidgetItem

from desktop.app import AppContext
from desktop.tools.approval import ApprovalDecision
from desktop.tools.grants import JsonGrantStore
from desktop.ui.tools.approval_card import ApprovalCard
from desktop.ui.tools.tools_dialog import ToolsDialog
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.window.test_main_window import add_provider, make_window

ORIGINAL = "alpha\nbeta\n"
EDIT = json.dumps({"path": "notes.txt", "old_string": "beta", "new_string": "gamma"})


def setup(qtbot: Any, open_ctx: Callable[..., AppContext], server: FakeOpenAIServer,
          tmp_path: Path) -> tuple[MainWindow, Path]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    notes = workspace / "notes.txt"
    notes.write_text(ORIGINAL)
    ctx = open_ctx()
    add_provider(ctx, server)
    window = make_window(qtbot, ctx)
    window.controller.set_workspace(str(workspace))
    return window, notes


def start(qtbot: Any, window: MainWindow, text: str) -> None:
    window.composer.input.setFocus()
    qtbot.keyClicks(window.composer.input, text)
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)


def wait_card(qtbot: Any, window: MainWindow, count: int = 1) -> ApprovalCard:
    qtbot.waitUntil(lambda: len(window.sidebar.approval_cards) >= count, timeout=10000)
    return next(iter(window.sidebar.approval_cards.values()))


def finish(qtbot: Any, window: MainWindow, click: Callable[[], None]) -> None:
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        click()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)


def cell(table: QTableWidget, row: int, column: int) -> QTableWidgetItem:
    item = table.item(row, column)
    assert item is not None
    return item


def tool_message(server: FakeOpenAIServer, request: int = 1) -> str:
    messages = server.chat_requests[request].json["messages"]
    return str([m for m in messages if m["role"] == "tool"][-1]["content"])


def test_allow_once_shows_the_diff_first_and_runs_only_after_the_click(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    window, notes = setup(qtbot, open_ctx, fake_server, tmp_path)
    fake_server.enqueue_tool_calls([("edit_file", EDIT)])
    fake_server.enqueue_text("Changed beta to gamma.")
    start(qtbot, window, "Replace beta")
    card = wait_card(qtbot, window)

    assert card.request.tool == "edit_file"
    assert card.source_label.text() == "built-in tool"
    preview = card.preview_view.toPlainText()
    assert "-beta" in preview and "+gamma" in preview
    assert "background-color" in card.preview_view.toHtml()  # coloured diff lines
    assert card.arguments_view is not None and "old_string" in card.arguments_view.toPlainText()
    # Nothing ran while waiting, and the model was not asked again
    assert notes.read_text() == ORIGINAL
    assert len(fake_server.chat_requests) == 1
    call_card = window.sidebar.cards["call_00test"]
    assert call_card.status == "awaiting_approval"
    assert "waiting for approval" in call_card.status_label.text()

    finish(qtbot, window, lambda: qtbot.mouseClick(card.allow_once_button,
                                                   Qt.MouseButton.LeftButton))
    assert notes.read_text() == "alpha\ngamma\n"
    assert window.sidebar.approval_cards == {}
    assert call_card.status == "succeeded"
    assert '"status":"success"' in tool_message(fake_server)
    assert not window.controller.ctx.grants.has("edit_file")
    # Allow once means once: the next edit asks again
    fake_server.enqueue_tool_calls([("edit_file", EDIT.replace("beta", "alpha").replace(
        "gamma", "delta"))], ids=["call_second"])
    fake_server.enqueue_text("ok")
    start(qtbot, window, "And alpha")
    again = wait_card(qtbot, window)
    assert again.call_id == "call_second"
    finish(qtbot, window, lambda: again.decide(ApprovalDecision.deny()))


def test_deny_sends_the_reason_to_the_model_and_changes_nothing(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    window, notes = setup(qtbot, open_ctx, fake_server, tmp_path)
    fake_server.enqueue_tool_calls([("edit_file", EDIT)])
    fake_server.enqueue_text("Understood, I left it.")
    start(qtbot, window, "Replace beta")
    card = wait_card(qtbot, window)
    qtbot.keyClicks(card.reason_edit, "beta is a name, keep it")
    finish(qtbot, window, lambda: qtbot.mouseClick(card.deny_button, Qt.MouseButton.LeftButton))
    assert notes.read_text() == ORIGINAL
    content = tool_message(fake_server)
    assert '"status":"denied"' in content and "beta is a name, keep it" in content
    assert window.sidebar.cards["call_00test"].status == "denied"
    assert "⊘ denied" in window.sidebar.cards["call_00test"].status_label.text()


def test_enter_in_the_reason_field_denies(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    window, notes = setup(qtbot, open_ctx, fake_server, tmp_path)
    fake_server.enqueue_tool_calls([("edit_file", EDIT)])
    fake_server.enqueue_text("ok")
    start(qtbot, window, "Replace beta")
    card = wait_card(qtbot, window)
    assert card.allow_once_button.text() == "Allow &once"  # Alt+O on the first card
    card.reason_edit.setFocus()
    qtbot.keyClicks(card.reason_edit, "no")
    finish(qtbot, window, lambda: qtbot.keyClick(card.reason_edit, Qt.Key.Key_Return))
    assert notes.read_text() == ORIGINAL
    assert '"reason":"no"' in tool_message(fake_server)


def test_always_allow_persists_and_revoking_asks_again(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    window, notes = setup(qtbot, open_ctx, fake_server, tmp_path)
    ctx = window.controller.ctx
    asked: list[object] = []
    window.controller.bridge.approvalRequested.connect(asked.append)
    fake_server.enqueue_tool_calls([("edit_file", EDIT)], ids=["call_1"])
    fake_server.enqueue_text("done")
    start(qtbot, window, "Replace beta")
    card = wait_card(qtbot, window)
    finish(qtbot, window, lambda: qtbot.mouseClick(card.allow_always_button,
                                                   Qt.MouseButton.LeftButton))
    assert notes.read_text() == "alpha\ngamma\n"
    # (a file at the workspace root: the grant is for that file, not "*")
    assert not ctx.grants.has("edit_file")
    assert [(g.tool, g.scope) for g in JsonGrantStore(ctx.grants.path).list()] == [
        ("edit_file", "notes.txt")]

    # A second call runs without asking
    second = json.dumps({"path": "notes.txt", "old_string": "alpha", "new_string": "omega"})
    fake_server.enqueue_tool_calls([("edit_file", second)], ids=["call_2"])
    fake_server.enqueue_text("done again")
    start(qtbot, window, "Replace alpha")
    qtbot.waitUntil(lambda: not window.controller.busy and len(fake_server.chat_requests) == 4,
                    timeout=10000)
    assert notes.read_text() == "omega\ngamma\n"
    assert len(asked) == 1
    assert window.sidebar.cards["call_2"].status == "succeeded"

    # Settings → Tools lists the grant; Revoke makes it ask again
    dialog = window.dialogs.open("tools")
    assert isinstance(dialog, ToolsDialog) and dialog.isVisible()
    assert dialog.grants_table.rowCount() == 1
    assert cell(dialog.grants_table, 0, 0).text() == "Edit file"  # (its name for people)
    assert cell(dialog.grants_table, 0, 1).text() == "notes.txt"
    qtbot.mouseClick(dialog.revoke_buttons["edit_file notes.txt"], Qt.MouseButton.LeftButton)
    assert JsonGrantStore(ctx.grants.path).list() == []
    assert dialog.grants_table.rowCount() == 0 and dialog.no_grants.isVisibleTo(dialog)
    dialog.reject()

    third = json.dumps({"path": "notes.txt", "old_string": "omega", "new_string": "zeta"})
    fake_server.enqueue_tool_calls([("edit_file", third)], ids=["call_3"])
    fake_server.enqueue_text("asked")
    start(qtbot, window, "Replace omega")
    card = wait_card(qtbot, window)
    assert card.call_id == "call_3"
    assert notes.read_text() == "omega\ngamma\n"
    finish(qtbot, window, lambda: qtbot.mouseClick(card.deny_button, Qt.MouseButton.LeftButton))
    assert notes.read_text() == "omega\ngamma\n"


def test_allow_for_this_chat_only(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    window, notes = setup(qtbot, open_ctx, fake_server, tmp_path)
    asked: list[object] = []
    window.controller.bridge.approvalRequested.connect(asked.append)
    fake_server.enqueue_tool_calls([("edit_file", EDIT)], ids=["call_1"])
    fake_server.enqueue_text("done")
    start(qtbot, window, "Replace beta")
    card = wait_card(qtbot, window)
    finish(qtbot, window, lambda: qtbot.mouseClick(card.allow_chat_button,
                                                   Qt.MouseButton.LeftButton))
    assert not window.controller.ctx.grants.has("edit_file")
    second = json.dumps({"path": "notes.txt", "old_string": "alpha", "new_string": "omega"})
    fake_server.enqueue_tool_calls([("edit_file", second)], ids=["call_2"])
    fake_server.enqueue_text("done again")
    start(qtbot, window, "Replace alpha")
    qtbot.waitUntil(lambda: not window.controller.busy and len(fake_server.chat_requests) == 4,
                    timeout=10000)
    assert notes.read_text() == "omega\ngamma\n" and len(asked) == 1
    # A new chat asks again
    window.controller.new_session()
    third = json.dumps({"path": "notes.txt", "old_string": "omega", "new_string": "zeta"})
    fake_server.enqueue_tool_calls([("edit_file", third)], ids=["call_3"])
    fake_server.enqueue_text("asked")
    start(qtbot, window, "Replace omega")
    card = wait_card(qtbot, window)
    finish(qtbot, window, lambda: qtbot.mouseClick(card.deny_button, Qt.MouseButton.LeftButton))
    assert len(asked) == 2 and notes.read_text() == "omega\ngamma\n"


def test_stop_while_waiting_closes_the_card(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    window, notes = setup(qtbot, open_ctx, fake_server, tmp_path)
    fake_server.enqueue_tool_calls([("edit_file", EDIT)])
    start(qtbot, window, "Replace beta")
    wait_card(qtbot, window)
    assert window.composer.send_button.text() == "Stop"
    finish(qtbot, window, lambda: qtbot.mouseClick(window.composer.send_button,
                                                   Qt.MouseButton.LeftButton))
    assert window.sidebar.approval_cards == {}
    assert not window.sidebar.approvals_area.isVisibleTo(window.sidebar)
    assert notes.read_text() == ORIGINAL
    assert window.sidebar.cards["call_00test"].status in ("cancelled", "denied")
    assert len(fake_server.chat_requests) == 1


def test_the_sidebar_opens_itself_for_an_approval(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    window, _notes = setup(qtbot, open_ctx, fake_server, tmp_path)
    window.top_bar.sidebar_button.setChecked(False)
    assert not window.sidebar.isVisible()
    fake_server.enqueue_tool_calls([("edit_file", EDIT)])
    fake_server.enqueue_text("ok")
    start(qtbot, window, "Replace beta")
    card = wait_card(qtbot, window)
    assert window.sidebar.isVisible() and window.top_bar.sidebar_button.isChecked()
    assert window.splitter.sizes()[2] >= 200
    assert card.isVisible()
    finish(qtbot, window, card.allow_once_button.click)


def test_parallel_approvals_stack_and_close_one_by_one(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    window, notes = setup(qtbot, open_ctx, fake_server, tmp_path)
    other = notes.with_name("other.txt")
    other.write_text("one\n")
    create = json.dumps({"path": "new.txt", "content": "fresh\n"})
    fake_server.enqueue_tool_calls([("edit_file", EDIT), ("create_file", create)],
                                   ids=["call_edit", "call_create"])
    fake_server.enqueue_text("ok")
    start(qtbot, window, "Do both")
    wait_card(qtbot, window, count=2)
    cards = window.sidebar.approval_cards
    assert list(cards) == ["call_edit", "call_create"]
    assert cards["call_edit"].deny_button.text() == "&Deny"
    assert cards["call_create"].deny_button.text() == "Deny"  # no ambiguous shortcuts
    assert "+fresh" in cards["call_create"].preview_view.toPlainText()
    qtbot.mouseClick(cards["call_edit"].deny_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: list(window.sidebar.approval_cards) == ["call_create"],
                    timeout=10000)
    assert window.sidebar.approval_cards["call_create"].deny_button.text() == "&Deny"
    assert not (notes.parent / "new.txt").exists()
    last = window.sidebar.approval_cards["call_create"]
    finish(qtbot, window, lambda: qtbot.mouseClick(last.allow_once_button,
                                                   Qt.MouseButton.LeftButton))
    assert (notes.parent / "new.txt").read_text() == "fresh\n"
    assert notes.read_text() == ORIGINAL
    assert [window.sidebar.cards[c].status for c in ("call_edit", "call_create")] == [
        "denied", "succeeded"]


def test_keyboard_shortcuts_reach_the_approval(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    window, notes = setup(qtbot, open_ctx, fake_server, tmp_path)
    menus = [a.text() for menu in window.menuBar().findChildren(QMenu)
             for a in menu.actions()]
    assert {"&Tools…", "&MCP servers…", "Go to pending &approval"} <= set(menus)
    fake_server.enqueue_tool_calls([("edit_file", EDIT)])
    fake_server.enqueue_text("ok")
    start(qtbot, window, "Replace beta")
    card = wait_card(qtbot, window)
    focused = QApplication.focusWidget()
    assert focused is None or not card.isAncestorOf(focused)  # no stolen keystrokes
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=5000)
    qtbot.keyClick(window, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier
                   | Qt.KeyboardModifier.ShiftModifier)
    assert card.allow_once_button.hasFocus()
    window.composer.input.setFocus()
    # Alt+O is "Allow once" on the first card, wherever the focus is in the window
    finish(qtbot, window, lambda: qtbot.keyClick(window.composer.input, Qt.Key.Key_O,
                                                 Qt.KeyboardModifier.AltModifier))
    assert notes.read_text() == "alpha\ngamma\n"


def test_command_url_and_argument_previews(qtbot: Any, qt_loop: qasync.QEventLoop) -> None:
    from desktop.chat.approvals import PendingApproval
    from desktop.tools.approval import ApprovalPreview, ApprovalRequest

    def card_for(request: ApprovalRequest) -> tuple[ApprovalCard, PendingApproval]:
        pending = PendingApproval(request, qt_loop.create_future())
        card = ApprovalCard(pending)
        qtbot.addWidget(card)
        return card, pending

    command, pending = card_for(ApprovalRequest(
        tool="run_command", call_id="c1", arguments={"command": "pytest -q", "timeout_s": 30},
        preview=ApprovalPreview("command", "pytest -q", "Run a command")))
    assert command.preview_view.toPlainText() == "$ pytest -q"
    toggle, view = command.arguments_toggle, command.arguments_view
    assert toggle is not None and view is not None
    assert toggle.isChecked() and '"timeout_s": 30' in view.toPlainText()  # extra args shown
    qtbot.mouseClick(command.allow_chat_button, Qt.MouseButton.LeftButton)
    assert pending.done and pending._future.result() == ApprovalDecision.allow_chat()
    assert not command.deny_button.isEnabled()
    assert command.outcome_label.text() == "Allowed for this chat …"
    command.decide(ApprovalDecision.deny())  # a second answer is ignored
    assert pending._future.result() == ApprovalDecision.allow_chat()

    url, _ = card_for(ApprovalRequest(
        tool="fetch_url", call_id="c2", arguments={"url": "https://example.com/a?b=1"},
        preview=ApprovalPreview("url", "https://example.com/a?b=1", "Fetch example.com",
                                error="No preview: offline")))
    assert url.preview_view.toPlainText() == "https://example.com/a?b=1"
    assert url.arguments_toggle is not None and not url.arguments_toggle.isChecked()
    assert any(label.text() == "No preview: offline" for label in url.findChildren(QLabel))

    mcp, _ = card_for(ApprovalRequest(
        tool="github__create_issue", call_id="c3", source="github",
        arguments={"title": "Bug", "labels": ["ui"]},
        preview=ApprovalPreview.arguments({"title": "Bug", "labels": ["ui"]}, "github: x")))
    assert mcp.source_label.text() == "MCP server “github”"
    assert mcp.arguments_toggle is None  # the preview is the arguments
    assert '"title": "Bug"' in mcp.preview_view.toPlainText()


def test_always_allow_grants_only_the_scope_it_shows(
        qtbot: Any, qt_loop: qasync.QEventLoop) -> None:
    """With the scope box empty (and red), Always allow granted every command in every
    chat. Now it grants exactly the scope shown, and is disabled, with the reason, when
    there is none."""
    from desktop.chat.approvals import PendingApproval
    from desktop.tools.approval import ApprovalPreview, ApprovalRequest
    from desktop.tools.grant_scopes import proposed_scope

    def card_for(tool: str, args: dict[str, str], kind: str = "command"
                 ) -> tuple[ApprovalCard, PendingApproval]:
        text = args.get("command") or args.get("path") or ""
        request = ApprovalRequest(
            tool=tool, call_id="c1", arguments=args,
            preview=ApprovalPreview(kind, text),  # type: ignore[arg-type]
            proposed_scope=proposed_scope(tool, args), always_needs_scope=True)
        pending = PendingApproval(request, qt_loop.create_future())
        card = ApprovalCard(pending)
        qtbot.addWidget(card)
        return card, pending

    shell, pending = card_for("run_command", {"command": "ls; rm -rf build"})
    row = shell.scope_row
    assert row is not None and row.scope() == ""
    assert row.edit.property("invalid") is True
    assert not shell.allow_always_button.isEnabled()
    assert "shell syntax" in shell.allow_always_button.toolTip()  # (why the call has none)
    assert "cannot be always allowed" in row.meaning.text()
    shell.allow_always_button.click()
    qtbot.keyClick(row.edit, Qt.Key.Key_Return)
    assert not pending.done  # nothing granted, nothing decided
    qtbot.keyClicks(row.edit, "ls; rm -rf build")
    assert not shell.allow_always_button.isEnabled()
    assert "shell syntax" in shell.allow_always_button.toolTip()

    sed, pending = card_for("run_command", {"command": "sed -n 1p a.txt"})
    row = sed.scope_row
    assert row is not None and row.edit.text() == "sed"
    assert sed.allow_always_button.isEnabled()
    assert "“sed” runs without asking" in row.meaning.text()
    assert "read-only options" in sed.allow_always_button.toolTip()
    row.edit.clear()
    assert not sed.allow_always_button.isEnabled()
    qtbot.keyClicks(row.edit, "npm test")
    assert "Exactly the command “npm test”" in row.meaning.text()
    qtbot.mouseClick(sed.allow_always_button, Qt.MouseButton.LeftButton)
    assert pending.done
    assert pending._future.result() == ApprovalDecision.allow_always("npm test")
    assert sed.outcome_label.text() == "Always allowed within npm test …"

    root_file, _ = card_for("edit_file", {"path": "README.md"}, "diff")
    assert root_file.scope_row is not None
    assert root_file.scope_row.edit.text() == "README.md"  # not "*"
    assert root_file.scope_row.caption.text() == "Always allow for paths matching"
    git, _ = card_for("write_file", {"path": ".git/config"}, "diff")
    assert git.scope_row is not None and not git.allow_always_button.isEnabled()
    qtbot.keyClicks(git.scope_row.edit, ".git/*")
    assert not git.allow_always_button.isEnabled()
    assert ".git" in git.allow_always_button.toolTip()
