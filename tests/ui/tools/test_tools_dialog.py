"""Settings → Tools: policies with their defaults, built-ins on/off, grants and revoking."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import Qt

from desktop.app import AppContext
from desktop.chat.chat_tools import ChatTools
from desktop.core.settings import ProviderConfig
from desktop.tools.approval import ChatGrants
from desktop.ui.tools.tools_dialog import ToolsDialog
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.tools.test_approval_card import cell
from tests.ui.window.test_main_window import add_provider, make_window, send


def open_dialog(window: MainWindow) -> ToolsDialog:
    dialog = window.dialogs.open("tools")
    assert isinstance(dialog, ToolsDialog) and dialog.isVisible()
    return dialog


def row_of(dialog: ToolsDialog, name: str) -> int:
    for row in range(dialog.table.rowCount()):
        if cell(dialog.table, row, 0).data(Qt.ItemDataRole.UserRole) == name:
            return row
    raise AssertionError(name)


def test_policies_defaults_and_switches_are_saved_and_used(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    window.controller.set_workspace(str(tmp_path))
    dialog = open_dialog(window)
    defaults = {name: combo.currentText() for name, combo in dialog.policy_combos.items()}
    assert defaults == {
        "read_file": "Default (Allow)", "list_directory": "Default (Allow)",
        "search_files": "Default (Allow)", "write_file": "Default (Ask)",
        "create_file": "Default (Ask)", "edit_file": "Default (Ask)",
        "run_command": "Default (Ask)", "fetch_url": "Default (Ask)",
    }
    assert cell(dialog.table, row_of(dialog, "read_file"), 1).text() == "built-in"
    assert dialog.no_grants.isVisibleTo(dialog)
    dialog.set_policy("run_command", "deny")
    dialog.set_policy("edit_file", "allow")
    dialog.on_items["fetch_url"].setCheckState(Qt.CheckState.Unchecked)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    settings = ctx.settings_store.load()
    assert settings.tool_policies == {"run_command": "deny", "edit_file": "allow"}
    assert "fetch_url" not in settings.enabled_tools and "read_file" in settings.enabled_tools
    assert "fetch_url" not in window.composer.tool_actions
    assert "run_command" in window.composer.tool_actions

    # Reopened, the dialog shows the saved choices; Deny keeps the tool from the model
    dialog = open_dialog(window)
    assert dialog.policy_combos["run_command"].currentText() == "Deny"
    assert dialog.on_items["fetch_url"].checkState() == Qt.CheckState.Unchecked
    dialog.reject()
    fake_server.enqueue_text("hello")
    send(qtbot, window, "hi")
    offered = {t["function"]["name"] for t in fake_server.chat_requests[0].json["tools"]}
    assert "run_command" not in offered and "fetch_url" not in offered
    assert {"read_file", "edit_file"} <= offered

    # Back to the default
    dialog = open_dialog(window)
    dialog.set_policy("run_command", None)
    dialog.save()
    assert ctx.settings_store.load().tool_policies == {"edit_file": "allow"}


def test_grants_listed_revoked_and_chat_grants_forgotten(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    ctx.grants.add("run_command", scope="git log")
    ctx.grants.add("github__create_issue", source="github")
    window = make_window(qtbot, ctx)
    window.controller.tool_switches.chat_grants().add("write_file")
    dialog = open_dialog(window)
    assert dialog.grants_table.rowCount() == 2
    assert cell(dialog.grants_table, 1, 1).text() == "All calls"
    assert cell(dialog.grants_table, 1, 2).text() == "MCP: github"
    assert dialog.chat_label.text() == "Allowed for this chat: Write file"
    qtbot.mouseClick(dialog.revoke_buttons["run_command git log"], Qt.MouseButton.LeftButton)
    assert [g.tool for g in ctx.grants.list()] == ["github__create_issue"]
    assert "Run command will ask again" in dialog.message.text()
    assert dialog.grants_table.rowCount() == 1
    qtbot.mouseClick(dialog.forget_button, Qt.MouseButton.LeftButton)
    assert "write_file" not in window.controller.tool_switches.chat_grants()
    assert not dialog.forget_button.isVisibleTo(dialog)
    # Revoking is immediate: Cancel does not bring the grant back
    dialog.reject()
    assert not ctx.grants.has("run_command")
    assert json.loads(ctx.grants.path.read_text())["grants"][0]["tool"] == (
        "github__create_issue")


def test_scoped_grants_and_what_tools_may_reach(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    ctx.grants.add("run_command", scope="git status")
    ctx.grants.add("run_command", scope="npm test")
    window = make_window(qtbot, ctx)
    dialog = open_dialog(window)
    scopes = {cell(dialog.grants_table, r, 1).text() for r in range(2)}
    assert scopes == {"git status", "npm test"}
    qtbot.mouseClick(dialog.revoke_buttons["run_command git status"],
                     Qt.MouseButton.LeftButton)
    assert [(g.tool, g.scope) for g in ctx.grants.list()] == [("run_command", "npm test")]
    fields = dialog.trust_fields
    fields.hosts_edit.setText("127.0.0.1, nas.local  .corp.example,10.0.0.0/8, http://x/")
    fields.env_edit.setText("JAVA_HOME NODE_*")
    dialog.save()
    assert dialog.isVisible() and "http://x/" in fields.error.text()
    assert ctx.settings.current.fetch_allow_hosts == []
    fields.hosts_edit.setText("127.0.0.1, nas.local  .corp.example,10.0.0.0/8")
    fields.env_edit.setText("JAVA_HOME NODE_* 1BAD")
    dialog.save()
    assert "1BAD" in fields.error.text()
    fields.env_edit.setText("JAVA_HOME, NODE_*")
    dialog.save()
    assert not dialog.isVisible()
    saved = ctx.settings.current
    assert saved.fetch_allow_hosts == ["127.0.0.1", "nas.local", ".corp.example", "10.0.0.0/8"]
    assert saved.command_env == ["JAVA_HOME", "NODE_*"]
    again = open_dialog(window)
    assert again.trust_fields.hosts_edit.text().startswith("127.0.0.1, nas.local")


def test_composer_menu_switches_tools_for_this_chat(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    config = add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    composer = window.composer
    # Without a workspace only fetch_url is offered, and the menu says why
    assert list(composer.tool_actions) == ["fetch_url"]
    assert composer.tools_button.text() == "tools: 1 on ▾"
    notes = [a.text() for a in composer.tools_menu.actions() if not a.isEnabled()]
    assert "Choose a workspace folder to use the file tools" in notes
    window.controller.set_workspace(str(tmp_path))
    assert len(composer.tool_actions) == 8 and composer.tools_button.text() == "tools: 8 on ▾"
    composer.tool_actions["run_command"].trigger()
    composer.tool_actions["fetch_url"].trigger()
    assert composer.tools_button.text() == "tools: 6 on ▾"
    assert window.controller.tool_switches.disabled_tools() == ["run_command", "fetch_url"]
    fake_server.enqueue_text("hello")
    send(qtbot, window, "hi")
    offered = {t["function"]["name"] for t in fake_server.chat_requests[0].json["tools"]}
    assert "run_command" not in offered and "read_file" in offered
    # The switches belong to the chat (kept with the session), not to new chats
    session = window.controller.session_id or ""
    assert window.controller.tool_switches.disabled_tools() == ["run_command", "fetch_url"]
    window.controller.new_session()
    assert composer.tools_button.text() == "tools: 8 on ▾"
    window.controller.open_session(session)
    assert not composer.tool_actions["run_command"].isChecked()
    # "All on" / "All off"
    off = next(a for a in composer.tools_menu.actions() if a.text() == "All off")
    off.trigger()
    assert composer.tools_button.text() == "tools: 0 on ▾"
    on = next(a for a in composer.tools_menu.actions() if a.text() == "All on")
    on.trigger()
    assert window.controller.tool_switches.disabled_tools() == []
    # A model without tool support: the menu says none are sent
    options = {"capabilities": {"tools": False}}
    ctx.settings_store.save_provider(ProviderConfig.model_validate(
        {**config.model_dump(), "options": options}))
    window.controller.reload_settings()
    assert "cannot use tools" in (composer.tools_note or "")
    assert "cannot use tools" in composer.tools_button.toolTip()


def test_the_command_sandbox_and_its_network_are_set_in_settings_and_shown_on_approvals(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    from desktop.chat.approvals import PendingApproval
    from desktop.tools.approval import ApprovalPreview, ApprovalRequest
    from desktop.ui.tools.approval_card import ApprovalCard

    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    dialog = open_dialog(window)
    fields = dialog.trust_fields
    assert fields.sandbox_box.isChecked() and not fields.network_box.isChecked()
    fields.network_box.click()  # (on the page with the grants, maybe not the one shown)
    dialog.save()
    assert (ctx.settings.current.command_sandbox, ctx.settings.current.command_network) == (
        True, True)
    runner = ctx.build_tools(str(tmp_path), ["run_command"])
    trust = runner.trust  # type: ignore[attr-defined]
    assert (trust.command_sandbox, trust.command_network) == (True, True)
    assert trust.hidden_paths == (str(ctx.paths.root),)  # the app's data: never seen
    again = open_dialog(window).trust_fields
    again.sandbox_box.click()
    assert not again.network_box.isEnabled()  # (no sandbox: no network switch)
    again.window().save()  # type: ignore[attr-defined]
    assert ctx.settings.current.command_sandbox is False

    for code, words, name in (
            ("sandboxed_offline", "Sandboxed · no network · writes only in the workspace",
             "toolCardMeta"),
            ("unsandboxed_missing",
             "Not sandboxed: this system offers no sandbox (install bubblewrap)",
             "approvalError")):
        card = ApprovalCard(PendingApproval(ApprovalRequest(
            tool="run_command", call_id="c1", arguments={"command": "make"},
            preview=ApprovalPreview("command", "make", "Run a command", confinement=code)),
            qt_loop.create_future()))
        qtbot.addWidget(card)
        assert card.confinement_label is not None
        assert (card.confinement_label.text(), card.confinement_label.objectName()) == (
            words, name)


def test_the_dialog_needs_only_the_settings_the_tools_and_the_chats_grants(
    qtbot: Any, open_ctx: Callable[..., AppContext],
) -> None:
    """Built from narrow services (no window, no controller): saving goes to the
    settings and is announced; "Forget" clears the grants it was handed."""
    ctx = open_ctx()
    grants = ChatGrants({"write_file"}, command_network=True)
    dialog = ToolsDialog(ctx.settings, ChatTools(ctx), lambda: grants)
    qtbot.addWidget(dialog)
    assert "Allowed for this chat: Write file" in dialog.chat_label.text()
    dialog.forget_chat_grants()
    assert not grants.tools and not grants.command_network
    dialog.set_policy("fetch_url", "deny")
    with qtbot.waitSignal(dialog.saved, timeout=1000):
        dialog.save()
    assert ctx.settings_store.load().tool_policies == {"fetch_url": "deny"}
