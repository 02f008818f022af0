"""Tool-activity sidebar: pending approvals on top, then every call grouped by turn and
updated live (status, spinner, duration, output), with a status filter.

The approval cards are the top of the same scrolling column as the calls, each at its
full height: several waiting cards in a small area of their own were cut to slivers."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.approvals import PendingApproval
from desktop.chat.server_questions import PendingQuestion
from desktop.core.agent_events import RunFinished, ToolRunFinished, ToolRunStarted
from desktop.core.messages import Message, ToolCallPart
from desktop.tools.approval import ToolProgress
from desktop.ui import locale_format, theme
from desktop.ui.tools.approval_card import ApprovalCard, approval_css
from desktop.ui.tools.call_progress import show_progress
from desktop.ui.tools.server_question_card import ServerQuestionsArea
from desktop.ui.tools.tool_call_text import (  # noqa: F401 - re-exported for callers and tests
    summarize_arguments,
    summarize_result,
)
from desktop.ui.tools.tool_card import STATUS_TEXT, ToolCallCard  # noqa: F401 - as above
from desktop.ui.window.bridge import AgentBridge

# (translated where they are shown); the text when a filter matches nothing beside each
FILTERS: list[tuple[str, str, str]] = [
    ("all", str(QT_TRANSLATE_NOOP("ToolSidebar", "All calls")), ""),
    ("awaiting_approval", str(QT_TRANSLATE_NOOP("ToolSidebar", "Waiting")),
     str(QT_TRANSLATE_NOOP("ToolSidebar", "No waiting calls."))),
    ("running", str(QT_TRANSLATE_NOOP("ToolSidebar", "Running")),
     str(QT_TRANSLATE_NOOP("ToolSidebar", "No running calls."))),
    ("succeeded", str(QT_TRANSLATE_NOOP("ToolSidebar", "Succeeded")),
     str(QT_TRANSLATE_NOOP("ToolSidebar", "No succeeded calls."))),
    ("failed", str(QT_TRANSLATE_NOOP("ToolSidebar", "Failed")),
     str(QT_TRANSLATE_NOOP("ToolSidebar", "No failed calls."))),
    ("denied", str(QT_TRANSLATE_NOOP("ToolSidebar", "Denied")),
     str(QT_TRANSLATE_NOOP("ToolSidebar", "No denied calls."))),
    ("cancelled", str(QT_TRANSLATE_NOOP("ToolSidebar", "Cancelled")),
     str(QT_TRANSLATE_NOOP("ToolSidebar", "No cancelled calls."))),
]


def sidebar_css(c: dict[str, str]) -> str:
    return approval_css(c) + f"""
#toolCardStatus[status="awaiting_approval"] {{ color: {c['warn']}; font-weight: 600; }}
#toolCardStatus[status="pending"] {{ color: {c['muted']}; }}
#toolCardStatus[status="running"] {{ color: {c['accent']}; }}
QToolButton#turnHeader {{ color: {c['muted']}; border: none; font-weight: 600;
    padding: 6px 0 0 0; }}
#toolOutput {{ background: {c['code_bg']}; border: 1px solid {c['border']};
    border-radius: 6px; }}
