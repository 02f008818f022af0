"""The conversation: a virtualized column of message blocks that follows the stream
(the column itself: :mod:`desktop.ui.chat.chat_layout`). Opening a chat lays out the last
messages first; older ones are built as the user scrolls up, far ones destroyed again.
While an answer streams in, the view follows it unless the user scrolled up."""

from __future__ import annotations

import bisect
import gc
import threading
from collections.abc import Callable
from functools import partial

from PySide6.QtCore import QPoint, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeyEvent, QKeySequence, QMouseEvent
from PySide6.QtWidgets import QApplication, QWidget

from desktop.chat.message_edits import can_continue
from desktop.core.agent_events import (
    AssistantFinished,
    AssistantStarted,
    ToolRunFinished,
    ToolRunStarted,
)
from desktop.core.events import ToolCallStarted
from desktop.core.messages import Message, ToolCallPart
from desktop.ui import theme
from desktop.ui.chat.chat_find import ChatFind
from desktop.ui.chat.chat_items import ChatItem, group_messages
from desktop.ui.chat.chat_layout import VirtualColumn
from desktop.ui.chat.chat_selection import Endpoint
from desktop.ui.chat.message_widget import MessageWidget
from desktop.ui.chat.turn_status import TurnStatus
from desktop.ui.markdown.renderer import (
    WARM_LANGUAGES,
    highlight_code,
    renderer,
    warm_highlighters,
)
from desktop.ui.window.bridge import AgentBridge

END = 10**9  # a body index past every real one: "to the end of this block"
WARM_UP_AFTER_MS = 300  # after a chat with messages is first shown
WARM_THREAD = "assista-highlighters"
WARM_UP_STEP_MS = 50  # between two warm-up steps (each a few to ~40 ms, once)


