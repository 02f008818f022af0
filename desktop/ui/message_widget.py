"""One message in the chat: header, collapsible reasoning, tool line, markdown body."""

from __future__ import annotations

import time
from datetime import datetime

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QSizePolicy,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.messages import Message, ToolCallPart, ToolResultPart
from desktop.ui.markdown import render_markdown
from desktop.ui.theme import is_dark

RENDER_INTERVAL_MS = 50  # at most 20 re-renders a second while streaming


class MarkdownView(QTextBrowser):
    """A borderless rich-text view whose height follows its content."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setOpenExternalLinks(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextBrowserInteraction
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.viewport().setAutoFillBackground(False)
        self.setStyleSheet("QTextBrowser { background: transparent; }")
        self.document().setDocumentMargin(2)
        self.document().contentsChanged.connect(self._fit)

    def set_markdown(self, text: str) -> None:
        self.setHtml(render_markdown(text, dark=is_dark()))

    def _fit(self) -> None:
        doc = self.document()
        doc.setTextWidth(self.viewport().width())
        self.setFixedHeight(int(doc.size().height()) + 4)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def sizeHint(self) -> QSize:
        return QSize(400, self.height())


def _tool_line(calls: list[ToolCallPart], results: dict[str, ToolResultPart]) -> str:
    names = ", ".join(dict.fromkeys(c.name for c in calls))
    done = [results[c.id] for c in calls if c.id in results]
    if len(done) < len(calls):
        mark = "⏳"
    elif any(r.is_error for r in done):
        mark = "✗" if all(r.is_error for r in done) else "⚠"
    else:
        mark = "✓"
    noun = "tool call" if len(calls) == 1 else "tool calls"
    return f"⚙ {len(calls)} {noun} ({names}) {mark}"


class MessageWidget(QFrame):
    """Displays one user or assistant message; assistant text can stream in."""

    heightChanged = Signal()

    def __init__(self, message: Message, *, show_header: bool = True,
                 continuation: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message_id = message.id
        self.role = message.role
        if continuation:
            self.setObjectName("assistantContinuation")
        else:
            self.setObjectName("userMessage" if message.role == "user" else "assistantMessage")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        layout = QVBoxLayout(self)
        margin = 0 if continuation else 14
        layout.setContentsMargins(margin, 0 if continuation else 10, margin,
                                  0 if continuation else 10)
        layout.setSpacing(4)
        self._layout = layout
        self.header = QLabel(self._header_text(message))
        self.header.setObjectName("messageHeader")
        self.header.setVisible(show_header)
        layout.addWidget(self.header)

        self.reasoning_toggle = QToolButton()
        self.reasoning_toggle.setObjectName("reasoningToggle")
        self.reasoning_toggle.setCheckable(True)
        self.reasoning_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.reasoning_toggle.toggled.connect(self._toggle_reasoning)
        self.reasoning_view = MarkdownView()
        self.reasoning_view.setObjectName("reasoningView")
        layout.addWidget(self.reasoning_toggle)
        layout.addWidget(self.reasoning_view)
        self.reasoning_toggle.hide()
        self.reasoning_view.hide()

        self.tool_label = QLabel()
        self.tool_label.setObjectName("toolLine")
        self.tool_label.hide()
        layout.addWidget(self.tool_label)

        self.body = MarkdownView()
        layout.addWidget(self.body)
        self.status_label = QLabel()
        self.status_label.setObjectName("messageStatus")
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status_label.hide()
        layout.addWidget(self.status_label)

        self._text_chunks: list[str] = []
        self._reasoning_chunks: list[str] = []
        self._reasoning_started: float | None = None
        self._calls: list[ToolCallPart] = []
        self._results: dict[str, ToolResultPart] = {}
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(RENDER_INTERVAL_MS)
        self._render_timer.timeout.connect(self._render)
        self.set_message(message)

    @staticmethod
    def _header_text(message: Message) -> str:
        stamp = datetime.fromtimestamp(message.created_at).strftime("%H:%M")
        if message.role == "user":
            return f"You · {stamp}"
        model = f" · {message.model}" if message.model else ""
        return f"Assistant{model} · {stamp}"

    def add_continuation(self, widget: MessageWidget) -> None:
        """Show a later assistant message of the same turn inside this block."""
        self._layout.addWidget(widget)

    # -- whole message ----------------------------------------------------------------

    def set_message(self, message: Message) -> None:
        self._text_chunks = [message.text]
        self._reasoning_chunks = [message.reasoning]
        self._calls = message.tool_calls
        self._render()
        durations = [p.duration_s for p in message.parts
                     if p.type == "reasoning" and p.duration_s is not None]
        self._show_reasoning_header(sum(durations) if durations else None, collapse=True)
        self._update_tool_line()
        self.set_status(message)

    def set_status(self, message: Message) -> None:
        texts = {"stopped": "■ Stopped", "interrupted": "⚠ Interrupted — the app closed while "
                 "this answer was streaming", "error": "✗ "}
        if message.status in texts:
            extra = message.error or "" if message.status == "error" else ""
            self.status_label.setText(texts[message.status] + extra)
            self.status_label.setProperty("kind", message.status)
            self.status_label.show()
        else:
            self.status_label.hide()

    # -- streaming ----------------------------------------------------------------------

    def append_text(self, text: str) -> None:
        if self._reasoning_started is not None and self.reasoning_view.isVisible():
            self._show_reasoning_header(time.monotonic() - self._reasoning_started,
                                        collapse=True)
        self._text_chunks.append(text)
        self._schedule()

    def append_reasoning(self, text: str) -> None:
        if self._reasoning_started is None:
            self._reasoning_started = time.monotonic()
            self.reasoning_toggle.setText("▾ Thinking…")
            self.reasoning_toggle.show()
            self.reasoning_toggle.setChecked(True)
        self._reasoning_chunks.append(text)
        self._schedule()

    def add_tool_call(self, call: ToolCallPart) -> None:
        if all(c.id != call.id for c in self._calls):
            self._calls.append(call)
        self._update_tool_line()

    def add_tool_result(self, result: ToolResultPart) -> None:
        self._results[result.tool_call_id] = result
        self._update_tool_line()

    def _schedule(self) -> None:
        if not self._render_timer.isActive():
            self._render_timer.start()

    def flush(self) -> None:
        self._render_timer.stop()
        self._render()

    def _render(self) -> None:
        text = "".join(self._text_chunks)
        self._text_chunks = [text]
        self.body.set_markdown(text)
        self.body.setVisible(bool(text))
        reasoning = "".join(self._reasoning_chunks)
        self._reasoning_chunks = [reasoning]
        if reasoning:
            self.reasoning_view.set_markdown(reasoning)
        self.heightChanged.emit()

    def _show_reasoning_header(self, seconds: float | None, *, collapse: bool) -> None:
        if not "".join(self._reasoning_chunks):
            return
        label = f"Thought for {seconds:.0f} s" if seconds is not None else "Reasoning"
        self.reasoning_toggle.show()
        self.reasoning_toggle.setChecked(not collapse)
        self.reasoning_toggle.setText(("▾ " if not collapse else "▸ ") + label)
        self._reasoning_label = label

    def _toggle_reasoning(self, checked: bool) -> None:
        self.reasoning_view.setVisible(checked)
        label = getattr(self, "_reasoning_label", "Reasoning")
        if self._reasoning_started is not None and self.reasoning_toggle.text().endswith("…"):
            label = "Thinking…"
        self.reasoning_toggle.setText(("▾ " if checked else "▸ ") + label)

    def _update_tool_line(self) -> None:
        if self._calls:
            self.tool_label.setText(_tool_line(self._calls, self._results))
            self.tool_label.show()

    def plain_text(self) -> str:
        return "".join(self._text_chunks)


def copy_text(text: str) -> None:
    QGuiApplication.clipboard().setText(text)