#approvalArea {{ background: transparent; }}
"""


class _Turn:
    def __init__(self, number: int, header: QToolButton) -> None:
        self.number = number
        self.header = header
        self.cards: list[ToolCallCard] = []
        self.collapsed = False

    def label(self, calls_text: str) -> str:
        """``calls_text``: "3 calls" (a plural form, which only tr() gives)."""
        arrow = "▸" if self.collapsed else "▾"
        return QCoreApplication.translate("ToolSidebar", "{arrow} Turn {number} · {calls}").format(
            arrow=arrow, number=self.number, calls=calls_text)


class ToolSidebar(QWidget):
    messageClicked = Signal(str)  # message id of the call's turn
    cancelRequested = Signal(str)  # call id
    approvalShown = Signal(str)  # call id: the window should make the sidebar visible
    chatRequested = Signal(str)  # session id: an approval card asks to show its chat

    def __init__(self, bridge: AgentBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolSidebar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(10, 10, 10, 10)
        outer.setSpacing(6)
        top = QHBoxLayout()
        title = QLabel(self.tr("Tool activity"))
        title.setObjectName("panelTitle")
        self.filter_combo = QComboBox()
        self.filter_combo.setAccessibleName(self.tr("Show calls"))
        self.filter_combo.setToolTip(self.tr("Show only calls with this status"))
        for key, text, _none in FILTERS:
            self.filter_combo.addItem(self.tr(text), key)
        self.filter_combo.currentIndexChanged.connect(lambda _i: self._apply_filter())
        top.addWidget(title, 1)
        top.addWidget(self.filter_combo)
        outer.addLayout(top)

        self._build_areas(outer)
        self.questions = ServerQuestionsArea()  # MCP servers asking, above the calls
        outer.insertWidget(1, self.questions)
        bridge.serverQuestion.connect(self._on_question)
        bridge.serverQuestionClosed.connect(self.questions.close_question)
        self.cards: dict[str, ToolCallCard] = {}  # latest card per call id
        self.all_cards: list[ToolCallCard] = []
        self.approval_cards: dict[str, ApprovalCard] = {}
        self.turns: list[_Turn] = []
        self._turn = 0
        self._turn_started = False
        self._timer = QTimer(self)
        self._timer.setInterval(100)
        self._timer.timeout.connect(self._tick)
        bridge.toolRunStarted.connect(self._on_started)
        bridge.toolRunFinished.connect(self._on_finished)
        bridge.runFinished.connect(self._on_run_finished)
        bridge.toolProgress.connect(self._on_progress)
        bridge.approvalRequested.connect(self.show_approval)
        bridge.approvalClosed.connect(self.close_approval)
        theme.notifier().changed.connect(self._restyle)
        self._restyle()

    def _build_areas(self, outer: QVBoxLayout) -> None:
        self.approvals_area = QWidget()
        self.approvals_area.setObjectName("approvalArea")
        self.approvals_layout = QVBoxLayout(self.approvals_area)
        self.approvals_layout.setContentsMargins(0, 0, 0, 6)
        self.approvals_layout.setSpacing(8)
        self.approvals_area.hide()

        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        inner = QWidget()
        inner.setObjectName("toolSidebarInner")
        self.column = QVBoxLayout(inner)
        self.column.setContentsMargins(0, 0, 0, 0)
        self.column.setSpacing(6)
        self.column.addWidget(self.approvals_area)
        self.empty = QLabel(self.tr("Tool calls the assistant makes appear here."))
        self.empty.setObjectName("emptyHint")
        self.empty.setWordWrap(True)
        self.column.addWidget(self.empty)
        self.column.addStretch(1)
        self.scroll_area.setWidget(inner)
        outer.addWidget(self.scroll_area, 1)


    def _restyle(self) -> None:
        self.setStyleSheet(sidebar_css(theme.colors()))

    # -- the list of calls --------------------------------------------------------------------

    def clear(self) -> None:
        while self.column.count() > 3:  # (not the approvals, the empty hint, the stretch)
            item = self.column.takeAt(2)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()
                widget.deleteLater()
        self.questions.clear()  # a chat's open questions come back with its replay
        self.cards.clear()
        self.all_cards.clear()
        self.turns.clear()
        self._turn = 0
        self._turn_started = False
        self._update_counts()
        self._apply_filter()

    def begin_turn(self) -> None:
        self._turn += 1
        self._turn_started = False

    def _current_turn(self) -> _Turn:
        if not self._turn_started or not self.turns:
            self._turn_started = True
            header = QToolButton()
            header.setObjectName("turnHeader")
            header.setAutoRaise(True)
            turn = _Turn(max(self._turn, 1), header)
            header.clicked.connect(lambda: self._toggle_turn(turn))
            header.setAccessibleName(self.tr("Turn {number}").format(number=turn.number))
            self.turns.append(turn)
            self.column.insertWidget(self.column.count() - 1, header)
        return self.turns[-1]

    def _toggle_turn(self, turn: _Turn) -> None:
        turn.collapsed = not turn.collapsed
        self._apply_filter()

    def add_call(self, call: ToolCallPart, message_id: str) -> ToolCallCard:
        turn = self._current_turn()
        card = ToolCallCard(call, message_id)
        card.clicked.connect(self.messageClicked)
        card.cancelRequested.connect(self.cancelRequested)
        card.statusChanged.connect(lambda _s, c=card: self._status_changed(c))
        self.column.insertWidget(self.column.count() - 1, card)
        turn.cards.append(card)
        self.cards[call.id] = card
        self.all_cards.append(card)
        self._status_changed(card)
        if not self.approval_cards:  # (else the cards waiting on top stay in view)
            QTimer.singleShot(0, lambda: self._reveal(card))
        return card

    def _reveal(self, card: ToolCallCard) -> None:
        """Scroll the list so that ``card`` shows (if it still exists and is shown)."""
        if card in self.all_cards and card.isVisibleTo(self):
            self.scroll_area.ensureWidgetVisible(card, 0, 10)

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
                    card.set_status(self.tr("cancelled"))

    # -- filter ----------------------------------------------------------------------------

    def filter_key(self) -> str:
        return str(self.filter_combo.currentData() or "all")

    def set_filter(self, key: str) -> None:
        index = self.filter_combo.findData(key)
        if index >= 0:
            self.filter_combo.setCurrentIndex(index)

    def _matches(self, card: ToolCallCard) -> bool:
        key = self.filter_key()
        if key in ("all", card.status):
            return True
        return key == "running" and card.status == "pending"

    def _apply_filter(self) -> None:
        shown = 0
        for turn in self.turns:
            matching = [c for c in turn.cards if self._matches(c)]
            turn.header.setVisible(bool(matching))
            turn.header.setText(turn.label(self.tr("%n calls", "", len(turn.cards))))
            for card in turn.cards:
                card.setVisible(card in matching and not turn.collapsed)
            shown += len(matching)
        if not self.all_cards:
            self.empty.setText(self.tr("Tool calls the assistant makes appear here."))
        else:
            none = FILTERS[max(0, self.filter_combo.currentIndex())][2]
            self.empty.setText(self.tr(none) if none else "")
        self.empty.setVisible(shown == 0)

    def _update_counts(self) -> None:
        for index, (key, text, _none) in enumerate(FILTERS):
            n = len(self.all_cards) if key == "all" else sum(
                1 for c in self.all_cards if c.status == key)
            name = self.tr(text)
            self.filter_combo.setItemText(index, f"{name} ({locale_format.integer(n)})" if n
                                          else name)

    def _status_changed(self, card: ToolCallCard) -> None:
        self._update_counts()
        self._apply_filter()
        if card.active and not self._timer.isActive():
            self._timer.start()

    # -- approvals ---------------------------------------------------------------------------

    def show_approval(self, pending: PendingApproval) -> ApprovalCard:
        """Pin an approval card on top; it stays until :meth:`close_approval`."""
        request = pending.request
        old = self.approval_cards.pop(request.call_id, None)
        if old is not None:
            old.deleteLater()
        card = ApprovalCard(pending)
        card.chatRequested.connect(self.chatRequested)
        # Keep the cards in the order the model asked for the calls
        order = {c.call.id: i for i, c in enumerate(self.all_cards)}
        self.approval_cards[request.call_id] = card
        self.approval_cards = dict(sorted(self.approval_cards.items(),
                                          key=lambda kv: order.get(kv[0], len(order))))
        self.approvals_layout.insertWidget(list(self.approval_cards).index(request.call_id), card)
        self.approvals_area.show()
        call_card = self.cards.get(request.call_id)
        if call_card is not None:
            call_card.set_preview(request.preview)
            if call_card.result is None and call_card.status != "awaiting_approval":
                call_card.set_status(self.tr("awaiting_approval"))
        self._update_shortcuts()
        first = next(iter(self.approval_cards.values()))
        QTimer.singleShot(0, lambda: self._reveal_approval(first))
        self.approvalShown.emit(request.call_id)
        return card

    def close_approval(self, call_id: str) -> None:
        card = self.approval_cards.pop(call_id, None)
        if card is None:
            return
        had_focus = card.isAncestorOf(self.focusWidget()) if self.focusWidget() else False
        card.hide()
        self.approvals_layout.removeWidget(card)
        card.deleteLater()
        self.approvals_area.setVisible(bool(self.approval_cards))
        self._update_shortcuts()
        if had_focus and self.approval_cards:
            next(iter(self.approval_cards.values())).allow_once_button.setFocus()

    def focus_approval(self) -> bool:
        """Move the keyboard focus to the first pending approval (False if none)."""
        for card in self.approval_cards.values():
            card.allow_once_button.setFocus()
            return True
        return False

    def _update_shortcuts(self) -> None:
        for index, card in enumerate(self.approval_cards.values()):
            card.set_shortcuts(index == 0)

    def _reveal_approval(self, card: ApprovalCard) -> None:
        """Scroll to the top of the first waiting card (if it still waits)."""
        column = self.scroll_area.widget()
        if card in self.approval_cards.values() and column is not None:
            self.scroll_area.verticalScrollBar().setValue(
                card.mapTo(column, card.rect().topLeft()).y())

    # -- bridge signals ------------------------------------------------------------------------

    def _on_started(self, event: ToolRunStarted) -> None:
        self.add_call(event.call, event.message_id)

    def _on_question(self, question: PendingQuestion) -> None:
        if self.questions.ask(question) is not None:
            self.approvalShown.emit(question.id)  # the window shows the panel

    def _on_progress(self, progress: ToolProgress) -> None:
        card = self.cards.get(progress.call_id)
        if card is None or card.result is not None:
            return
        if progress.kind == "progress":
            show_progress(card, progress)
        elif progress.kind == "status":
            card.set_status(progress.text)
        else:
            card.append_output(progress.text)

    def _on_finished(self, event: ToolRunFinished) -> None:
        card = self.cards.get(event.result.tool_call_id)
        if card is not None:
            card.finish(event.result)

    def _on_run_finished(self, _event: RunFinished) -> None:
        self._tick()

    def _tick(self) -> None:
        running = False
        for card in self.all_cards:
            if card.active:
                card.tick()
                running = True
        if not running:
            self._timer.stop()
