"""The chat view with pytest-qt: follow the stream, jump to latest, copy, select across
messages, links, virtualized history, reasoning, zoom and theme."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRect, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication, QMouseEvent
from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget

from desktop.core.agent_events import AssistantFinished, AssistantStarted
from desktop.core.messages import Message, ReasoningPart, TextPart, Usage
from desktop.ui import theme
from desktop.ui.chat.chat_view import ChatView
from desktop.ui.markdown.view import MarkdownView
from desktop.ui.window.bridge import AgentBridge

LONG = "\n\n".join(f"Paragraph {i}: " + "words that wrap the line " * 12 for i in range(40))


@pytest.fixture
def chat(qtbot: Any) -> Iterator[tuple[ChatView, AgentBridge]]:
    bridge = AgentBridge()
    host = QWidget()
    host.resize(900, 600)
    view = ChatView(bridge)
    QVBoxLayout(host).addWidget(view)
    qtbot.addWidget(host)
    host.show()
    qtbot.waitExposed(host)
    yield view, bridge
    theme.set_zoom(0)


def start(bridge: AgentBridge, message_id: str = "msg_a") -> None:
    bridge.assistantStarted.emit(AssistantStarted(message_id=message_id, round=0,
                                                  model="gpt-test"))


def finish(bridge: AgentBridge, message_id: str, text: str, **extra: Any) -> None:
    message = Message(id=message_id, role="assistant", model="gpt-test",
                      parts=[TextPart(text=text)], **extra)
    bridge.assistantFinished.emit(AssistantFinished(message=message))


def pieces(text: str, size: int = 7) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


def at_bottom(view: ChatView) -> bool:
    bar = view.verticalScrollBar()
    return bar.maximum() > 0 and bar.value() == bar.maximum()


def test_follows_the_stream(qtbot: Any, chat: tuple[ChatView, AgentBridge]) -> None:
    view, bridge = chat
    view.add_message(Message.user("write a lot"))
    start(bridge)
    for piece in pieces(LONG):
        bridge.textDelta.emit(piece)
    widget = view.widget_for("msg_a")
    assert widget is not None
    qtbot.waitUntil(lambda: "Paragraph 39" in widget.body.toPlainText(), timeout=5000)
    qtbot.waitUntil(lambda: at_bottom(view), timeout=5000)
    assert view.is_following() and not view.jump_button.isVisible()
    finish(bridge, "msg_a", LONG)
    assert at_bottom(view)


def test_a_streamed_frame_measures_the_column_once(
        qtbot: Any, chat: tuple[ChatView, AgentBridge], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every frame that adds a line relays the column out: its font and width are
    worked out once for it (each took a QFont built from the application's font), and
    the scroll range is set once per height measured, not once more at the end."""
    view, bridge = chat
    view.add_message(Message.user("write a lot"))
    start(bridge)
    bridge.textDelta.emit(LONG[:3000])
    widget = view.widget_for("msg_a")
    assert widget is not None
    qtbot.waitUntil(lambda: "Paragraph 4" in widget.body.toPlainText(), timeout=5000)
    qtbot.waitUntil(lambda: at_bottom(view), timeout=5000)
    fonts, ranges = [], []
    chat_font = theme.chat_font
    monkeypatch.setattr(theme, "chat_font", lambda *a: fonts.append(1) or chat_font(*a))
    bar = view.verticalScrollBar()
    set_range = bar.setRange
    monkeypatch.setattr(bar, "setRange", lambda *a: ranges.append(a) or set_range(*a))
    height = widget.height()
    bridge.textDelta.emit("\n\nA new paragraph: " + "words that wrap the line " * 8)
    qtbot.waitUntil(lambda: widget.height() > height, timeout=5000)
    assert len(fonts) == 1
    assert len(ranges) == 2  # the old height, then the new one measured
    assert at_bottom(view)


