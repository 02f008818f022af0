"""One column of the compare view: a model's answer streaming live under a header
with the model, its figures (first token, tokens/s, tokens, cost), Stop and Keep.

The answer is shown by the chat's own view (:class:`~desktop.ui.chat.chat_view.ChatView`,
fed by a bridge of its own), so it streams, renders Markdown, shows reasoning, tool
calls and approvals exactly as the chat does. The column only observes its
:class:`~desktop.chat.compare_run.CompareColumn`; Stop and Keep are requests to the
view's owner, which asks the chat service.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop.chat.answer_figures import AnswerFigures, LiveMeter
from desktop.chat.approvals import PendingApproval
from desktop.chat.compare_run import CompareColumn
from desktop.chat.events import (
    ChatEvent,
    ConfirmRequested,
    ProviderRetrying,
    SaveFailed,
    TurnEnded,
    TurnFailed,
    TurnQueued,
)
from desktop.core.agent_events import AgentEvent
from desktop.core.events import TextDelta
from desktop.core.pricing import Price
from desktop.tools.approval import ToolProgress
from desktop.ui import icons, locale_format
from desktop.ui.chat.chat_view import ChatView
from desktop.ui.error_text import error_text
from desktop.ui.plain_text import plain_tooltip
from desktop.ui.window.bridge import AgentBridge

FIGURES_MS = 250  # the figures of a streaming answer are redrawn this often


class CompareColumnView(QFrame):
    stopRequested = Signal(int)  # column index
    keepRequested = Signal(int)

    def __init__(self, column: CompareColumn, prices: Callable[[], Mapping[str, Price]],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareColumn")
        self.column = column
        self.prices = prices
        self.meter = LiveMeter()
        self.bridge = AgentBridge(self)
        self.chat = ChatView(self.bridge)
        self.chat.prices = prices
        for action in self.chat.actions():  # the window's zoom/theme shortcuts stay unique
            self.chat.removeAction(action)
        target = column.target
        self.setAccessibleName(self.tr("Answer of {model}").format(model=target.name))
        self.title = QLabel(target.name)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setObjectName("compareTitle")
        self.title.setToolTip(plain_tooltip(f"{target.model} — {target.config.name}"))
        self.provider = QLabel(target.config.name)
        self.provider.setTextFormat(Qt.TextFormat.PlainText)
        self.provider.setObjectName("emptyHint")
        self.figures = QLabel()
        self.figures.setObjectName("tokenCount")
        self.figures.setTextFormat(Qt.TextFormat.PlainText)
        self.figures.setWordWrap(True)
        self.figures.setAccessibleName(self.tr("Figures of this answer"))
        self.state = QLabel()
        self.state.setObjectName("messageStatus")
        self.state.setWordWrap(True)
        self.state.setTextFormat(Qt.TextFormat.PlainText)  # errors come from servers
        self.stop_button = QPushButton()
        icons.set_icon(self.stop_button, "circle-stop", self.tr("Stop this answer (the "
                       "others go on); what it wrote so far is kept"),
                       self.tr("Stop {model}").format(model=target.name))
        self.stop_button.clicked.connect(lambda: self.stopRequested.emit(column.index))
        self.keep_button = QPushButton(self.tr("Keep this one"))
        self.keep_button.setObjectName("primaryButton")
        self.keep_button.setToolTip(self.tr("Show this answer in the chat and go on from it; "
                                            "the other answers stay as its other versions "
                                            "(‹ n/m ›)"))
        self.keep_button.setAccessibleName(self.tr("Keep the answer of {model}").format(
            model=target.name))
        self.keep_button.clicked.connect(lambda: self.keepRequested.emit(column.index))
        self.chat.turn_status.confirmAnswered.connect(column.turn.answer_confirm)
        not_yet(self.chat, self._not_yet)
        self._layout(target.name)
        self._timer = QTimer(self)
        self._timer.setInterval(FIGURES_MS)
        self._timer.timeout.connect(self.show_figures)
        self._timer.start()
        self._unobserve = column.observe(self._on_event)
        self._ended(column.ended)

    def _layout(self, name: str) -> None:
        top = QHBoxLayout()
        names = QVBoxLayout()
        names.setSpacing(0)
        names.addWidget(self.title)
        names.addWidget(self.provider)
        top.addLayout(names, 1)
        top.addWidget(self.stop_button)
        head = QVBoxLayout()
        head.setContentsMargins(12, 10, 12, 6)
        head.addLayout(top)
        head.addWidget(self.figures)
        head.addWidget(self.state)
        head.addWidget(self.keep_button)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        box.addLayout(head)
        box.addWidget(self.chat, 1)
        self.chat.setAccessibleName(self.tr("Answer of {model}").format(model=name))

    # -- what the column streams --------------------------------------------------------

    def _on_event(self, event: ChatEvent) -> None:
        self.meter(event)
        if type(event) is TextDelta:
            self.bridge.textDelta.emit(event.text)
        elif isinstance(event, ToolProgress):
            self.bridge.toolProgress.emit(event)
        elif isinstance(event, ProviderRetrying):
            self.bridge.retrying.emit(event)
        elif isinstance(event, TurnQueued):
            self.bridge.queued.emit(event.waiting)
        elif isinstance(event, ConfirmRequested):
            self.chat.turn_status.show_confirm(event.rounds)
        elif isinstance(event, TurnFailed | SaveFailed):
            self.state.setText(error_text(event.info, event.message)
                               if isinstance(event, TurnFailed) else event.message)
            self.state.setProperty("kind", "error")
        elif isinstance(event, TurnEnded):
            self._ended(True)
        elif isinstance(event, AgentEvent):
            self.bridge(event)
            self.show_figures()

    def _ended(self, ended: bool) -> None:
        self.stop_button.setEnabled(not ended)
        self.keep_button.setEnabled(ended and self.column.first_id is not None)
        if not ended:
            return
        self._timer.stop()
        self.chat.turn_status.clear()
        status = self.column.status
        if status == "failed":
            error = self.column.error
            self.state.setText(self.tr("Failed: {error}").format(
                error=error_text(self.column.error_info, error) if error
                else self.tr("unknown error")))
        elif status == "stopped":
            self.state.setText(self.tr("Stopped"))
        elif status == "limit":
            self.state.setText(self.tr("Stopped at the tool-round limit"))
        self.state.setVisible(bool(self.state.text()))
        self.show_figures()

    def _not_yet(self) -> None:
        self.state.setText(not_yet_text())
        self.state.show()

    def show_figures(self) -> None:
        self.figures.setText(figures_text(self.meter.figures(self.prices())))

    # -- approvals ------------------------------------------------------------------------

    def show_approval(self, pending: PendingApproval) -> None:
        self.chat.turn_status.show_approval(pending)

    def approval_closed(self, call_id: str) -> None:
        self.chat.turn_status.approval_closed(call_id)

    def dispose(self) -> None:
        self._timer.stop()
        self._unobserve()


def not_yet_text() -> str:
    return QCoreApplication.translate(
        "CompareColumnView", "Keep this answer first: in the chat it can be edited, "
        "regenerated, continued, forked or deleted.")


def not_yet(chat: ChatView, explain: Callable[[], None]) -> None:
    """A message's own actions (Regenerate, Delete, Fork, …) in a compare column: the
    answer is not the chat's yet, so they say what to do instead of doing nothing."""
    for signal in (chat.editRequested, chat.regenerateRequested, chat.deleteRequested,
                   chat.forkRequested, chat.continueRequested, chat.askOthersRequested):
        signal.connect(lambda *_args: explain())


