"""Tool-activity sidebar: one card per tool call, grouped by turn, live."""

from __future__ import annotations

import json
import time

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.agent_events import RunFinished, ToolRunFinished, ToolRunStarted
from desktop.core.messages import Message, ToolCallPart, ToolResultPart
from desktop.ui.bridge import AgentBridge

STATUS_TEXT = {
    "running": "⏳ running",
    "succeeded": "✓ succeeded",
    "failed": "✗ failed",
    "denied": "⊘ denied",
    "cancelled": "■ cancelled",
}


def summarize_arguments(arguments: str, limit: int = 60) -> str:
    """A one-line digest: the first string values of the argument object."""
    try:
        data = json.loads(arguments) if arguments.strip() else {}
    except json.JSONDecodeError:
        text = arguments
    else:
        values: list[str] = []

        def walk(value: object) -> None:
            if isinstance(value, dict):
                for item in value.values():
                    walk(item)
            elif isinstance(value, list):
                for item in value:
                    walk(item)
            elif value is not None:
                values.append(str(value))

        walk(data)
        text = ", ".join(values)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summarize_result(result: ToolResultPart, limit: int = 90) -> str:
    """A one-line digest of a result: the error message, or the result's values."""
    try:
        data = json.loads(result.content)
    except (json.JSONDecodeError, TypeError):
        data = None
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and error.get("message"):
            return summarize_arguments(json.dumps(str(error["message"])), limit)
        if "result" in data:
            return summarize_arguments(json.dumps(data["result"]), limit)
    return summarize_arguments(json.dumps(result.content), limit)


def pretty_json(text: str) -> str:
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (json.JSONDecodeError, TypeError):
        return text


class ToolCallCard(QFrame):
    clicked = Signal(str)  # message id of the turn

    def __init__(self, call: ToolCallPart, message_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolCard")
        self.call = call
        self.message_id = message_id
        self.started = time.monotonic()
        self.status = "running"
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(2)
        top = QHBoxLayout()
        self.expand = QToolButton()
        self.expand.setText("▸")
        self.expand.setAutoRaise(True)
        self.expand.setCheckable(True)
        self.expand.setAccessibleName(f"Show details of {call.name}")
        self.expand.toggled.connect(self._toggle)
        self.name_label = QLabel(call.name)
        self.name_label.setObjectName("toolCardName")
        self.status_label = QLabel()
        self.status_label.setObjectName("toolCardStatus")
        top.addWidget(self.expand)
        top.addWidget(self.name_label, 1)
        top.addWidget(self.status_label)
        layout.addLayout(top)
        self.args_label = QLabel(summarize_arguments(call.arguments))
        self.meta_label = QLabel()
        for label in (self.args_label, self.meta_label):
            label.setObjectName("toolCardMeta")
            label.setWordWrap(True)
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            layout.addWidget(label)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setMinimumHeight(160)
        self.details.hide()
        layout.addWidget(self.details)
        self._result: ToolResultPart | None = None
        self._set_status("running")

    def _set_status(self, status: str) -> None:
        self.status = status
        self.status_label.setText(STATUS_TEXT.get(status, status))
        self.status_label.setProperty("status", status)
        self.status_label.style().unpolish(self.status_label)
        self.status_label.style().polish(self.status_label)

    def tick(self) -> None:
        if self.status == "running":
            self.meta_label.setText(f"{time.monotonic() - self.started:.1f} s")

    def finish(self, result: ToolResultPart) -> None:
        self._result = result
        self._set_status(result.status)
        duration = result.duration_s if result.duration_s is not None else (
            time.monotonic() - self.started)
        self.meta_label.setText(f"{duration:.2f} s · {summarize_result(result)}")
        if self.details.isVisible():
            self._fill_details()

    def _fill_details(self) -> None:
        text = f"Arguments:\n{pretty_json(self.call.arguments)}\n"
        if self._result is not None:
            text += f"\nResult:\n{pretty_json(self._result.content)}"
        self.details.setPlainText(text)

    def _toggle(self, checked: bool) -> None:
        self.expand.setText("▾" if checked else "▸")
        if checked:
            self._fill_details()
        self.details.setVisible(checked)

    def mousePressEvent(self, event: object) -> None:
        self.clicked.emit(self.message_id)


class ToolSidebar(QWidget):
    messageClicked = Signal(str)

    def __init__(self, bridge: AgentBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolSidebar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(10, 10, 10, 10)
        title = QLabel("Tool activity")
        title.setObjectName("panelTitle")
        outer.addWidget(title)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        inner = QWidget()
        inner.setObjectName("toolSidebarInner")
        self.column = QVBoxLayout(inner)
        self.column.setContentsMargins(0, 0, 0, 0)
        self.column.setSpacing(6)
        self.empty = QLabel("Tool calls the assistant makes appear here.")
        self.empty.setObjectName("emptyHint")
        self.empty.setWordWrap(True)
        self.column.addWidget(self.empty)
        self.column.addStretch(1)
        self.scroll_area.setWidget(inner)
        outer.addWidget(self.scroll_area, 1)
        self.cards: dict[str, ToolCallCard] = {}  # latest card per call id
        self.all_cards: list[ToolCallCard] = []
        self._turn = 0
        self._turn_of_message: dict[str, int] = {}
        self._timer = QTimer(self)
        self._timer.setInterval(100)
        self._timer.timeout.connect(self._tick)
        bridge.toolRunStarted.connect(self._on_started)
        bridge.toolRunFinished.connect(self._on_finished)
        bridge.runFinished.connect(self._on_run_finished)

    def clear(self) -> None:
        while self.column.count() > 2:
            item = self.column.takeAt(1)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.cards.clear()
        self.all_cards.clear()
        self._turn = 0
        self._turn_of_message.clear()
        self.empty.show()

    def begin_turn(self) -> None:
        self._turn += 1
        self._turn_header_added = False

    def _add_turn_header(self) -> None:
        if getattr(self, "_turn_header_added", False):
            return
        self._turn_header_added = True
        header = QLabel(f"Turn {max(self._turn, 1)}")
        header.setObjectName("turnHeader")
        self.column.insertWidget(self.column.count() - 1, header)

    def add_call(self, call: ToolCallPart, message_id: str) -> ToolCallCard:
        self.empty.hide()
        self._add_turn_header()
        card = ToolCallCard(call, message_id)
        card.clicked.connect(self.messageClicked)
        self.column.insertWidget(self.column.count() - 1, card)
        self.cards[call.id] = card
        self.all_cards.append(card)
        QTimer.singleShot(0, lambda: self.scroll_area.ensureWidgetVisible(card))
        return card

    def show_history(self, messages: list[Message]) -> None:
        """Rebuild the list from a stored conversation."""
        self.clear()
        results = {r.tool_call_id: r for m in messages for r in m.tool_results}
        for message in messages:
            if message.role == "user":
                self.begin_turn()
            for call in message.tool_calls:
                card = self.add_call(call, message.id)
                if call.id in results:
                    card.finish(results[call.id])
                else:
                    card._set_status("cancelled")

    def _on_started(self, event: ToolRunStarted) -> None:
        self.add_call(event.call, event.message_id)
        self._timer.start()

    def _on_finished(self, event: ToolRunFinished) -> None:
        card = self.cards.get(event.result.tool_call_id)
        if card is not None:
            card.finish(event.result)

    def _on_run_finished(self, _event: RunFinished) -> None:
        self._tick()
        self._timer.stop()

    def _tick(self) -> None:
        running = False
        for card in self.all_cards:
            card.tick()
            running = running or card.status == "running"
        if not running:
            self._timer.stop()
