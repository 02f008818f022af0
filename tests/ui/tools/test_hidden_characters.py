"""Issue 31: bidi controls and invisible characters in what a model or a server writes
(a path, a command, a tool name, arguments) are shown as <U+202E>, never obeyed:
"\\u202etxt.exe" must not read "exe.txt", nor "read\\u202efdp.exe" "readexe.pdf"."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from typing import Any

import qasync

from desktop.app import AppContext
from desktop.chat.approvals import PendingApproval
from desktop.core.messages import ToolCallPart, ToolResultPart
from desktop.core.terminal_text import visible
from desktop.tools.approval import ApprovalPreview, ApprovalRequest
from desktop.ui.chat.turn_status import TurnStatus
from desktop.ui.plain_text import shown, shown_html
from desktop.ui.tools.approval_card import ApprovalCard
from desktop.ui.tools.tool_card import ToolCallCard
from tests.ui.conversation_helpers import make_window
from tests.ui.tools.test_approval_card import cell
from tests.ui.tools.test_mcp_dialog import SERVER, open_dialog, running, stop_servers

HIDDEN = "\u202e\u200b\u2066\u061c\ufeff\u00ad"


def test_one_function_reveals_them_for_the_terminal_and_the_window() -> None:
    assert visible("\u202etxt.exe") == "\\u202etxt.exe"  # the CLI, as before
    assert shown("\u202etxt.exe") == "<U+202E>txt.exe"
    assert shown("a\nb") == "a<U+000A>b" and shown("a\nb", lines=True) == "a\nb"
    assert all(c not in shown(f"x{HIDDEN}y") for c in HIDDEN)
    assert shown("Read file · naïve 文件 🙂") == "Read file · naïve 文件 🙂"  # nothing else
    styled = shown_html("&lt;\u202e")
    assert styled.startswith("&lt;<span style=") and "&lt;U+202E&gt;</span>" in styled


def test_the_approval_card_shows_a_reversed_path_as_it_is(
    qtbot: Any, qt_loop: qasync.QEventLoop,
) -> None:
    path = "\u202etxt.exe"
    diff = f"--- /dev/null\n+++ {path}\n@@ -0,0 +1 @@\n+MZ\n"
    request = ApprovalRequest("create_file", "c1", {"path": path, "content": "MZ"},
                              ApprovalPreview("diff", diff, f"Create {path}"))
    card = ApprovalCard(PendingApproval(request, qt_loop.create_future(), "s1", "chat\u200b"))
    qtbot.addWidget(card)
    texts = [card.tool_label.text(), card.chat_button.text(), card.accessibleDescription(),
             card.preview_view.toPlainText()]
    assert card.tool_label.text() == "Create file"
    assert card.accessibleDescription() == "Create <U+202E>txt.exe"
    assert "+++ <U+202E>txt.exe" in card.preview_view.toPlainText()
    assert card.arguments_view is not None
    assert "<U+202E>txt.exe" in card.arguments_view.toPlainText()
    assert "chat<U+200B>" in card.chat_button.text()
    assert not any("\u202e" in t or "\u200b" in t for t in texts)


def test_commands_hosts_and_mcp_names_in_cards_and_the_inline_row(
    qtbot: Any, qt_loop: qasync.QEventLoop,
) -> None:
    command = ApprovalRequest("run_command", "c1", {"command": "rm -rf \u2066/ \u2069#"},
                              ApprovalPreview("command", "rm -rf \u2066/ \u2069#", "Run a command"))
    mcp = ApprovalRequest("srv__read_fdp_exe", "c2", {"file": "a\u200bb"},
                          ApprovalPreview.arguments({"file": "a\u200bb"},
                                                    title="srv\u200b: read\u202efdp.exe"),
                          source="srv\u200b")
    for request in (command, mcp):
        card = ApprovalCard(PendingApproval(request, qt_loop.create_future()))
        qtbot.addWidget(card)
        shown_texts = [card.preview_view.toPlainText(), card.source_label.text(),
                       card.accessibleDescription(), card.tool_label.text()]
        assert not any(c in t for t in shown_texts for c in HIDDEN), shown_texts
    assert "rm -rf <U+2066>/ <U+2069>#" in ApprovalCard(
        PendingApproval(command, qt_loop.create_future())).preview_view.toPlainText()
    assert card.accessibleDescription() == "srv<U+200B>: read<U+202E>fdp.exe"
    assert card.tool_label.text() == "srv__read_fdp_exe"  # an MCP tool keeps its name
    assert card.source_label.text() == "MCP server “srv<U+200B>”"
    status = TurnStatus()
    qtbot.addWidget(status)
    status.show_approval(PendingApproval(command, qt_loop.create_future()))
    status.show_approval(PendingApproval(mcp, qt_loop.create_future()))
    assert "rm -rf <U+2066>/ <U+2069>#" in status.label.text()
    assert status.more_rows[0].label.text().endswith(
        "srv__read_fdp_exe · srv<U+200B>: read<U+202E>fdp.exe")
    # the Tool activity card of a call whose name hides a zero-width space
    call = ToolCallCard(ToolCallPart(id="c3", name="re\u200bad", arguments='{"p": "\u202ex"}'),
                        "m1")
    qtbot.addWidget(call)
    call.finish(ToolResultPart(tool_call_id="c3", name="re\u200bad", content='"\u202eok"'))
    call.expand.setChecked(True)
    texts = [call.name_label.text(), call.args_label.text(), call.meta_label.text(),
             call.details.toPlainText()]
    assert call.name_label.text() == "re<U+200B>ad" and "<U+202E>x" in call.args_label.text()
    assert "<U+202E>ok" in call.meta_label.text() and "<U+202E>x" in call.details.toPlainText()
    assert not any(c in t for t in texts for c in HIDDEN)


def test_the_mcp_dialog_lists_a_backwards_tool_name_as_it_is(
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
        form.env_edit.setPlainText("MCP_TEST_BIDI_TOOL=1")
        assert dialog.save()
        qtbot.waitUntil(lambda: running(window, "test"), timeout=30000)
        qtbot.waitUntil(lambda: form.tools_table.rowCount() == 10, timeout=10000)
        names = [cell(form.tools_table, r, 0).text() for r in range(form.tools_table.rowCount())]
        assert "read<U+202E>fdp.exe" in names
        assert not any("\u202e" in n for n in names)
    finally:
        stop_servers(qtbot, window)


def test_a_servers_question_shows_them_and_answers_with_the_values_sent(
    qtbot: Any, qt_loop: qasync.QEventLoop,
) -> None:
    from PySide6.QtWidgets import QComboBox, QLabel

    from desktop.chat.server_questions import PendingQuestion
    from desktop.tools.mcp.server_requests import ElicitationAnswer, ElicitationRequest
    from desktop.ui.tools.server_question_card import ServerQuestionCard

    schema = {"type": "object", "properties": {
        "file": {"type": "string", "enum": ["a.txt", "\u202etxt.exe"], "default": "\u202etxt.exe"}}}
    request = ElicitationRequest("srv\u200b", "Open \u202etxt.exe?", schema)
    question = PendingQuestion("q1", "elicitation", request, "chat-1", "My chat",
                               _future=qt_loop.create_future())
    card = ServerQuestionCard(question)
    qtbot.addWidget(card)
    texts = [label.text() for label in card.findChildren(QLabel)]
    assert "Open <U+202E>txt.exe?" in texts and "MCP server srv<U+200B> asks" in texts
    combo = card.fields["file"]
    assert isinstance(combo, QComboBox) and combo.currentText() == "<U+202E>txt.exe"
    card.submit()
    assert question._future.result() == ElicitationAnswer("accept", {"file": "\u202etxt.exe"})
