"""The quick-ask window: a small window that stays on top, with a question box and
the streamed answer.

It runs its chat through the app's one :class:`ChatService`, with a
:class:`ChatController` of its own (the same adapter the main window uses, watching
this window's chat): the widgets here observe its signals and never run a turn.
A quick chat is an ordinary saved chat, so "Open in the main window" simply opens
it there, answering or not.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QClipboard, QCloseEvent, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.approvals import PendingApproval
from desktop.core.agent_events import AssistantStarted, RunFinished
from desktop.ui.chat.composer import ComposerInput
from desktop.ui.error_text import error_text
from desktop.ui.markdown.accessible import Announcer
from desktop.ui.markdown.view import MarkdownView
from desktop.ui.window.controller import ChatController


def selected_text(*, selection: bool = True) -> str:
    """What the user selected in any application (X11's PRIMARY selection) where the
    platform has one, else (or with ``selection=False``) what is on the clipboard."""
    clipboard = QGuiApplication.clipboard()
    if selection and clipboard.supportsSelection():
        text = clipboard.text(QClipboard.Mode.Selection)
        if text.strip():
            return text
    return clipboard.text(QClipboard.Mode.Clipboard)


class QuickAskWindow(QWidget):
    openInMainRequested = Signal(str)  # the quick chat's session id
    answerFinished = Signal(str, bool)  # answer text, failed

    def __init__(self, controller: ChatController) -> None:
        super().__init__(None, Qt.WindowType.Window | Qt.WindowType.WindowStaysOnTopHint)
        self.controller = controller
        self.announcer = Announcer()
        self.setWindowTitle(self.tr("Quick ask"))
        self.setObjectName("quickAsk")
        self.setAttribute(Qt.WidgetAttribute.WA_QuitOnClose, False)  # the app goes on
        self.resize(560, 420)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)

        self.input = ComposerInput()
        self.input.setObjectName("quickInput")
        self.input.setAccessibleName(self.tr("Question"))
        self.input.setAccessibleDescription(
            self.tr("Enter sends, Shift+Enter adds a line, Escape closes the window"))
        self.input.setPlaceholderText(self.tr("Ask anything… (Enter sends)"))
        self.input.setTabChangesFocus(True)
        self.input.setFixedHeight(self.input.fontMetrics().lineSpacing() * 4 + 14)
        self.input.submitted.connect(self.send)
        self.input.cancelled.connect(self._escape)
        layout.addWidget(self.input)

        row = QHBoxLayout()
        self.selection_button = QPushButton(self.tr("Insert &selection"))
        self.selection_button.setToolTip(
            self.tr("Insert the text selected in another application (or the clipboard)"))
        self.selection_button.clicked.connect(self.insert_selection)
        self.main_button = QPushButton(self.tr("&Open in the main window"))
        self.main_button.setToolTip(self.tr("Continue this chat in the main window"))
        self.main_button.clicked.connect(self.open_in_main)
        self.send_button = QPushButton(self.tr("Send"))
        self.send_button.setObjectName("primaryButton")
        self.send_button.clicked.connect(self._send_or_stop)
        row.addWidget(self.selection_button)
        row.addWidget(self.main_button)
        row.addStretch(1)
        row.addWidget(self.send_button)
        layout.addLayout(row)

        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # errors quote servers
        self.status.setWordWrap(True)
        self.status.setAccessibleName(self.tr("Status"))
        self.status.hide()
        layout.addWidget(self.status)

        self._build_answer(layout)
        QShortcut(QKeySequence("Ctrl+O"), self, self.open_in_main)
        QShortcut(QKeySequence("Ctrl+Shift+V"), self, self.insert_selection)
        self._connect(controller)

    def _build_answer(self, layout: QVBoxLayout) -> None:
        self.question = QLabel()  # what was asked, above its answer
        self.question.setObjectName("emptyHint")
        self.question.setTextFormat(Qt.TextFormat.PlainText)
        self.question.setWordWrap(True)
        self.question.hide()
        layout.addWidget(self.question)

        self.answer = MarkdownView()
        self.answer.setAccessibleName(self.tr("Answer"))
        page = QWidget()  # the answer with a margin inside the frame
        page.setObjectName("quickAnswer")
        inner = QVBoxLayout(page)
        inner.setContentsMargins(10, 8, 10, 8)
        inner.addWidget(self.answer)
        inner.addStretch(1)
        self.answer_scroll = QScrollArea()
        self.answer_scroll.setWidgetResizable(True)
        self.answer_scroll.setObjectName("quickScroll")
        self.answer_scroll.setWidget(page)
        self.answer_scroll.setAccessibleName(self.tr("Answer"))
        self.answer_scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.answer.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # Tab reaches the answer
        layout.addWidget(self.answer_scroll, 1)
        self.answer.contentChanged.connect(self._follow)

    def _connect(self, controller: ChatController) -> None:
        bridge = controller.bridge
        bridge.textDelta.connect(self.answer.append)
        bridge.assistantStarted.connect(self._assistant_started)
        bridge.runFinished.connect(self._run_finished)
        bridge.approvalRequested.connect(self._approval_requested)
        controller.errorOccurred.connect(self.show_status)
        controller.providerMissing.connect(lambda: self.show_status(
            self.tr("Add a provider in the main window first (Settings → Providers).")))
        controller.busyChanged.connect(self._busy_changed)
        self._busy_changed(False)

    # -- the chat -------------------------------------------------------------------------

    def new_chat(self) -> None:
        """Start over: an empty question and answer, a new chat on the next send."""
        self.controller.new_session()
        self.answer.set_markdown("")
        self.input.clear()
        self.status.hide()
        self.question.hide()

    def send(self) -> bool:
        text = self.input.toPlainText()
        if not text.strip() or self.controller.busy:
            return False
        if self.controller.session_id is not None:  # one question per quick chat
            self.controller.new_session()
        self.answer.set_markdown("")
        self.status.hide()
        if not self.controller.send(text):
            return False
        self.input.clear()
        short = " ".join(text.split())
        self.question.setText(short if len(short) <= 300 else short[:300] + "…")
        self.question.show()
        return True

    def _send_or_stop(self) -> None:
        if self.controller.busy:
            self.controller.stop()
        else:
            self.send()

    def _assistant_started(self, _event: AssistantStarted) -> None:
        if self.answer.markdown().strip():  # a later round (after tools): a new paragraph
            self.answer.append("\n\n")

    def _run_finished(self, event: RunFinished) -> None:
        self.answer.flush()
        text = self.answer.toPlainText()  # as shown (and read out), not the markdown
        failed = event.status == "error"
        error = error_text(event.info, event.error) if failed and event.error else ""
        if error:
            self.show_status(error)
        if event.status != "stopped":
            self.announcer.announce(self.answer, error or text)
            self.answerFinished.emit(text, failed)

    def _approval_requested(self, pending: PendingApproval) -> None:
        if pending.session_id == self.controller.session_id:
            self.show_status(self.tr("{tool} waits for your approval: open this chat in the "
                                     "main window to answer.").format(
                                         tool=pending.request.tool))

    def _busy_changed(self, busy: bool) -> None:
        self.send_button.setText(self.tr("Stop") if busy else self.tr("Send"))
        self.send_button.setObjectName("stopButton" if busy else "primaryButton")
        self.send_button.setAccessibleName(self.send_button.text())
        self.send_button.style().unpolish(self.send_button)
        self.send_button.style().polish(self.send_button)
        self.main_button.setEnabled(busy or self.controller.session_id is not None)

    def show_status(self, text: str) -> None:
        self.status.setText(text)
        self.status.show()

    def _follow(self) -> None:
        bar = self.answer_scroll.verticalScrollBar()
        bar.setValue(bar.maximum())

    # -- input helpers ----------------------------------------------------------------------

    def insert_selection(self, *, selection: bool = True) -> bool:
        """Put the selected text (or the clipboard) into the question, the caret after
        it to type what to do with it."""
        text = selected_text(selection=selection).strip()
        if not text:
            self.show_status(self.tr("Nothing is selected and the clipboard is empty."))
            return False
        current = self.input.toPlainText()
        self.input.setPlainText(f"{current.rstrip()}\n\n{text}\n\n" if current.strip()
                                else f"{text}\n\n")
        self.input.moveCursor(self.input.textCursor().MoveOperation.End)
        self.input.setFocus()
        return True

    def open_in_main(self) -> None:
        session_id = self.controller.session_id
        if session_id is None:
            return
        self.openInMainRequested.emit(session_id)
        self.hide()

    def _escape(self) -> None:
        self.hide()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.hide()  # kept for the next time; the answer goes on in its chat
        event.ignore()
