"""MCP prompts and resources in the composer, against the SDK feature server
(tests/tools/mcp_feature_server.py) over stdio and Streamable HTTP: ``/`` lists the
prompts with their arguments, a form asks for them, the prompt's messages are sent
as the user's turn; Attach → "From MCP server…" adds resources (templates filled
in) as chips that go with the message."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from desktop.app import AppContext
from desktop.ui.chat.slash_prompts import PromptArgumentsDialog
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.tools.mcp_servers import FEATURES, ServerProcess
from tests.ui.conversation_helpers import add_provider, make_window
from tests.ui.tools.test_mcp_dialog import connection, stop_servers


@pytest.fixture(params=["stdio", "http"])
def server_entry(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    if request.param == "stdio":
        yield {"name": "features", "command": sys.executable, "args": [FEATURES, "stdio"]}
        return
    process = ServerProcess(FEATURES, "http")
    yield {"name": "features", "transport": "http", "url": process.url()}
    process.stop()


def open_window(qtbot: Any, open_ctx: Callable[..., AppContext], fake: FakeOpenAIServer,
                entry: dict[str, Any]) -> MainWindow:
    ctx = open_ctx()
    add_provider(ctx, fake)
    ctx.settings.update(mcp_servers=[entry])
    window = make_window(qtbot, ctx)
    qtbot.waitUntil(lambda: (c := connection(window, "features")) is not None
                    and c.state == "running", timeout=30000)
    return window


def last_user_message(fake: FakeOpenAIServer) -> Any:
    return fake.chat_requests[-1].json["messages"][-1]["content"]


def test_slash_prompts_with_arguments(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], server_entry: dict[str, Any],
) -> None:
    window = open_window(qtbot, open_ctx, fake_server, server_entry)
    slash = window.tool_activity.slash_prompts
    box = window.composer.input
    try:
        box.setFocus()
        qtbot.keyClicks(box, "/")
        assert slash.popup.isVisible()
        assert [slash.popup.item(i).text() for i in range(slash.popup.count())] == [
            "/review (language, focus?) — Review some code in a language.",
            "/hello — Say hello."]
        qtbot.keyClicks(box, "rev")
        assert slash.popup.count() == 1
        qtbot.keyClick(box, Qt.Key.Key_Return)
        dialog = slash.dialog
        assert isinstance(dialog, PromptArgumentsDialog) and dialog.isVisible()
        assert list(dialog.edits) == ["language", "focus"]
        buttons = dialog.findChild(QDialogButtonBox)
        assert buttons is not None
        ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.click()
        assert dialog.problem.text() == "Fill in: language"
        dialog.edits["language"].setText("Python")
        fake_server.enqueue_text("Looks fine.")
        with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=15000):
            ok.click()
        assert last_user_message(fake_server) == (
            "Review this Python code for bugs.\n\n(assistant) Paste it and I will.")

        box.setFocus()
        qtbot.keyClicks(box, "/hello what now?")
        assert slash.popup.isVisible() and slash.popup.count() == 1
        fake_server.enqueue_text("Hi.")
        with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=15000):
            qtbot.keyClick(box, Qt.Key.Key_Return)
        assert last_user_message(fake_server) == "Hello from the prompt\n\nwhat now?"

        qtbot.keyClicks(box, "/compare")  # not a prompt: left to the composer
        assert not slash.popup.isVisible()
    finally:
        stop_servers(qtbot, window)


def test_attach_resources_and_filled_templates(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], server_entry: dict[str, Any],
) -> None:
    window = open_window(qtbot, open_ctx, fake_server, server_entry)
    attach = window.tool_activity.mcp_attach
    try:
        qtbot.waitUntil(lambda: window.composer.attach_button.menu() is not None, timeout=5000)
        dialog = attach.browse()
        texts = [dialog.list.item(i).text() for i in range(dialog.list.count())]
        assert texts == ["readme\nfeatures · memo://readme · text/markdown",
                         "pixel\nfeatures · memo://pixel · image/png",
                         "counter\nfeatures · memo://counter · text/plain",
                         "notes\nfeatures · memo://notes/{topic}"]
        dialog.list.setCurrentRow(3)
        assert list(dialog.fields) == ["topic"]
        dialog.attach()
        assert dialog.problem.text() == "fill in topic"
        dialog.fields["topic"].setText("cats")
        dialog.attach()
        qtbot.waitUntil(lambda: len(window.composer.chips) == 1, timeout=10000)
        dialog = attach.browse()
        dialog.list.setCurrentRow(0)
        dialog.attach()
        qtbot.waitUntil(lambda: len(window.composer.chips) == 2, timeout=10000)
        chips = window.composer.chips
        assert [chip.part.type for chip in chips] == ["text", "text"]
        assert "notes about cats" in chips[0].part.text  # type: ignore[union-attr]

        fake_server.enqueue_text("Cats it is.")
        box = window.composer.input
        box.setFocus()
        qtbot.keyClicks(box, "What do my notes say?")
        with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=15000):
            qtbot.keyClick(box, Qt.Key.Key_Return)
        content = last_user_message(fake_server)
        flat = str(content)
        assert "notes about cats" in flat and "What do my notes say?" in flat
        assert "The feature server." in flat
    finally:
        stop_servers(qtbot, window)


def test_list_changes_reach_the_composer(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], server_entry: dict[str, Any],
) -> None:
    window = open_window(qtbot, open_ctx, fake_server,
                         server_entry | {"default_policy": "allow"})
    slash = window.tool_activity.slash_prompts
    box = window.composer.input
    try:
        assert "features__extra" not in window.composer.tool_actions
        fake_server.enqueue_tool_calls([("features__grow", "{}"),
                                        ("features__add_prompt", "{}")], ids=["g", "p"])
        fake_server.enqueue_text("Grown.")
        box.setFocus()
        qtbot.keyClicks(box, "Grow")
        with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=15000):
            qtbot.keyClick(box, Qt.Key.Key_Return)
        # tools/list_changed and prompts/list_changed: listed again, the window follows
        qtbot.waitUntil(lambda: "features__extra" in window.composer.tool_actions,
                        timeout=10000)
        box.setFocus()
        qtbot.keyClicks(box, "/la")
        qtbot.waitUntil(lambda: slash.popup.isVisible() and slash.popup.count() == 1,
                        timeout=10000)
        assert slash.popup.item(0).text() == "/late — Added at run time."
    finally:
        stop_servers(qtbot, window)


def test_an_attached_resource_is_read_again_when_the_server_changes_it(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], server_entry: dict[str, Any],
) -> None:
    window = open_window(qtbot, open_ctx, fake_server, server_entry)
    attach = window.tool_activity.mcp_attach
    manager = window.controller.tools.mcp
    assert manager is not None
    try:
        dialog = attach.browse()
        dialog.list.setCurrentRow(2)  # memo://counter
        dialog.attach()
        qtbot.waitUntil(lambda: len(window.composer.chips) == 1, timeout=10000)
        chip = window.composer.chips[0]
        assert "counter=0" in chip.part.text  # type: ignore[union-attr]
        subscribed = asyncio.ensure_future(manager.wait_subscribed("features", "memo://counter"))
        qtbot.waitUntil(subscribed.done, timeout=10000)
        assert subscribed.result()
        bump = asyncio.ensure_future(manager.connections["features"].call_tool("bump", {}, 10))
        qtbot.waitUntil(bump.done, timeout=10000)
        qtbot.waitUntil(lambda: "counter=1" in chip.part.text,  # type: ignore[union-attr]
                        timeout=10000)
        assert "changed" in chip.toolTip()
    finally:
        stop_servers(qtbot, window)