def test_a_streamed_frame_that_adds_a_line_is_painted_in_one_pass(
        qtbot: Any, chat: tuple[ChatView, AgentBridge]) -> None:
    """The frame's changed line was marked for repainting before the column followed
    the new height; the column's scroll then made Qt paint it in a pass of its own,
    and the line that scrolled in in a second one (each pass a paint of the view and,
    on X11, a flush of the window)."""
    from PySide6.QtGui import QPaintEvent, QRegion

    view, bridge = chat
    view.add_message(Message.user("write a lot"))
    start(bridge)
    bridge.textDelta.emit(LONG[:3000])
    widget = view.widget_for("msg_a")
    assert widget is not None
    qtbot.waitUntil(lambda: "Paragraph 4" in widget.body.toPlainText(), timeout=5000)
    qtbot.waitUntil(lambda: at_bottom(view), timeout=5000)
    app = QApplication.instance()
    assert app is not None
    app.processEvents()
    paints: list[QRegion] = []

    class Painted(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if isinstance(event, QPaintEvent):
                paints.append(QRegion(event.region()))
            return False

    painted = Painted()
    widget.body.installEventFilter(painted)
    for words in (" that wrap the line" * 6, "\n\nNew paragraph.", " and more words" * 8):
        height = widget.body.height()
        paints.clear()
        bridge.textDelta.emit(words)
        widget.body._render_stream()
        qtbot.waitUntil(lambda: bool(paints), timeout=5000)
        app.processEvents()
        assert widget.body.height() > height and at_bottom(view)
        assert len(paints) == 1  # the changed line and the new one, in one pass
        assert paints[0].contains(QRect(0, widget.body.height() - 2, 1, 1))
    widget.body.removeEventFilter(painted)


def test_scrolling_up_stops_following_and_jump_returns(
        qtbot: Any, chat: tuple[ChatView, AgentBridge]) -> None:
    view, bridge = chat
    start(bridge)
    half = len(LONG) // 2
    for piece in pieces(LONG[:half]):
        bridge.textDelta.emit(piece)
    qtbot.waitUntil(lambda: at_bottom(view), timeout=5000)
    view.verticalScrollBar().setValue(0)  # the user scrolls up
    assert not view.is_following()
    for piece in pieces(LONG[half:]):
        bridge.textDelta.emit(piece)
    widget = view.widget_for("msg_a")
    assert widget is not None
    qtbot.waitUntil(lambda: "Paragraph 39" in widget.body.toPlainText(), timeout=5000)
    assert view.verticalScrollBar().value() == 0  # it stayed where the user put it
    assert view.jump_button.isVisible()
    qtbot.mouseClick(view.jump_button, Qt.MouseButton.LeftButton)
    assert at_bottom(view) and view.is_following()
    assert not view.jump_button.isVisible()
    bridge.textDelta.emit("\n\nOne more line at the end.")
    qtbot.waitUntil(lambda: "One more line" in widget.body.toPlainText(), timeout=5000)
    qtbot.waitUntil(lambda: at_bottom(view), timeout=5000)


def test_raw_html_stays_text(chat: tuple[ChatView, AgentBridge]) -> None:
    view, _ = chat
    text = '<script>alert("x")</script> <b>bold?</b> <img src="http://example.com/a.png">'
    widget = view.add_message(Message(role="assistant", parts=[TextPart(text=text)]))
    plain = widget.body.toPlainText()
    assert "<script>" in plain and "<b>bold?</b>" in plain and "<img src=" in plain
    for segment in widget.body._segments:
        assert segment.doc.loadResource(2, QUrl("http://example.com/a.png")) is None


def test_copy_actions(chat: tuple[ChatView, AgentBridge]) -> None:
    view, _ = chat
    text = "Use **this**:\n\n```python\nprint('hi')\n```\n\nDone."
    widget = view.add_message(Message(role="assistant", model="gpt-test",
                                      parts=[TextPart(text=text)],
                                      usage=Usage(input_tokens=1500, output_tokens=42)))
    clipboard = QGuiApplication.clipboard()
    widget.copy_markdown()
    assert clipboard.text() == text
    widget.copy_plain()
    assert clipboard.text() == "Use this:\n\nprint('hi')\n\nDone."
    widget.body.copy_code(1)
    assert clipboard.text() == "print('hi')"
    menu = widget.body.build_menu(QPointF(5, 5))
    labels = [a.text() for a in menu.actions()]
    assert "Copy message as Markdown" in labels and "Copy message as plain text" in labels
    assert "gpt-test" in widget.header.text()
    assert widget.tokens_label.text() == "1.5k in · 42 out"


def test_copy_button_on_code_block(qtbot: Any, chat: tuple[ChatView, AgentBridge]) -> None:
    view, _ = chat
    widget = view.add_message(Message(role="assistant", parts=[TextPart(
        text="```js\nlet a = 1;\n```")]))
    segment = widget.body._segments[0]
    rect = segment.copy_rect(widget.body.width())
    assert rect is not None
    qtbot.mouseClick(widget.body, Qt.MouseButton.LeftButton,
                     pos=rect.center().toPoint() + QPoint(0, segment.top))
    assert QGuiApplication.clipboard().text() == "let a = 1;"


def send_mouse(widget: QWidget, kind: QEvent.Type, point: QPoint,
               buttons: Qt.MouseButton) -> None:
    local = QPointF(point)
    event = QMouseEvent(kind, local, QPointF(widget.mapToGlobal(point)),
                        Qt.MouseButton.LeftButton, buttons, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, event)


def test_select_text_across_messages(qtbot: Any, chat: tuple[ChatView, AgentBridge]) -> None:
    view, _ = chat
    first = view.add_message(Message.user("Alpha question here"))
    second = view.add_message(Message(role="assistant", parts=[TextPart(
        text="Beta answer here")]))
    start_point = QPoint(2, 5)
    end_in_second = first.body.mapFromGlobal(
        second.body.mapToGlobal(QPoint(second.body.width() - 2, 5)))
    send_mouse(first.body, QEvent.Type.MouseButtonPress, start_point, Qt.MouseButton.LeftButton)
    send_mouse(first.body, QEvent.Type.MouseMove, end_in_second, Qt.MouseButton.LeftButton)
    send_mouse(first.body, QEvent.Type.MouseButtonRelease, end_in_second,
               Qt.MouseButton.NoButton)
    text = view.selection.text()
    assert "Alpha question here" in text and "Beta answer here" in text
    qtbot.keyClick(first.body, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == text


def test_select_all_copies_whole_conversation(
        qtbot: Any, chat: tuple[ChatView, AgentBridge]) -> None:
    view, _ = chat
    view.show_messages([Message.user("first"), Message(role="assistant", parts=[
        TextPart(text="second *answer*")])])
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == "first\n\nsecond answer"


def test_links_open_in_the_system_browser(
        qtbot: Any, chat: tuple[ChatView, AgentBridge], monkeypatch: Any) -> None:
    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    view, _ = chat
    widget = view.add_message(Message(role="assistant", parts=[TextPart(
        text="[docs](https://example.com/docs) and more")]))
    body: MarkdownView = widget.body
    with qtbot.waitSignal(body.linkActivated) as blocker:
        qtbot.mouseClick(body, Qt.MouseButton.LeftButton, pos=QPoint(8, 6))
    assert blocker.args == ["https://example.com/docs"]
    assert opened == ["https://example.com/docs"]
    body.open_link("file:///etc/passwd")
    assert opened == ["https://example.com/docs"]


def test_long_history_is_virtualized(qtbot: Any, chat: tuple[ChatView, AgentBridge]) -> None:
    view, _ = chat
    messages = []
    for i in range(300):
        messages.append(Message.user(f"question {i}"))
        messages.append(Message(role="assistant", parts=[TextPart(text=f"answer {i}\n\n"
                                                                       + LONG[:600])]))
    view.show_messages(messages)
    live = [item for item in view._items if item.widget is not None]
    assert 0 < len(live) < 30
    assert view._items[-1].widget is not None  # the last messages are shown first
    assert at_bottom(view)
    view.verticalScrollBar().setValue(0)
    assert view._items[0].widget is not None
    assert view._items[-1].widget is None  # far away again: destroyed
    first = view.widget_for(messages[0].id)
    assert first is not None and first.body.toPlainText() == "question 0"
    qtbot.keyClick(view, Qt.Key.Key_End)
    assert at_bottom(view) and view.is_following()


def test_reasoning_streams_then_collapses(qtbot: Any,
                                          chat: tuple[ChatView, AgentBridge]) -> None:
    view, bridge = chat
    start(bridge)
    bridge.reasoningDelta.emit("Let me think about **this**.")
    widget = view.widget_for("msg_a")
    assert widget is not None
    assert widget.reasoning_toggle.text() == "▾ Thinking…"
    assert widget.reasoning_view.isVisibleTo(widget)
    qtbot.waitUntil(lambda: "Let me think" in widget.reasoning_view.toPlainText(), timeout=3000)
    bridge.textDelta.emit("The answer.")
    assert widget.reasoning_toggle.text().startswith("▸ Thought for ")
    assert widget.reasoning_toggle.text().endswith(" s")
    assert not widget.reasoning_view.isVisibleTo(widget)
    widget.reasoning_toggle.click()
    assert widget.reasoning_view.isVisibleTo(widget)


def test_stored_reasoning_shows_duration(chat: tuple[ChatView, AgentBridge]) -> None:
    view, _ = chat
    message = Message(role="assistant", parts=[ReasoningPart(text="hmm", duration_s=12.2),
                                               TextPart(text="ok")])
    widget = view.add_message(message)
    assert widget.reasoning_toggle.text() == "▸ Thought for 12 s"


def test_zoom_and_theme_restyle(qtbot: Any, chat: tuple[ChatView, AgentBridge]) -> None:
    view, _ = chat
    widget = view.add_message(Message(role="assistant", parts=[TextPart(text="zoom me")]))
    size = widget.body._style.font.pointSizeF()
    view.zoom_in_action.trigger()
    assert theme.zoom() == 1
    widget = view.widget_for(view._items[0].messages[0].id)
    assert widget is not None and widget.body._style.font.pointSizeF() > size
    view.zoom_reset_action.trigger()
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    try:
        theme.apply_theme(app, "dark")
        widget = view.widget_for(view._items[0].messages[0].id)
        assert widget is not None and widget.body._style.dark
        assert view.theme_actions[2].isChecked()
    finally:
        theme.apply_theme(app, "light")
