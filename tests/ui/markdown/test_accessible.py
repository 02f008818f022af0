"""What a screen reader gets from a message body, read through Qt's accessibility API
(the same calls the AT-SPI / UIA bridges make)."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtGui import QAccessible, QAccessibleInterface

from desktop.app import AppContext
from desktop.ui.markdown.accessible import AnswerAccessible
from desktop.ui.markdown.view import MarkdownView
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window, send

ANSWER = ("## Result\n\nSee [the docs](https://example.com/docs) for more.\n\n"
          "```python\nprint('hi')\nprint('there')\n```\n\n"
          "| name | size |\n|---|---|\n| a.txt | 3 |\n| b.txt | 10 |\n")

Text = QAccessible.Text


def interface(widget: MarkdownView) -> QAccessibleInterface:
    iface = QAccessible.queryAccessibleInterface(widget)
    assert iface is not None
    return iface


def children(iface: QAccessibleInterface) -> list[QAccessibleInterface]:
    return [iface.child(i) for i in range(iface.childCount())]


def test_a_streamed_answer_reads_through_the_accessibility_api(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    fake_server.enqueue_text(ANSWER, chunk_size=7)
    send(qtbot, window, "Show me the files")
    answer = next(m for m in reversed(window.controller.history) if m.role == "assistant")
    shown = window.chat.widget_for(answer.id)
    assert shown is not None

    iface = interface(shown.body)
    assert isinstance(iface, AnswerAccessible)
    assert iface.role() == QAccessible.Role.Document
    assert iface.text(Text.Name) == "Answer"  # whose words: from the message around it
    assert iface.state().readOnly
    whole = iface.text(Text.Value)
    assert "Result" in whole and "print('there')" in whole
    assert "name | size\na.txt | 3\nb.txt | 10" in whole  # a table reads row by row
    question = window.chat.widget_for(window.controller.history[0].id)
    assert question is not None
    assert interface(question.body).text(Text.Name) == "Your message"
    text = iface.textInterface()
    assert text is not None
    assert text.characterCount() == len(whole)
    assert text.text(0, 6) == "Result"

    blocks = children(iface)
    roles = [b.role() for b in blocks]
    assert roles == [QAccessible.Role.Heading, QAccessible.Role.Paragraph,
                     QAccessible.Role.Section, QAccessible.Role.Table]
    heading, paragraph, code, table = blocks
    assert heading.text(Text.Name) == "Result"
    assert code.text(Text.Name) == "Code block, python"
    assert code.text(Text.Value) == "print('hi')\nprint('there')"
    assert code.textInterface().text(0, 11) == "print('hi')"
    assert table.text(Text.Name) == "Table, 3 rows, 2 columns"
    assert table.text(Text.Value) == "name | size\na.txt | 3\nb.txt | 10"
    assert all(b.parent() is iface for b in blocks)
    assert iface.indexOfChild(table) == 3
    (link,) = children(paragraph)
    assert link.role() == QAccessible.Role.Link
    assert link.text(Text.Name) == "the docs"
    assert link.text(Text.Description) == "https://example.com/docs"
    assert link.parent() is paragraph
    assert code.rect().top() > heading.rect().top()

    # The finished answer was announced (politely) with its text.
    assert window.attention.announcer.said[-1].startswith("Result")


def test_the_tree_follows_new_content_and_survives_the_view(qtbot: Any) -> None:
    view = MarkdownView()  # (deleted below, not by qtbot)
    view.resize(400, 300)
    view.set_markdown("First [one](https://a.example) and [two](https://b.example).")
    iface = interface(view)
    (paragraph,) = children(iface)
    assert [c.text(Text.Name) for c in children(paragraph)] == ["one", "two"]
    QAccessible.uniqueId(paragraph)  # an assistive tool registered it

    view.append("\n\n```\ncode\n```")
    view.flush()
    assert [b.role() for b in children(iface)] == [QAccessible.Role.Paragraph,
                                                   QAccessible.Role.Section]
    assert children(iface)[1].text(Text.Name) == "Code block, plain text"
    assert not paragraph.isValid() or paragraph is not children(iface)[0]

    block = children(iface)[0]
    QAccessible.uniqueId(block)
    view.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    other = MarkdownView()
    qtbot.addWidget(other)
    assert isinstance(QAccessible.queryAccessibleInterface(other), AnswerAccessible)


def test_a_streaming_body_says_it_is_being_written(qtbot: Any) -> None:
    view = MarkdownView()
    qtbot.addWidget(view)
    view.append("Partial")
    iface = interface(view)
    assert iface.state().busy
    assert iface.text(Text.Description) == "Being written"
    qtbot.waitUntil(lambda: iface.text(Text.Value) == "Partial", timeout=2000)  # next frame
    view.flush()
    assert not iface.state().busy
