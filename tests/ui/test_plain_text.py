"""Property: text that comes from a model or a server (tool names, arguments, paths,
commands, output, error text, model and server names) is never drawn as markup.

Hostile strings are built from tags, entities, comments and mnemonics; each is put
into every field of the approval card, the tool card, the inline tool calls, a
message header and the turn status. For every label, button and tooltip whose raw
text holds the string, what the user sees must hold it literally (a label that
guesses "rich text" would show ``<b>x</b>`` as a bold x; a button would turn ``&x``
into a shortcut); the whole widget must show it somewhere; and no document in it may
hold a link or an image the string asked for.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtGui import Qt, QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QLabel,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from desktop.chat.approvals import PendingApproval
from desktop.chat.events import ProviderRetrying
from desktop.core.messages import ToolCallPart, ToolResultPart
from desktop.tools.approval import ApprovalPreview, ApprovalRequest
from desktop.ui.chat.message_header import MessageHeader
from desktop.ui.chat.tool_calls_inline import ToolCallsInline
from desktop.ui.chat.turn_status import TurnStatus
from desktop.ui.plain_text import notification_text, plain_tooltip
from desktop.ui.tools.approval_card import ApprovalCard
from desktop.ui.tools.tool_card import ToolCallCard

FRAGMENTS = ["<b>", "</b>", "<a href='https://evil.example/'>", "</a>", "<img src='x.png'>",
             "&amp;", "&lt;", "&#x2714;", "&", "<", ">", "✔ Safe: read-only", "<br>",
             "<p style='color:green'>", "<!--", "-->", "<style>", "<qt>", "<html>",
             "</table>", "<h1>", "<span style='font-size:40px'>", " ", "x", "é", "'",
             "=", "/", ";", "[ok](https://x)", "**", "`", "&&", "&x"]

hostile = st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=7).map("".join).filter(
    lambda s: bool(s.strip()))


def _norm(text: str) -> str:
    return " ".join(text.replace("\u2029", " ").replace("\u2028", " ").split())


def _html_shown(text: str) -> str:
    doc = QTextDocument()
    doc.setHtml(text)
    return doc.toPlainText()


def _label_shown(label: QLabel) -> str:
    text = label.text()
    fmt = label.textFormat()
    if fmt == Qt.TextFormat.PlainText or (
            fmt == Qt.TextFormat.AutoText and not Qt.mightBeRichText(text)):
        return text
    if fmt == Qt.TextFormat.MarkdownText:
        doc = QTextDocument()
        doc.setMarkdown(text)
        return doc.toPlainText()
    return _html_shown(text)


def _tooltip_shown(tip: str) -> str:
    return _html_shown(tip) if Qt.mightBeRichText(tip) else tip


def _button_shown(text: str) -> str:
    """What a button draws: ``&&`` is an ampersand, a single ``&`` marks a shortcut."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "&" and i + 1 < len(text):
            out.append(text[i + 1])  # "&&" draws "&"; "&x" draws an underlined x
            i += 2
        elif text[i] == "&":
            i += 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def channels(root: QWidget) -> list[tuple[str, str, str]]:
    """(what, raw text, shown text) for every text a user sees in ``root``."""
    found: list[tuple[str, str, str]] = []
    for widget in [root, *root.findChildren(QWidget)]:
        name = f"{type(widget).__name__}#{widget.objectName()}"
        if isinstance(widget, QLabel):
            found.append((name, widget.text(), _label_shown(widget)))
        elif isinstance(widget, QAbstractButton):
            found.append((name, widget.text(), _button_shown(widget.text())))
        elif isinstance(widget, QTextEdit | QPlainTextEdit):
            found.append((name, widget.toPlainText(), widget.toPlainText()))
        if widget.toolTip():
            found.append((name + " tooltip", widget.toolTip(), _tooltip_shown(widget.toolTip())))
    return found


def no_injected_links_or_images(root: QWidget) -> None:
    for view in root.findChildren(QTextEdit):
        block = view.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fmt = it.fragment().charFormat()
                assert not fmt.isAnchor() and not fmt.isImageFormat(), view.toHtml()[:500]
                it += 1
            block = block.next()


def assert_literal(root: QWidget, payload: str) -> None:
    want = _norm(payload)
    shown_all = []
    for what, raw, shown in channels(root):
        shown_all.append(shown)
        if want and want in _norm(raw):
            assert want in _norm(shown), f"{what} draws {raw!r} as {shown!r}"
    assert want in _norm(" ".join(shown_all)), f"{payload!r} is not shown at all"
    no_injected_links_or_images(root)


def _pending(request: ApprovalRequest, title: str) -> PendingApproval:
    loop = asyncio.new_event_loop()
    try:
        return PendingApproval(request, loop.create_future(), "s1", title)
    finally:
        loop.close()


SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(payload=hostile, kind=st.sampled_from(["diff", "command", "url", "arguments"]))
def test_approval_card_shows_model_text_literally(qapp: QApplication, payload: str,
                                                  kind: Any) -> None:
    args = {"path": payload, "command": payload, "url": payload, "other": payload}
    text = json.dumps(args) if kind == "arguments" else (
        f"--- a/{payload}\n+++ b/{payload}\n@@ -1 +1 @@\n-{payload}\n+{payload}"
        if kind == "diff" else payload)
    request = ApprovalRequest(tool=payload, call_id="c1", arguments=args,
                              preview=ApprovalPreview(kind, text, title=payload,
                                                      error=payload),
                              source=payload, description=payload)
    card = ApprovalCard(_pending(request, payload))
    assert_literal(card, payload)
    card.deleteLater()


@SETTINGS
@given(payload=hostile, error=st.booleans())
def test_tool_card_and_inline_calls_show_model_text_literally(qapp: QApplication,
                                                              payload: str,
                                                              error: bool) -> None:
    call = ToolCallPart(id="c1", name=payload, arguments=json.dumps({"path": payload}))
    content = (json.dumps({"error": {"code": "x", "message": payload}}) if error else
               json.dumps({"result": {"stdout": payload, "exit_code": 0}}))
    result = ToolResultPart(tool_call_id="c1", name=payload, content=content,
                            is_error=error, status="failed" if error else "succeeded",
                            provider_data={"images": [{"data": "AAAA", "mime_type": payload}]})
    card = ToolCallCard(call, "m1")
    card.finish(result)
    card.expand.setChecked(True)
    assert_literal(card, payload)
    inline = ToolCallsInline()
    inline.show_calls([call], {"c1": result})
    inline.toggle.setChecked(True)
    assert_literal(inline, payload)
    for widget in (card, inline):
        widget.deleteLater()


@SETTINGS
@given(payload=hostile)
def test_header_and_turn_status_show_model_text_literally(qapp: QApplication,
                                                          payload: str) -> None:
    header = MessageHeader("assistant", payload, lambda menu: None)
    assert_literal(header, payload)
    status = TurnStatus()
    request = ApprovalRequest(tool=payload, call_id="c1", arguments={},
                              preview=ApprovalPreview("arguments", "{}"))
    status.show_approval(_pending(request, payload))
    assert_literal(status, payload)
    status.clear()
    status.show_retry(ProviderRetrying(payload, 0, 5.0, payload, 3))
    assert_literal(status, payload)
    for widget in (header, status):
        widget.deleteLater()


@given(payload=hostile)
def test_tooltips_and_notifications_stay_literal(payload: str) -> None:
    assert _norm(payload) in _norm(_tooltip_shown(plain_tooltip(payload)))
    shown = notification_text(payload)
    assert "<" not in shown and ">" not in shown and "&" not in shown
