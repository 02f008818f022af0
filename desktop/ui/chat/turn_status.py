"""What the chat on screen is waiting for, shown at the end of the conversation:
"Thinking…" from Send to the first token, "Rate limited — retrying in 4 s (2/4)" with
Cancel, "Waiting for a free slot…" with Cancel, "Waiting for your approval" with
the approval card's buttons (one row per waiting call, in the order the model asked
for them: two calls of one turn both wait here), and the tool-round limit's question
with Continue and Stop here (asked in the conversation, not in a box that would cover
it).

Cheap by design: the dots of "Thinking…" change three times a second and the retry
countdown once a second, each repainting this one small widget; the stream itself
only checks a flag (:attr:`TurnStatus.kind`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QSize, QTimer, Signal
from PySide6.QtGui import QFontMetrics, QHideEvent
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop.chat.approvals import PendingApproval
from desktop.chat.events import ProviderRetrying
from desktop.tools.approval import ApprovalDecision
from desktop.tools.grant_scopes import always_scope, unscoped_reason
from desktop.ui.plain_text import StatusLabel, make_plain, plain_tooltip, shown
from desktop.ui.tools.approval_title import approval_title, confinement_text
from desktop.ui.tools.scope_row import always_tooltip
from desktop.ui.tools.tool_names import display_name
from desktop.ui.wrap_row import WrapRow

# (translated when shown)
REASONS = {"rate_limited": str(QT_TRANSLATE_NOOP("TurnStatus", "Rate limited")),
           "quota": str(QT_TRANSLATE_NOOP("TurnStatus", "Rate limited")),
           "timeout": str(QT_TRANSLATE_NOOP("TurnStatus", "Timed out"))}
SERVER_REASONS = {529: str(QT_TRANSLATE_NOOP("TurnStatus", "Overloaded")),
                  503: str(QT_TRANSLATE_NOOP("TurnStatus", "Service unavailable"))}


def retry_headline(event: ProviderRetrying, seconds_left: int) -> str:
    info = event.info  # why, by its code (rate_limited, server_error, unreachable...)
    reason = REASONS.get(info.code) or SERVER_REASONS.get(info.params.get("status") or 0)
    if reason is not None:
        why = QCoreApplication.translate("TurnStatus", reason)
    elif "status" in info.params:
        why = QCoreApplication.translate("TurnStatus", "Server error ({reason})").format(
            reason=event.reason)
    else:
        why = QCoreApplication.translate("TurnStatus", "Could not connect ({reason})").format(
            reason=event.reason)
    count = (f"{event.attempt + 1}/{event.max_retries}" if event.max_retries
             else QCoreApplication.translate("TurnStatus", "retry {number}").format(
                 number=event.attempt + 1))
    wait = (QCoreApplication.translate("TurnStatus", "retrying in {seconds} s").format(
                seconds=seconds_left)
            if seconds_left > 0 else QCoreApplication.translate("TurnStatus", "retrying now"))
    return QCoreApplication.translate("TurnStatus", "{reason} — {wait} ({count})").format(
        reason=why, wait=wait, count=count)


SUBJECT_CHARS = 80


def approval_subject(pending: PendingApproval) -> str:
    """"Write file · Create notes.txt": the tool and what it would do."""
    request = pending.request
    name = display_name(request.tool, request.source)
    preview = request.preview
    # (a command says more than "Run a command": its first line, cut short)
    what = (preview.text.strip().split("\n")[0] if preview.kind == "command"
            else approval_title(preview))
    if request.network:  # ("Allow network for this chat's commands: curl …")
        what = f"{approval_title(preview)}: {what}"
    title = shown(what if len(what) <= SUBJECT_CHARS else what[:SUBJECT_CHARS - 1] + "…")
    return f"{name} · {title}" if title and title != shown(request.tool) else name


def add_approval_buttons(row: WrapRow, decide: Callable[[str], None]) -> dict[str, QPushButton]:
    """Allow once, Allow for this chat, Always allow and Deny, added to ``row``."""
    buttons: dict[str, QPushButton] = {}
    for kind, text, tip in (
            ("allow_once", QCoreApplication.translate("TurnStatus", "Allow once"),
             QCoreApplication.translate("TurnStatus", "Run this call now; ask again next time")),
            ("allow_chat", QCoreApplication.translate("TurnStatus", "Allow for this chat"),
             QCoreApplication.translate("TurnStatus", "Do not ask again in this chat")),
            ("allow_always", QCoreApplication.translate("TurnStatus", "Always allow"),
             QCoreApplication.translate("TurnStatus", "Never ask again, in any chat")),
            ("deny", QCoreApplication.translate("TurnStatus", "Deny"),
             QCoreApplication.translate("TurnStatus", "Do not run it; the assistant is told"))):
        button = QPushButton(text)
        button.setToolTip(tip)
        if kind == "allow_once":
            button.setObjectName("primaryButton")
        button.clicked.connect(lambda _c=False, k=kind: decide(k))
        row.addWidget(button)
        buttons[kind] = button
    return buttons


def fit_always(button: QPushButton, pending: PendingApproval) -> None:
    """"Always allow" grants the scope the call proposes (said in its tooltip) for a tool
    granted only within a scope; with no valid scope it is disabled, with the reason."""
    request = pending.request
    button.setEnabled(always_scope(request) is not None)
    if request.network:  # (the network for every chat: Settings → Tools)
        button.hide()
    if request.always_needs_scope:
        button.setToolTip(plain_tooltip(always_tooltip(
            request.tool, request.proposed_scope,
            unscoped_reason(request.tool, request.arguments))))
    else:
        button.setToolTip(QCoreApplication.translate("TurnStatus",
                                                     "Never ask again, in any chat"))


def fit_chat(button: QPushButton, pending: PendingApproval) -> None:
    """"Allow for this chat", or for a command that asks for the network, "Allow network
    for this chat" (its commands may use it; the tool still asks as it did)."""
    if pending.request.network:
        button.setText(QCoreApplication.translate("TurnStatus", "Allow network for this chat"))
        button.setToolTip(QCoreApplication.translate(
            "TurnStatus", "This chat's commands may use the network from now on"))
    else:
        button.setText(QCoreApplication.translate("TurnStatus", "Allow for this chat"))
        button.setToolTip(QCoreApplication.translate("TurnStatus",
                                                     "Do not ask again in this chat"))