class ChatView(VirtualColumn):
    """The conversation: stored messages, the streaming answer, selection, copy, keys."""

    editRequested = Signal(str, str)  # user message id, its text
    regenerateRequested = Signal(str)  # first assistant message id of the turn
    branchStepRequested = Signal(str, int)  # message id, -1 / +1
    deleteRequested = Signal(str)  # message id: it and what follows
    forkRequested = Signal(str)  # message id: a new chat down to it
    continueRequested = Signal()  # the last answer was cut off: go on
    memoryUndoRequested = Signal(str)  # a memory's id: forget what a turn remembered

    def __init__(self, bridge: AgentBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatView")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName(self.tr("Conversation"))
        self.selection.locate = self._locate
        self.selection.collect = self._collect
        self.selection.everything = self._everything
        self._by_message: dict[str, int] = {}
        self._tool_owner: dict[str, str] = {}  # call id -> message id
        self._current: MessageWidget | None = None
        self._editing: str | None = None  # the user message in the composer, if any
        self._step_anchor: tuple[int, int] | None = None  # (item, offset) kept by ‹ ›
        self.turn_status = TurnStatus()
        self.turn_status.changed.connect(self._relayout)
        self.set_tail(self.turn_status)
        # "2/3" for a message with other versions (set by the window), else None
        self.branch_label: Callable[[str], str | None] = lambda _message_id: None
        self._warmed = False
        self.finder = ChatFind(self)  # Ctrl+F, and the words of a search hit
        self._build_actions()

        bridge.assistantStarted.connect(self._on_assistant_started)
        bridge.textDelta.connect(self._on_text)
        bridge.reasoningDelta.connect(self._on_reasoning)
        bridge.toolCallStreaming.connect(self._on_tool_streaming)
        bridge.toolRunStarted.connect(self._on_tool_started)
        bridge.toolRunFinished.connect(self._on_tool_finished)
        bridge.assistantFinished.connect(self._on_assistant_finished)
        bridge.retrying.connect(self.turn_status.show_retry)
        bridge.queued.connect(self.turn_status.show_queued)

    def _widget_created(self, widget: MessageWidget) -> None:
        bar = widget.branch_bar
        message_id = widget.message_id
        widget.header_row.set_versions(self.branch_label(message_id))
        bar.stepRequested.connect(partial(self._step, widget))
        header = widget.header_row
        header.deleteRequested.connect(partial(self.deleteRequested.emit, message_id))
        header.forkRequested.connect(partial(self._fork_from, message_id))
        header.continueRequested.connect(self.continueRequested)
        widget.memoryUndoRequested.connect(self.memoryUndoRequested)
        header.can_continue = partial(self._can_continue, message_id)
        widget.set_editing(message_id == self._editing)
        self.finder.widget_built(self._by_message[message_id], widget)
        if widget.role == "user":
            bar.actionRequested.connect(
                lambda: self.editRequested.emit(message_id, widget.message.body_text))
        else:
            bar.actionRequested.connect(partial(self.regenerateRequested.emit, message_id))

    def _can_continue(self, message_id: str) -> bool:
        """Continue is offered on the last answer when it was cut off."""
        index = self._by_message.get(message_id)
        return (self._current is None and index is not None and index == len(self._items) - 1
                and can_continue(self._items[index].messages[-1]))

    def _fork_from(self, message_id: str) -> None:
        """Fork down to the whole block (an answer's tool rounds come along)."""
        index = self._by_message.get(message_id)
        last = self._items[index].messages[-1].id if index is not None else message_id
        self.forkRequested.emit(last)

    def _step(self, widget: MessageWidget, step: int) -> None:
        """‹ or ›: remember where the block is, so that the other version's switcher
        comes up under the pointer again (see :meth:`show_messages`)."""
        index = self._by_message.get(widget.message_id)
        if index is not None:
            self._step_anchor = (index, self._tops[index] - self._value())
        self.branchStepRequested.emit(widget.message_id, step)
        self._step_anchor = None

    def set_editing(self, message_id: str | None) -> None:
        """Highlight the user message being edited in the composer (None: none)."""
        self._editing = message_id
        for widget in self._by_widget():
            widget.set_editing(widget.message_id == message_id)

    def refresh_branch_labels(self) -> None:
        """Re-read the ‹ n/m › labels of the messages on screen (after a turn)."""
        for widget in self._by_widget():
            widget.header_row.set_versions(self.branch_label(widget.message_id))

    def _by_widget(self) -> list[MessageWidget]:
        return [item.widget for item in self._items if item.widget is not None]

    def _build_actions(self) -> None:
        def action(text: str, keys: list[QKeySequence], slot: object) -> QAction:
            act = QAction(text, self)
            act.setShortcuts(keys)
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            act.triggered.connect(slot)
            self.addAction(act)
            return act

        self.zoom_in_action = action(self.tr("Zoom &in"), [QKeySequence("Ctrl+="), QKeySequence(
            QKeySequence.StandardKey.ZoomIn)], lambda: theme.zoom_by(1))
        self.zoom_out_action = action(self.tr("Zoom &out"), [QKeySequence("Ctrl+-")],
                                      lambda: theme.zoom_by(-1))
        self.zoom_reset_action = action(self.tr("&Actual size"), [QKeySequence("Ctrl+0")],
                                        lambda: theme.set_zoom(0))
        self.theme_group = QActionGroup(self)
        self.theme_actions: list[QAction] = []
        for mode, label in [("system", self.tr("Theme: follow &system")),
                            ("light", self.tr("Theme: &light")),
                            ("dark", self.tr("Theme: &dark")),
                            ("high_contrast", self.tr("Theme: &high contrast"))]:
            act = QAction(label, self.theme_group)
            act.setCheckable(True)
            act.setChecked(theme.mode() == mode)
            act.triggered.connect(partial(self._set_theme, mode))
            self.theme_actions.append(act)

    def view_actions(self) -> list[QAction]:
        """Zoom and theme actions for the window's View menu (shortcuts already work)."""
        return [self.zoom_in_action, self.zoom_out_action, self.zoom_reset_action,
                *self.theme_actions]

    @staticmethod
    def _set_theme(mode: str) -> None:
        app = QApplication.instance()
        if isinstance(app, QApplication):
            theme.apply_theme(app, mode)

    # -- content ------------------------------------------------------------------------

    def clear(self) -> None:
        for index in list(self._materialized()):
            self._release(index)
        self._items.clear()
        self._by_message.clear()
        self._tool_owner.clear()
        self._pinned.clear()
        self._current = None
        self.selection.clear()
        self.turn_status.clear()
        self._relayout()

    def show_messages(self, messages: list[Message]) -> None:
        """Show a stored chat, last messages first (another version: its block stays put)."""
        anchor = self._step_anchor
        if messages and not self._warmed:  # (at start-up it slowed the first frames)
            self._warmed = True
            QTimer.singleShot(WARM_UP_AFTER_MS, self._warm_up)
        self.clear()
        self._items = group_messages(messages)
        for index, item in enumerate(self._items):
            self._index_item(index, item)
        self._follow = anchor is None
        self._relayout()
        if anchor is not None and anchor[0] < len(self._items):
            for _attempt in range(3):  # estimates above it become measurements
                self._set_value(self._tops[anchor[0]] - anchor[1])
                self._relayout()
        # A long history is many long-lived objects: keep them out of the cyclic garbage
        # collector's full passes, which would otherwise stall scrolling for ~100 ms.
        gc.freeze()

    def warm_up_soon(self) -> None:
        """Warm up even when no stored chat shows (a new data folder's first answer
        built the highlighters while it streamed), where they are built on a thread of
        their own (see :meth:`_warm_up`); otherwise the first stored chat shown does."""
        if not self._warmed and not gc.isenabled():
            self._warmed = True
            QTimer.singleShot(WARM_UP_AFTER_MS, self._warm_up)

    def _warm_up(self, languages: tuple[str, ...] | None = None) -> None:
        """Once a stored chat shows, the parser and then the common code highlighters
        are made ready (their imports and regular expressions take a few to ~55 ms
        each, the first time): a code block shown later is not held up by them.

        The parser on this thread. The highlighters on a thread of their own when the
        window collects Python's garbage on this one (:mod:`desktop.ui.collector`):
        the first of them, one step here, held the window ~55 ms right after it had
        loaded. Otherwise (no collector: a collection started on that thread could
        destroy Qt objects there) one per step here, with the window's events handled
        between steps."""
        if self._current is not None:  # (not beside a stream either)
            QTimer.singleShot(WARM_UP_AFTER_MS, lambda: self._warm_up(languages))
            return
        style = renderer(theme.is_dark()).palette.pygments_style
        if languages is None:  # (the first step: the parser)
            languages = WARM_LANGUAGES
            if not gc.isenabled():
                threading.Thread(target=warm_highlighters, args=(languages, style),
                                 name=WARM_THREAD, daemon=True).start()
                return
        else:
            highlight_code("x = 1\n", languages[0], style)
            languages = languages[1:]
        if languages:
            QTimer.singleShot(WARM_UP_STEP_MS, lambda: self._warm_up(languages))

    def add_message(self, message: Message) -> MessageWidget:
        """Append a message; an assistant message that continues a turn (after tool
        results) joins the previous assistant block instead of starting a new one."""
        if message.role == "assistant" and self._items and self._items[-1].role == "assistant":
            index = len(self._items) - 1
            item = self._items[index]
            item.messages.append(message)
            if item.widget is not None:
                self._add_continuation(index, item.widget, len(item.messages) - 1)
        else:
            item = ChatItem([message])
            self._items.append(item)
            index = len(self._items) - 1
        self._index_item(index, item)
        self.forget_height(index)
        self._relayout()
        widget = self.widget_for(message.id)
        assert widget is not None
        return widget

    def _index_item(self, index: int, item: ChatItem) -> None:
        for message in item.messages:
            self._by_message[message.id] = index
            for call in message.tool_calls:
                self._tool_owner[call.id] = message.id

    def widget_for(self, message_id: str) -> MessageWidget | None:
        """The widget showing a message (created now if it was scrolled away)."""
        index = self._by_message.get(message_id)
        if index is None:
            return None
        first = self._materialize(index)
        if first.message_id == message_id:
            return first
        return next((w for w in first.continuations if w.message_id == message_id), None)

    def scroll_to_message(self, message_id: str) -> None:
        widget = self.widget_for(message_id)
        index = self._by_message.get(message_id)
        if widget is None or index is None:
            return
        first = self._items[index].widget
        offset = widget.mapTo(first, QPoint(0, 0)).y() \
            if first is not None and widget is not first else 0
        self._follow = False
        self._set_value(self._tops[index] + offset - 40)
        self._relayout()

    # -- streaming ----------------------------------------------------------------------

    def _on_assistant_started(self, event: AssistantStarted) -> None:
        message = Message(id=event.message_id, role="assistant", model=event.model,
                          status="streaming")
        self._current = self.add_message(message)
        self._pinned.add(self._by_message[message.id])
        self.turn_status.show_thinking()

    def _on_text(self, text: str) -> None:
        if self.turn_status.kind:
            self.turn_status.first_token()
        if self._current is not None:
            self._current.append_text(text)

    def _on_reasoning(self, text: str) -> None:
        if self.turn_status.kind:
            self.turn_status.first_token()
        if self._current is not None:
            self._current.append_reasoning(text)

    def _on_tool_streaming(self, event: ToolCallStarted) -> None:
        self.turn_status.first_token()
        if self._current is not None:
            self._current.add_tool_call(ToolCallPart(id=event.id, name=event.name,
                                                     arguments=""))
            self._tool_owner[event.id] = self._current.message_id

    def _on_tool_started(self, event: ToolRunStarted) -> None:
        self._tool_owner[event.call.id] = event.message_id
        owner = self._live_widget(event.message_id)
        if owner is not None:
            owner.add_tool_call(event.call)

    def _on_tool_finished(self, event: ToolRunFinished) -> None:
        message_id = self._tool_owner.get(event.result.tool_call_id)
        if message_id is None:
            return
        index = self._by_message[message_id]
        self._items[index].results[event.result.tool_call_id] = event.result
        owner = self._live_widget(message_id)
        if owner is not None:
            owner.add_tool_result(event.result)

    def _on_assistant_finished(self, event: AssistantFinished) -> None:
        message = event.message
        index = self._by_message.get(message.id)
        if index is not None:
            self._items[index].replace(message)
            self._index_item(index, self._items[index])
        widget = self._live_widget(message.id)
        if widget is not None:
            widget.flush()
            widget.set_status(message)
            if not message.text and not message.tool_calls and message.status == "complete":
                widget.set_message(message)
            elif any(p.type == "image" for p in message.parts):
                widget.show_images(message)
            parent = widget.parentWidget()
            if isinstance(parent, MessageWidget):
                parent.update_usage()
        self._pinned.discard(index if index is not None else -1)
        self._current = None

    def _live_widget(self, message_id: str) -> MessageWidget | None:
        index = self._by_message.get(message_id)
        if index is None or self._items[index].widget is None:
            return None
        return self.widget_for(message_id)

    def _restyle(self) -> None:
        super()._restyle()
        for act, mode in zip(self.theme_actions, theme.MODES, strict=True):
            act.setChecked(theme.mode() == mode)

    # -- selection across messages ------------------------------------------------------

    def _locate(self, global_point: QPoint) -> Endpoint | None:
        point = self.viewport().mapFromGlobal(global_point)
        height = self.viewport().height()
        if point.y() < 0 or point.y() > height:  # dragging past an edge scrolls
            step = point.y() if point.y() < 0 else point.y() - height
            self._follow = False
            self._set_value(self._value() + max(-60, min(60, step)))
            self._relayout()
            point.setY(max(0, min(height - 1, point.y())))
        index = max(0, bisect.bisect_right(self._tops, self._value() + point.y()) - 1)
        if index >= len(self._items):
            return None
        widget = self._materialize(index)
        views = [v for v in widget.views() if v.isVisibleTo(widget)]
        if not views:
            return ((index, END), 0, 0)
        chosen = views[0]
        for view in views:
            if view.mapTo(self.viewport(), QPoint(0, 0)).y() <= point.y():
                chosen = view
        return chosen.endpoint_at(QPointF(chosen.mapFrom(self.viewport(), point)))

    def _collect(self, start: Endpoint, end: Endpoint) -> str:
        parts: list[str] = []
        for index in range(start[0][0], min(end[0][0], len(self._items) - 1) + 1):
            item = self._items[index]
            partial_item = index in (start[0][0], end[0][0])
            if item.widget is None and not partial_item:
                parts.append(item.markdown())
                continue
            widget = self._materialize(index)
            for view in widget.views():
                if start[0] <= view.key <= end[0] and (view.isVisibleTo(widget)
                                                       or view.key in (start[0], end[0])):
                    parts.append(view.text_in(view.key, start, end))
        return "\n\n".join(p for p in parts if p.strip())

    def _everything(self) -> tuple[Endpoint, Endpoint] | None:
        if not self._items:
            return None
        return ((0, -1), 0, 0), ((len(self._items) - 1, END), 0, 0)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.selection.clear()
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        super().mousePressEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if event.matches(QKeySequence.StandardKey.Copy):
            self.selection.copy()
        elif event.matches(QKeySequence.StandardKey.SelectAll):
            self.selection.select_all()
        elif key == Qt.Key.Key_End or event.matches(QKeySequence.StandardKey.MoveToEndOfDocument):
            self.scroll_to_bottom()
        elif key == Qt.Key.Key_Home or event.matches(
                QKeySequence.StandardKey.MoveToStartOfDocument):
            self._follow = False
            self._set_value(0)
            self._relayout()
        else:
            super().keyPressEvent(event)

