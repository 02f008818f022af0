"""An answer's tool calls inline: their names for people, their arguments as the model
sent them (streamed in pieces by Anthropic), pretty-printed, long values cut short
until "Show all"."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QTextDocument

from desktop.app import AppContext
from desktop.core.messages import ToolCallPart, ToolResultPart
from desktop.core.settings import ProviderConfig
from desktop.ui.chat.tool_calls_inline import details_html, pretty, summary
from tests.support.anthropic_server import FakeAnthropicServer
from tests.ui.chat.test_turn_status import type_and_send
from tests.ui.conversation_helpers import make_window


def plain(html_text: str) -> str:
    doc = QTextDocument()
    doc.setHtml(html_text)
    return doc.toPlainText()


def test_anthropic_arguments_reach_the_inline_details_pretty_and_cut_short(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("word " * 400)
    ctx = open_ctx()
    with FakeAnthropicServer() as server:
        config = ProviderConfig(name="Claude", kind="anthropic", preset="anthropic",
                                base_url=server.url, model="claude-sonnet-4-5-20250929")
        ctx.settings_store.save_provider(config)
        ctx.secrets.set(config.id, "sk-ant-loopback-000000")
        ctx.settings.update(active_provider_id=config.id)
        window = make_window(qtbot, ctx)
        window.controller.set_workspace(str(workspace))
        # (the arguments arrive as input_json_delta pieces of 5 characters)
        server.enqueue_tool_calls([("read_file",
                                    json.dumps({"files": [{"path": "notes.txt"}]}))])
        server.enqueue_text("It says word.")
        with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
            type_and_send(qtbot, window, "read it")
        qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    call_message = next(m for m in window.controller.history if m.tool_calls)
    widget = window.chat.widget_for(call_message.id)
    assert widget is not None
    line = widget.tool_calls
    assert "Read file" in line.text() and "read_file" not in line.text()
    qtbot.mouseClick(line.toggle, Qt.MouseButton.LeftButton)
    assert line.details is not None and line.details.isVisible()
    details = line.details
    assert details.height() > 100  # the answer's block grew to hold them, not cut them
    qtbot.waitUntil(lambda: line.height() >= details.height() + line.toggle.height())
    shown = line.details.toPlainText()
    # not "{}", and not on one line
    assert '{\n  "files": [\n    {\n      "path": "notes.txt"\n    }\n  ]\n}' in shown
    assert "more characters]" in shown and "Show all" in shown
    assert ("word " * 400).strip() not in shown
    line.details.anchorClicked.emit(QUrl("full:0"))  # "Show all"
    shown = line.details.toPlainText()
    assert ("word " * 400).strip() in shown and "Show less" in shown
    # a long value wraps inside the view (none runs off its right edge)
    document = line.details.document()
    assert document.idealWidth() <= line.details.viewport().width()


def test_pretty_json_and_cut_values() -> None:
    text, cut = pretty(json.dumps({"path": "a.txt", "content": "x" * 1000, "n": [1, 2]}))
    data = json.loads(text.replace("… [760 more characters]", ""))
    assert cut and data["content"] == "x" * 240 and data["n"] == [1, 2]
    assert text.startswith('{\n  "path": "a.txt",')
    assert pretty('{"path": "a.txt"}') == ('{\n  "path": "a.txt"\n}', False)
    assert pretty("not json") == ("not json", False)
    full, cut = pretty(json.dumps({"content": "x" * 1000}), full=True)
    assert not cut and json.loads(full) == {"content": "x" * 1000}


def test_tool_names_and_hidden_characters_in_the_line_and_details() -> None:
    calls = [ToolCallPart(id="1", name="run_command", arguments='{"command": "ls \u202eexe"}'),
             ToolCallPart(id="2", name="my\u200btool", arguments="{}")]
    results = {"1": ToolResultPart(tool_call_id="1", name="run_command", content='{"ok": 1}')}
    line = summary("2 tool calls", calls, results, waiting=1)
    assert line == "2 tool calls · Run command, my<U+200B>tool · waiting for your approval"
    shown = plain(details_html(calls, results))
    assert "ls <U+202E>exe" in shown and "my<U+200B>tool" in shown
    assert "\u202e" not in shown and "\u200b" not in shown


def test_the_panels_details_cut_long_values_until_show_all(qtbot: Any) -> None:
    from desktop.ui.tools.tool_card import ToolCallCard

    text = "line of text\n" * 400
    card = ToolCallCard(ToolCallPart(id="1", name="write_file",
                                     arguments=json.dumps({"path": "a.txt", "content": text})),
                        "m1")
    qtbot.addWidget(card)
    card.finish(ToolResultPart(tool_call_id="1", name="write_file",
                               content=json.dumps({"result": {"path": "a.txt", "bytes": 5200}})))
    card.expand.setChecked(True)
    shown = card.details.toPlainText()
    assert '"path": "a.txt"' in shown and "more characters]" in shown and "Show all" in shown
    assert text.strip() not in shown
    card.details.anchorClicked.emit(QUrl("full"))
    shown = card.details.toPlainText()
    assert "Show less" in shown and "more characters]" not in shown
    assert json.dumps(text)[1:-1] in shown  # the whole value (in JSON, its \n escaped)
