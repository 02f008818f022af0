"""MCP servers that ask, in the window: an elicitation becomes a form in the tool
panel, a sampling request shows its exact messages for approval and runs on the
chat's model, progress shows on the running call's card, and Stop cancels the call
on the server — against the SDK feature server (tests/tools/mcp_feature_server.py)
over stdio and Streamable HTTP, with the model played by the loopback OpenAI server."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtWidgets import QLineEdit

from desktop.app import AppContext
from desktop.ui.tools.call_progress import CallProgress
from desktop.ui.tools.server_question_card import ServerQuestionCard
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.tools.mcp_servers import FEATURES, ServerProcess
from tests.ui.conversation_helpers import add_provider, make_window
from tests.ui.tools.test_approval_card import finish, start, tool_message
from tests.ui.tools.test_mcp_dialog import connection, stop_servers


@pytest.fixture(params=["stdio", "http"])
def server_entry(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    entry: dict[str, Any] = {"name": "features", "default_policy": "allow"}
    if request.param == "stdio":
        yield entry | {"command": sys.executable, "args": [FEATURES, "stdio"]}
        return
    process = ServerProcess(FEATURES, "http")
    yield entry | {"transport": "http", "url": process.url()}
    process.stop()


def open_window(qtbot: Any, open_ctx: Callable[..., AppContext], fake: FakeOpenAIServer,
                entry: dict[str, Any]) -> MainWindow:
    ctx = open_ctx()
    add_provider(ctx, fake)
    ctx.settings.update(mcp_servers=[entry])
    window = make_window(qtbot, ctx)
    qtbot.waitUntil(lambda: (c := connection(window, "features")) is not None
                    and c.state == "running"
                    and "features__register" in window.composer.tool_actions, timeout=30000)
    return window


def question(qtbot: Any, window: MainWindow) -> ServerQuestionCard:
    area = window.sidebar.questions
    qtbot.waitUntil(lambda: bool(area.cards) and area.isVisible(), timeout=15000)
    return next(iter(area.cards.values()))


def test_elicitation_form_and_sampling_approval(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], server_entry: dict[str, Any],
) -> None:
    window = open_window(qtbot, open_ctx, fake_server, server_entry)
    try:
        fake_server.enqueue_tool_calls([("features__register", "{}")], ids=["reg"])
        fake_server.enqueue_text("Registered.")
        start(qtbot, window, "Register me")
        card = question(qtbot, window)
        assert card.question.kind == "elicitation"
        assert set(card.fields) == {"name", "age"}
        name, age = card.fields["name"], card.fields["age"]
        assert isinstance(name, QLineEdit) and isinstance(age, QLineEdit)
        name.setText("Ada")
        age.setText("thirty")
        card.submit_button.click()
        assert card.problem.text() == "age must be an integer"
        age.setText("36")
        finish(qtbot, window, card.submit_button.click)
        assert "registered Ada (36)" in tool_message(fake_server)
        assert not window.sidebar.questions.cards

        fake_server.requests.clear()
        fake_server.enqueue_tool_calls([("features__haiku", json.dumps({"topic": "rain"}))],
                                       ids=["haiku"])
        fake_server.enqueue_text("Drops on the window")  # the sampling request's answer
        fake_server.enqueue_text("Here is your haiku.")
        start(qtbot, window, "A haiku please")
        card = question(qtbot, window)
        assert card.question.kind == "sampling"
        text = card.messages_view.toPlainText()
        assert text.splitlines() == ["At most 50 tokens.", "[system] You write haiku.",
                                     "[user] A haiku on rain"]
        finish(qtbot, window, card.submit_button.click)
        sampled = fake_server.chat_requests[1].json["messages"]
        assert sampled[-1] == {"role": "user", "content": "A haiku on rain"}
        assert "said: Drops on the window" in tool_message(fake_server, 2)
    finally:
        stop_servers(qtbot, window)


def test_denied_sampling_and_declined_form_tell_the_server(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    entry = {"name": "features", "default_policy": "allow", "command": sys.executable,
             "args": [FEATURES, "stdio"]}
    window = open_window(qtbot, open_ctx, fake_server, entry)
    try:
        fake_server.enqueue_tool_calls([("features__register", "{}")], ids=["reg"])
        fake_server.enqueue_text("ok")
        start(qtbot, window, "Register me")
        card = question(qtbot, window)
        decline = next(b for b in card.findChildren(type(card.submit_button))
                       if b.text() == "Decline")
        finish(qtbot, window, decline.click)
        assert "not registered: decline" in tool_message(fake_server)

        fake_server.requests.clear()
        fake_server.enqueue_tool_calls([("features__haiku", json.dumps({"topic": "sun"}))],
                                       ids=["haiku"])
        fake_server.enqueue_text("ok")
        start(qtbot, window, "A haiku please")
        card = question(qtbot, window)
        deny = next(b for b in card.findChildren(type(card.submit_button))
                    if b.text() == "Deny")
        finish(qtbot, window, deny.click)
        assert "declined the sampling request" in tool_message(fake_server)
        assert len(fake_server.chat_requests) == 2  # the model was never asked to sample
    finally:
        stop_servers(qtbot, window)


def test_progress_on_the_card_and_stop_cancels_on_the_server(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], server_entry: dict[str, Any],
) -> None:
    window = open_window(qtbot, open_ctx, fake_server, server_entry)
    try:
        fake_server.enqueue_tool_calls([("features__slow_count", "{}")], ids=["count"])
        fake_server.enqueue_text("Counted.")
        start(qtbot, window, "Count")
        qtbot.waitUntil(lambda: not window.controller.busy and "count" in window.sidebar.cards,
                        timeout=15000)
        bar = window.sidebar.cards["count"].findChild(CallProgress)
        assert bar is not None
        assert (bar.bar.value(), bar.bar.maximum()) == (1000, 1000)
        assert bar.message.text() == "step 3"

        conn = connection(window, "features")
        assert conn is not None
        fake_server.enqueue_tool_calls([("features__wait_forever",
                                         json.dumps({"marker": "m1"}))], ids=["wait"])
        fake_server.enqueue_text("never")
        start(qtbot, window, "Wait")
        if server_entry.get("transport") != "http":
            qtbot.waitUntil(lambda: "started m1" in "\n".join(conn.stderr.lines()),
                            timeout=15000)
        else:
            qtbot.waitUntil(lambda: "wait" in window.sidebar.cards
                            and window.sidebar.cards["wait"].status == "running", timeout=15000)
        with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
            window.controller.stop()
        if server_entry.get("transport") != "http":
            qtbot.waitUntil(lambda: "cancelled m1" in "\n".join(conn.stderr.lines()),
                            timeout=10000)
        assert window.sidebar.cards["wait"].status in ("cancelled", "failed")
    finally:
        stop_servers(qtbot, window)
