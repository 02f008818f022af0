"""Numbered sources under an answer: provider citations and knowledge hits, plain
text, clicking opens the browser (web) or the file (knowledge)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QVBoxLayout, QWidget

from desktop.core.messages import (
    Message,
    Source,
    SourcesPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from desktop.ui.chat.chat_view import ChatView
from desktop.ui.chat.message_widget import MessageWidget
from desktop.ui.chat.sources_view import elide
from desktop.ui.window.bridge import AgentBridge


class Opened(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


@pytest.fixture
def opened() -> Iterator[Opened]:
    """Qt's own hook for openUrl: the desktop is asked nothing."""
    catcher = Opened()
    for scheme in ("http", "https", "file"):
        QDesktopServices.setUrlHandler(scheme, catcher, "open")
    yield catcher
    for scheme in ("http", "https", "file"):
        QDesktopServices.unsetUrlHandler(scheme)


def _answer(tmp_path: Any) -> list[Message]:
    path = str(tmp_path / "notes.md")
    hits = {"status": "success", "result": {"query": "q", "results": [
        {"n": 1, "path": path, "location": "lines 4-9", "page": None, "line_start": 4,
         "line_end": 9, "text": "<b>not bold</b>"}]}}
    call = ToolCallPart(id="k1", name="search_knowledge", arguments='{"query": "q"}')
    return [
        Message.user("what is in my notes?"),
        Message(id="a1", role="assistant", parts=[call]),
        Message(role="tool", parts=[ToolResultPart(tool_call_id="k1", name="search_knowledge",
                                                   content=json.dumps(hits))]),
        Message(id="a2", role="assistant", parts=[
            TextPart(text="From your notes [1] and the web [2]."),
            SourcesPart(sources=[
                Source(title="<i>Web</i> page", url="https://example.com/" + "long/" * 30),
                Source(title="script", url="javascript:alert(1)")])]),
    ]


def test_numbered_sources_open_browser_and_file(qtbot: Any, tmp_path: Any, opened: Opened,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no xdg-mime: no application at a line
    host = QWidget()
    host.resize(900, 600)
    view = ChatView(AgentBridge())
    QVBoxLayout(host).addWidget(view)
    qtbot.addWidget(host)
    host.show()
    view.show_messages(_answer(tmp_path))
    qtbot.waitUntil(lambda: view.widget_for("a1") is not None)
    owner = view.widget_for("a1")
    assert isinstance(owner, MessageWidget)
    sources = owner.sources
    qtbot.waitUntil(lambda: len(sources.rows) == 3)
    assert sources.isVisibleTo(owner)
    texts = [row.text() for row in sources.rows]
    assert texts[0].startswith("1. notes.md (lines 4-9)  ·  ")
    assert texts[1].startswith("2. <i>Web</i> page  ·  https://example.com/long/")
    assert "…" in texts[1] and len(texts[1]) < 120  # the long address is elided
    assert texts[2].startswith("3. script")
    assert not sources.rows[2].isEnabled()  # not http(s): never handed to the desktop
    assert "page" not in sources.rows[0].toolTip() and "4" in sources.rows[0].toolTip()
    # sources sit after the answer's last part (its continuation)
    layout = owner.layout()
    assert layout.indexOf(sources) > layout.indexOf(owner.continuations[0])
    assert owner.continuations[0].sources.isHidden()  # one list per answer

    qtbot.mouseClick(sources.rows[1], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(sources.rows[0], Qt.MouseButton.LeftButton)
    qtbot.mouseClick(sources.rows[2], Qt.MouseButton.LeftButton)
    assert [u.toString() for u in opened.urls] == [
        "https://example.com/" + "long/" * 30,
        QUrl.fromLocalFile(str(tmp_path / "notes.md")).toString()]


def test_answer_without_sources_shows_none(qtbot: Any) -> None:
    widget = MessageWidget(Message(role="assistant", parts=[TextPart(text="plain")]))
    qtbot.addWidget(widget)
    assert not widget.sources.rows and widget.sources.isHidden()


def test_elide_keeps_both_ends() -> None:
    text = elide("https://example.com/" + "x" * 100 + "/end.html", 40)
    assert len(text) == 40 and text.startswith("https://exa") and text.endswith("end.html")
