"""The conversation: a scrolling column of message widgets that follows the stream."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from desktop.core.agent_events import (
    AssistantFinished,
    AssistantStarted,
    ToolRunFinished,
    ToolRunStarted,
)
from desktop.core.events import ToolCallStarted
from desktop.core.messages import Message, ToolCallPart
from desktop.ui.bridge import AgentBridge
from desktop.ui.message_widget import MessageWidget

MAX_WIDTH = 860


class ChatView(QScrollArea):
    def __init__(self, bridge: AgentBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        container = QWidget()
        container.setObjectName("chatContainer")
        row = QHBoxLayout(container)
        row.setContentsMargins(24, 16, 24, 16)
        column_widget = QWidget()
        column_widget.setMaximumWidth(MAX_WIDTH)
        row.addStretch(0)
        row.addWidget(column_widget, 1)
        row.addStretch(0)
        self._column = QVBoxLayout(column_widget)
        self._column.setContentsMargins(0, 0, 0, 0)
        self._column.setSpacing(10)
        self._empty = QLabel("Ask anything. Press Enter to send, Shift+Enter for a new line.")
        self._empty.setObjectName("emptyHint")
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._column.addWidget(self._empty, 1)
        self._column.addStretch(1)
        self.setWidget(container)
        self._widgets: dict[str, MessageWidget] = {}
        self._top_level: list[MessageWidget] = []
        self._current: MessageWidget | None = None
        self._tool_owner: dict[str, MessageWidget] = {}
        self._follow = True
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)
        self.verticalScrollBar().rangeChanged.connect(self._on_range)

        bridge.assistantStarted.connect(self._on_assistant_started)
        bridge.textDelta.connect(self._on_text)
        bridge.reasoningDelta.connect(self._on_reasoning)
        bridge.toolCallStreaming.connect(self._on_tool_streaming)
        bridge.toolRunStarted.connect(self._on_tool_started)
        bridge.toolRunFinished.connect(self._on_tool_finished)
        bridge.assistantFinished.connect(self._on_assistant_finished)

    # -- content ------------------------------------------------------------------------

    def clear(self) -> None:
        for widget in self._top_level:
            widget.setParent(None)
            widget.deleteLater()
        self._widgets.clear()
        self._top_level.clear()
        self._tool_owner.clear()
        self._current = None
        self._empty.show()

    def show_messages(self, messages: list[Message]) -> None:
        self.clear()
        results = {r.tool_call_id: r for m in messages for r in m.tool_results}
        for message in messages:
            if message.role in {"tool", "system"}:
                continue
            widget = self.add_message(message)
            for call in message.tool_calls:
                if call.id in results:
                    widget.add_tool_result(results[call.id])
        self._follow = True
        QTimer.singleShot(0, self.scroll_to_bottom)

    def add_message(self, message: Message) -> MessageWidget:
        """Append a message; an assistant message that continues a turn (after tool
        results) joins the previous assistant block instead of starting a new one."""
        self._empty.hide()
        last = self._last_top_level()
        if message.role == "assistant" and last is not None and last.role == "assistant":
            widget = MessageWidget(message, show_header=False, continuation=True)
            last.add_continuation(widget)
        else:
            widget = MessageWidget(message)
            self._column.insertWidget(self._column.count() - 1, widget)
            self._top_level.append(widget)
        self._widgets[message.id] = widget
        for call in message.tool_calls:
            self._tool_owner[call.id] = widget
        return widget

    def _last_top_level(self) -> MessageWidget | None:
        return self._top_level[-1] if self._top_level else None

    def widget_for(self, message_id: str) -> MessageWidget | None:
        return self._widgets.get(message_id)

    def scroll_to_message(self, message_id: str) -> None:
        widget = self._widgets.get(message_id)
        if widget is not None:
            self._follow = False
            self.ensureWidgetVisible(widget, 0, 40)

    # -- streaming ----------------------------------------------------------------------

    def _on_assistant_started(self, event: AssistantStarted) -> None:
        message = Message(id=event.message_id, role="assistant", model=event.model,
                          status="streaming")
        self._current = self.add_message(message)

    def _on_text(self, text: str) -> None:
        if self._current is not None:
            self._current.append_text(text)

    def _on_reasoning(self, text: str) -> None:
        if self._current is not None:
            self._current.append_reasoning(text)

    def _on_tool_streaming(self, event: ToolCallStarted) -> None:
        if self._current is not None:
            call = ToolCallPart(id=event.id, name=event.name, arguments="")
            self._current.add_tool_call(call)
            self._tool_owner[event.id] = self._current

    def _on_tool_started(self, event: ToolRunStarted) -> None:
        owner = self._widgets.get(event.message_id)
        if owner is not None:
            owner.add_tool_call(event.call)
            self._tool_owner[event.call.id] = owner

    def _on_tool_finished(self, event: ToolRunFinished) -> None:
        owner = self._tool_owner.get(event.result.tool_call_id)
        if owner is not None:
            owner.add_tool_result(event.result)

    def _on_assistant_finished(self, event: AssistantFinished) -> None:
        widget = self._widgets.get(event.message.id)
        if widget is not None:
            widget.flush()
            widget.set_status(event.message)
            if not event.message.text and not event.message.tool_calls and \
                    event.message.status == "complete":
                widget.set_message(event.message)
        self._current = None

    # -- follow the stream ------------------------------------------------------------------

    def _on_scrolled(self, value: int) -> None:
        bar = self.verticalScrollBar()
        self._follow = value >= bar.maximum() - 24

    def _on_range(self, _minimum: int, maximum: int) -> None:
        if self._follow:
            self.verticalScrollBar().setValue(maximum)

    def scroll_to_bottom(self) -> None:
        self._follow = True
        self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