class ApprovalRow(QWidget):
    """A second (third…) call waiting in the same turn: its line and its own buttons."""

    def __init__(self, pending: PendingApproval, decide: Callable[[PendingApproval, str], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pending = pending
        self.label = QLabel()
        make_plain(self.label)
        self.label.setObjectName("emptyHint")
        self.label.setWordWrap(True)
        row = WrapRow(self, lead=self.label)
        row.setContentsMargins(16, 0, 8, 6)
        self.buttons = add_approval_buttons(row, lambda kind: decide(pending, kind))
        fit_always(self.buttons["allow_always"], pending)
        fit_chat(self.buttons["allow_chat"], pending)


class TurnStatus(QFrame):
    cancelRequested = Signal()  # stop the turn (a retry or a queue is not worth waiting)
    confirmAnswered = Signal(bool)  # the tool-round question: go on (True) or stop here
    changed = Signal()  # shown, hidden or resized: the column lays out again

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("turnStatus")
        self.kind = ""  # "", "thinking", "retrying", "queued", "approval" or "confirm"
        self.approvals: list[PendingApproval] = []  # waiting, in the model's order
        # A call's place among the turn's calls (set by the chat view): the rows' order
        self.order: Callable[[str], int] | None = None
        self.more_rows: list[ApprovalRow] = []
        self._retry: ProviderRetrying | None = None
        self._deadline = 0.0
        self._dots = 0
        self._rounds = 0
        self.label = StatusLabel()
        make_plain(self.label)  # a tool's name and a server's reason are not markup
        self.label.setObjectName("emptyHint")
        self.label.setAccessibleName(self.tr("Answer status"))
        self.label.setWordWrap(True)  # a narrow window wraps it above its buttons
        self.label.setMinimumWidth(QFontMetrics(self.label.font()).horizontalAdvance(
            self.tr("Thinking…  ")))
        self._column = column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        self.head = QWidget(self)
        column.addWidget(self.head)
        # (the text and its buttons on one line when they fit; else the buttons go on
        # lines of their own under it, never cut)
        row = WrapRow(self.head, lead=self.label)
        row.setContentsMargins(16, 6, 8, 6)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setToolTip(self.tr("Stop this answer"))
        self.cancel_button.clicked.connect(self.cancelRequested)
        row.addWidget(self.cancel_button)
        self.approval_buttons = add_approval_buttons(row, self.decide)
        self.continue_button = QPushButton(self.tr("Continue"))
        self.continue_button.setObjectName("primaryButton")
        self.continue_button.setToolTip(self.tr("Let the assistant use tools for more rounds"))
        self.continue_button.clicked.connect(lambda: self._answer_confirm(True))
        self.stop_here_button = QPushButton(self.tr("Stop here"))
        self.stop_here_button.setToolTip(self.tr("End the answer with what it has so far"))
        self.stop_here_button.clicked.connect(lambda: self._answer_confirm(False))
        row.addWidget(self.continue_button)
        row.addWidget(self.stop_here_button)
        self._ticker = QTimer(self)
        self._ticker.timeout.connect(self._tick)
        self._show("")

    def sizeHint(self) -> QSize:
        """Its rows on one line each (a box layout would give a squarish guess)."""
        width = max(row.sizeHint().width() for row in [self.head, *self.more_rows])
        return QSize(width, self.heightForWidth(width))

    def heightForWidth(self, width: int) -> int:
        """Worked out now (a box layout answers from a cache a new text has not yet
        cleared: the countdown must know at once whether it changed its height)."""
        return sum(row.heightForWidth(width) for row in [self.head, *self.more_rows])

    @property
    def pending(self) -> PendingApproval | None:
        """The first call waiting (the buttons of the status line answer it)."""
        return self.approvals[0] if self.approvals else None

    # -- what to show ----------------------------------------------------------------------

    def show_thinking(self) -> None:
        if self.kind != "approval":
            self._retry = None
            self._show("thinking")

    def show_retry(self, event: ProviderRetrying) -> None:
        self._retry = event
        self._deadline = time.monotonic() + event.delay_s
        if self.kind != "approval":
            self._show("retrying")

    def show_queued(self, waiting: bool) -> None:
        if waiting and self.kind != "approval":
            self._show("queued")
        elif not waiting and self.kind == "queued":
            self._show("thinking")

    def show_approval(self, pending: PendingApproval) -> None:
        """One more call waits (shown again: its row is kept, not doubled)."""
        call_id = pending.request.call_id
        self.approvals = [p for p in self.approvals if p.request.call_id != call_id]
        self.approvals.append(pending)
        if self.order is not None:
            order = self.order
            arrival = {p.request.call_id: i for i, p in enumerate(self.approvals)}
            self.approvals.sort(key=lambda p: (order(p.request.call_id),
                                               arrival[p.request.call_id]))
        self._show("approval")

    def show_confirm(self, rounds: int) -> None:
        """The tool-round limit was reached: ask whether the assistant may go on."""
        self._rounds = rounds
        self._show("confirm")
        self.continue_button.setFocus()

    def _answer_confirm(self, proceed: bool) -> None:
        if self.kind == "confirm":
            self._show("thinking" if proceed else "")
            self.confirmAnswered.emit(proceed)

    def approval_closed(self, call_id: str) -> None:
        left = [p for p in self.approvals if p.request.call_id != call_id]
        if len(left) != len(self.approvals):
            self.approvals = left
            self._show("approval" if left else "")

    def first_token(self) -> None:
        """The answer started to stream: nothing is awaited any more."""
        if self.kind in ("thinking", "retrying", "queued"):
            self._retry = None
            self._show("")

    def clear(self) -> None:
        self.approvals = []
        self._retry = None
        self._show("")

    def decide(self, kind: str, pending: PendingApproval | None = None) -> None:
        """Answer ``pending`` (the first waiting call if None)."""
        pending = pending if pending is not None else self.pending
        if pending is None:
            return
        if pending.done:
            self.approval_closed(pending.request.call_id)
            return
        scope = always_scope(pending.request)
        if kind == "allow_always" and scope is None:
            return  # (never the whole tool for a tool granted within a scope)
        decisions = {"allow_once": ApprovalDecision.allow_once(),
                     "allow_chat": ApprovalDecision.allow_chat(),
                     "allow_always": ApprovalDecision.allow_always(scope or ""),
                     "deny": ApprovalDecision.deny()}
        pending.resolve(decisions[kind])
        self.approval_closed(pending.request.call_id)

    # -- drawing ---------------------------------------------------------------------------

    def _show(self, kind: str) -> None:
        was_visible = not self.isHidden()
        self.kind = kind
        self.cancel_button.setVisible(kind in ("retrying", "queued"))
        for button in self.approval_buttons.values():
            button.setVisible(kind == "approval")
        for button in (self.continue_button, self.stop_here_button):
            button.setVisible(kind == "confirm")
        self._update_rows(kind)
        if kind == "approval" and self.pending is not None:
            fit_always(self.approval_buttons["allow_always"], self.pending)
            fit_chat(self.approval_buttons["allow_chat"], self.pending)
            subject = approval_subject(self.pending)
            # (a command says where it runs; the card in Tool activity says it too)
            self.label.setToolTip(confinement_text(self.pending.request.preview.confinement))
            self.label.setText(self.tr("Waiting for your approval: {tool}").format(tool=subject)
                               if len(self.approvals) == 1 else
                               self.tr("Waiting for your approval ({number} of {count}): {tool}")
                               .format(number=1, count=len(self.approvals), tool=subject))
        elif kind == "confirm":
            self.label.setText(self.tr(
                "The assistant has used tools for %n round(s). Let it continue?", "",
                self._rounds))
        elif kind == "queued":
            self.label.setText(self.tr("Waiting for another answer from this provider to finish…"))
        self._tick()
        if kind in ("thinking", "retrying"):
            self._ticker.start(330 if kind == "thinking" else 1000)
        else:
            self._ticker.stop()
        self.setVisible(bool(kind))
        if was_visible or kind:
            self.changed.emit()

    def _update_rows(self, kind: str) -> None:
        """A row for each call waiting after the first, in order."""
        waiting = self.approvals[1:] if kind == "approval" else []
        if [r.pending for r in self.more_rows] != waiting:
            for row in self.more_rows:
                row.hide()
                self._column.removeWidget(row)
                row.deleteLater()
            self.more_rows = [ApprovalRow(p, lambda p, k: self.decide(k, p), self)
                              for p in waiting]
            for row in self.more_rows:
                self._column.addWidget(row)
                row.show()  # (made after the status was shown: not shown with it)
        for number, row in enumerate(self.more_rows, start=2):
            row.label.setText(self.tr("Also waiting ({number} of {count}): {tool}").format(
                number=number, count=len(self.approvals), tool=approval_subject(row.pending)))

    def _tick(self) -> None:
        if self.kind == "thinking":
            self._dots = (self._dots + 1) % 4
            self.label.setText(self.tr("Thinking") + "." * self._dots)
        elif self.kind == "retrying" and self._retry is not None:
            left = max(0, math.ceil(self._deadline - time.monotonic()))
            self.label.setText(retry_headline(self._retry, left))
            # (a countdown one digit shorter can bring Cancel back beside the text)
            if self.isVisible() and self.heightForWidth(self.width()) != self.height():
                self.changed.emit()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self._ticker.stop()