def figures_text(figures: AnswerFigures) -> str:
    """"0.42 s to first token · 51 tok/s · 120 in · 340 out · $0.0012" (what is known)."""
    translate = QCoreApplication.translate
    parts = []
    if figures.first_token_s is not None:
        parts.append(translate("CompareColumnView", "{seconds} s to first token").format(
            seconds=locale_format.decimal(figures.first_token_s, 2)))
    if figures.tokens_per_s is not None:
        parts.append(translate("CompareColumnView", "{rate} tok/s").format(
            rate=locale_format.decimal(figures.tokens_per_s, 0)))
    about = "≈" if figures.estimated else ""
    if figures.input_tokens:
        parts.append(translate("CompareColumnView", "{input} in · {output} out").format(
            input=about + locale_format.compact_count(figures.input_tokens),
            output=about + locale_format.compact_count(figures.output_tokens)))
    elif figures.output_tokens:  # streaming: the prompt's count comes at the end
        parts.append(translate("CompareColumnView", "{output} out").format(
            output=about + locale_format.compact_count(figures.output_tokens)))
    if figures.cost is not None:
        parts.append(locale_format.cost(figures.cost, 4 if figures.cost < 1 else 2))
    if parts:
        return " · ".join(parts)
    return translate("CompareColumnView", "Waiting for the first token…")
