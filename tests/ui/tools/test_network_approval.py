"""A command that needs the network, in the window: the approval card asks "Allow
network for this chat's commands" (no "Always allow": Settings -> Tools does that);
allowing it for the chat lets the command (under real bubblewrap) reach a loopback
server, the tool card says "network allowed for this chat", the chat's next command
is not asked about the network, and Settings -> Tools shows and forgets the grant."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop.app import AppContext
from desktop.tools.sandbox import bwrap_problem
from desktop.ui.tools.tools_dialog import ToolsDialog
from tests.support.openai_server import FakeOpenAIServer
from tests.tools.test_sandbox import fetch, web
from tests.ui.tools.test_approval_card import finish, setup, start, tool_message, wait_card

__all__ = ["web"]  # (the loopback server fixture)


def test_allow_network_for_this_chat_on_the_approval_card(  # noqa: PLR0917
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path, web: str,
) -> None:
    assert bwrap_problem() is None, bwrap_problem()  # (.ci/run installs bubblewrap)
    window, _notes = setup(qtbot, open_ctx, fake_server, tmp_path)
    window.controller.ctx.settings.update(tool_policies={"run_command": "allow"})
    command = json.dumps({"command": fetch(web), "network": True})
    fake_server.enqueue_tool_calls([("run_command", command)], ids=["call_1"])
    fake_server.enqueue_text("fetched")
    start(qtbot, window, "Fetch the page")
    card = wait_card(qtbot, window)
    assert card.request.network
    texts = [label.text() for label in card.findChildren(type(card.source_label))]
    assert "Allow network for this chat's commands" in texts
    assert any(t.startswith("Sandboxed · no network") for t in texts)
    assert card.allow_always_button.isHidden() and card.scope_row is None
    assert card.allow_chat_button.text() in ("Allow network for this chat",
                                             "Allow network for this &chat")
    status = window.chat.turn_status  # (the same question under the answer)
    qtbot.waitUntil(lambda: status.kind == "approval", timeout=10000)
    assert [b.text() for b in status.approval_buttons.values() if b.isVisibleTo(window)] == [
        "Allow once", "Allow network for this chat", "Deny"]
    assert "Allow network for this chat's commands: " in status.label.text()
    if os.environ.get("ASSISTA_SHOT"):  # (the screenshot in the report)
        for _ in range(5):  # (pending layouts run: a picture for people, not a check)
            QApplication.processEvents()
        window.grab().save(os.environ["ASSISTA_SHOT"])
    finish(qtbot, window, lambda: qtbot.mouseClick(card.allow_chat_button,
                                                   Qt.MouseButton.LeftButton))
    result = json.loads(tool_message(fake_server))
    assert result["status"] == "success" and result["result"]["stdout"] == "hello\n"
    tool_card = window.sidebar.cards["call_1"]
    assert "Sandboxed · network allowed for this chat" in tool_card.meta_label.text()
    assert window.controller.tool_switches.chat_grants().command_network
    if os.environ.get("ASSISTA_SHOT"):
        window.grab().save(os.environ["ASSISTA_SHOT"].replace(".png", "-after.png"))
    # The chat's next command has the network without asking about it
    fake_server.enqueue_tool_calls([("run_command", json.dumps({"command": fetch(web)}))],
                                   ids=["call_2"])
    fake_server.enqueue_text("again")
    start(qtbot, window, "Again")
    qtbot.waitUntil(lambda: not window.controller.busy and len(fake_server.chat_requests) == 4,
                    timeout=20000)
    assert json.loads(tool_message(fake_server, 3))["result"]["stdout"] == "hello\n"
    c = window.controller
    dialog = ToolsDialog(c.services.settings, c.tools, c.tool_switches.chat_grants, window)
    qtbot.addWidget(dialog)
    assert "This chat's commands may use the network." in dialog.chat_label.text()
    dialog.forget_chat_grants()
    assert not window.controller.tool_switches.chat_grants().command_network


@pytest.mark.parametrize("click", ["deny", "once"])
def test_denying_or_allowing_once_keeps_no_grant(  # noqa: PLR0917
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path, web: str, click: str,
) -> None:
    window, _notes = setup(qtbot, open_ctx, fake_server, tmp_path)
    window.controller.ctx.settings.update(tool_policies={"run_command": "allow"})
    command = json.dumps({"command": fetch(web), "network": True})
    fake_server.enqueue_tool_calls([("run_command", command)], ids=["call_1"])
    fake_server.enqueue_text("done")
    start(qtbot, window, "Fetch the page")
    card = wait_card(qtbot, window)
    button = card.deny_button if click == "deny" else card.allow_once_button
    finish(qtbot, window, lambda: qtbot.mouseClick(button, Qt.MouseButton.LeftButton))
    result = json.loads(tool_message(fake_server))
    if click == "deny":
        assert result["status"] == "denied"
    else:
        assert result["result"]["stdout"] == "hello\n"
        assert "Sandboxed · network allowed ·" in window.sidebar.cards["call_1"].meta_label.text()
    assert not window.controller.tool_switches.chat_grants().command_network
