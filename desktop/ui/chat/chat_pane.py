"""The middle of the window: the open chat, the error and edit banners, and the
composer with its attachments.

It owns what it shows: the messages of the open chat, the error on screen, the
message being edited, and the draft of each chat (what is in the composer is saved
as the draft of the chat it was typed in, and switching chats swaps drafts). Messages
go to the controller from here (a new one, a new version of an edited one, Continue,
Delete, Fork); the window tells it what the controller did.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt, QTimer
from PySide6.QtGui import (
    QDragEnterEvent,
    QDropEvent,
    QHideEvent,
    QImage,
    QKeySequence,
    QResizeEvent,
    QShortcut,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from desktop import chat as chat_features
from desktop.chat.answer_figures import price_table
from desktop.chat.message_edits import is_continuation
from desktop.chat.save_retry import store_messages
from desktop.core.attachments import load_attachment
from desktop.core.errors import AssistaError
from desktop.core.messages import ImagePart
from desktop.ui import chat as chat_parts
from desktop.ui.chat.call_states import CallStates
from desktop.ui.chat.chat_view import ChatView
from desktop.ui.chat.composer import Composer, local_files
from desktop.ui.chat.edit_banner import EditBanner
from desktop.ui.chat.find_bar import FindBar
from desktop.ui.chat.message_header import READ_ALOUD_KEYS
from desktop.ui.chat.research_panel import ResearchPanel
from desktop.ui.chat.save_banner import SaveBanner
from desktop.ui.chat.temporary_banner import TemporaryBanner
from desktop.ui.error_text import exception_text
from desktop.ui.plain_text import make_plain
from desktop.ui.voice.read_aloud import ReadAloud, ReadingBar

if TYPE_CHECKING:
    from desktop.chat.approvals import PendingApproval
    from desktop.chat.profile import ChatRef
    from desktop.chat.voice import VoiceService
    from desktop.core.messages import Message, Part
    from desktop.ui.window.controller import ChatController

COMPOSER_SHARE = 0.4  # the composer grows up to this share of the window's height
DRAFT_SAVE_MS = 800  # a pause in typing saves the draft
BUNDLE_SUFFIXES = (".mcpb", ".dxt")  # MCP bundles: dropped ones are installed

log = logging.getLogger(__name__)


def _no_speech(markdown: str) -> bytes:
    """Reading aloud without the app's voice service: the system's voice."""
    return chat_features.system_voice(markdown)


class ChatPane(QWidget):
    @staticmethod
    def _error_banner() -> QLabel:
        banner = QLabel()
        make_plain(banner)  # errors quote servers and files: never markup
        banner.setObjectName("errorBanner")
        banner.setWordWrap(True)
        banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        banner.hide()
        return banner

    def __init__(self, controller: ChatController, parent: QWidget | None = None, *,
                 voice: VoiceService | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.on_bundle: Callable[[str], object] | None = None  # (window_drops)
        self.chat = ChatView(controller.bridge)
        self.chat.prices = lambda: price_table(controller.settings.prices)  # answers' costs
        self.composer = Composer()
        self.error_banner = self._error_banner()
        self.edit_banner = EditBanner()
        self.temporary_banner = TemporaryBanner(lambda: controller.temporary is not None,
                                                controller.sessionOpened)
        self.save_banner = SaveBanner(partial(store_messages, controller.services.sessions))
        self.research_panel = ResearchPanel(controller.bridge.research,
                                            (controller.sessionOpened,
                                             controller.userMessageAdded))
        controller.saveFailed.connect(self.save_banner.show_failure)
        self.setAcceptDrops(True)
        self._draft_chat: ChatRef = controller.chat  # whose draft the composer holds
        self._stash: str | None = None  # the draft put aside while a message is edited
        self._sending_edit = False
        self._pasted = 0

        self.find_bar = FindBar(self.chat.finder)
        self.find_bar.closed.connect(self.composer.input.setFocus)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 12)
        column.setSpacing(8)
        find_row = QHBoxLayout()
        find_row.setContentsMargins(24, 8, 24, 0)
        find_row.addWidget(self.find_bar)
        column.addLayout(find_row)
        column.addWidget(self.chat, 1)  # (the chat's scroll bar runs to the pane's edge)
        self.reading_bar = self._wire_voice(voice)
        for widget in (self.error_banner, self.save_banner, self.edit_banner, self.reading_bar,
                       self.temporary_banner, self.research_panel, self.composer):
            row = QHBoxLayout()
            row.setContentsMargins(24, 0, 24, 0)
            row.addWidget(widget)
            column.addLayout(row)

        self._draft_timer = QTimer(self)
        self._draft_timer.setSingleShot(True)
        self._draft_timer.setInterval(DRAFT_SAVE_MS)
        self._draft_timer.timeout.connect(self.save_draft)
        composer_input = self.composer.input
        composer_input.textChanged.connect(self._draft_timer.start)
        composer_input.editLastRequested.connect(self.edit_last_message)
        composer_input.filesPasted.connect(self.add_files)
        composer_input.imagePasted.connect(self.add_image)
        self.composer.sendRequested.connect(self.send)
        self.composer.attachRequested.connect(self.attach_files)
        self.edit_banner.cancelled.connect(lambda: self._end_edit(restore=True))
        self.chat.branch_label = controller.branch_label
        self.chat.editRequested.connect(self.start_edit)
        self.chat.deleteRequested.connect(self.delete_message)
        self.chat.forkRequested.connect(controller.fork_chat)
        self.chat.continueRequested.connect(controller.continue_answer)
        self.chat.memoryUndoRequested.connect(controller.forget_memory)
        self.chat.inspectRequested.connect(self.inspect)
        self.inspect_shortcut = QShortcut(QKeySequence("Ctrl+Shift+I"), self)
        self.inspect_shortcut.activated.connect(self.inspect)
        self.chat.turn_status.cancelRequested.connect(controller.stop)
        self.call_states = CallStates(controller.bridge, self.chat)  # approvals' order
        controller.bridge.approvalRequested.connect(self._approval_requested)
        controller.bridge.approvalClosed.connect(self.chat.turn_status.approval_closed)
        self._set_text(controller.service.chats.draft(self._draft_chat))

    def _set_text(self, text: str) -> None:
        """Fill the composer, the cursor at the end (where typing goes on)."""
        self.composer.input.setPlainText(text)
        self.composer.input.moveCursor(QTextCursor.MoveOperation.End)

    def _wire_voice(self, voice: VoiceService | None) -> ReadingBar:
        self.reader = ReadAloud(voice.speak if voice is not None else _no_speech, parent=self)
        self.reader.failed.connect(self.show_error)
        self.chat.readAloudRequested.connect(self.reader.read)
        self.read_shortcut = QShortcut(READ_ALOUD_KEYS, self)
        self.read_shortcut.activated.connect(self.read_last_answer)
        mic = self.composer.mic_button
        if voice is not None:
            mic.set_service(voice.transcribe, voice.can_transcribe)
        mic.textReady.connect(self.insert_dictation)
        mic.failed.connect(self.show_error)
        return ReadingBar(self.reader)

    def read_last_answer(self) -> None:
        """The shortcut: read the last answer aloud; while reading, stop."""
        if self.reader.state != "idle":
            self.reader.stop()
            return
        for item in reversed(self.chat.items()):
            if item.messages and item.messages[0].role == "assistant":
                text = "\n\n".join(m.body_text for m in item.messages if m.body_text.strip())
                self.reader.read(text)
                return

    def insert_dictation(self, text: str) -> None:
        """Dictated text goes where the cursor is, to be edited before sending."""
        cursor = self.composer.input.textCursor()
        before = self.composer.input.toPlainText()[:cursor.position()]
        spacer = " " if before and not before[-1].isspace() else ""
        cursor.insertText(spacer + text)
        self.composer.input.setFocus()

    def open_find(self) -> None:
        """Ctrl+F: find words in the open chat."""
        self.find_bar.open_bar()

    def show_error(self, text: str) -> None:
        log.warning("shown to user: %s", text)  # (the log is what a bug report has)
        self.error_banner.setText(text)
        self.error_banner.show()

    def show_chat(self, messages: list[Message]) -> None:
        """Another chat was opened (or a new one, or another version of this one): its
        messages, nothing half done, its draft in the composer."""
        self.error_banner.hide()
        chat = self.controller.chat
        # (a saved chat is its id; two new chats are equal dataclasses, not the same chat)
        switched = chat != self._draft_chat if isinstance(chat, str) or isinstance(
            self._draft_chat, str) else chat is not self._draft_chat
        self._end_edit(restore=not self._sending_edit)
        if switched:
            self.save_draft()
            self._draft_chat = chat
            self.composer.clear()
            self._set_text(self.controller.service.chats.draft(chat))
        self.chat.show_messages(messages)
        self.chat.finder.chat_shown()  # (Ctrl+F goes on in it; a search hit's marks go)
        for pending in self.controller.service.approvals.for_chat(self.controller.session_id
                                                                  or ""):
            self.chat.turn_status.show_approval(pending)
        # A chat opened from a list keeps the focus there (Del, F2 and arrows go on
        # working on the list); typing is handed to the composer by the window.
        if not isinstance(QApplication.focusWidget(), QAbstractItemView):
            self.composer.input.setFocus()

    def add_user_message(self, message: Message) -> None:
        """The composer's message was taken: show it, empty the composer (an edit gives
        back the draft it put aside)."""
        self.error_banner.hide()
        if not is_continuation(message):
            self.composer.clear()
            self._draft_chat = self.controller.chat  # a new chat got its id
            if self._stash is not None:
                self._set_text(self._stash)
                self._stash = None
        self.chat.add_message(message)
        self.chat.finder.recount()  # (the find bar's "n of m" counts it)
        self.chat.turn_status.show_thinking()
        self.chat.scroll_to_bottom()

    def set_busy(self, busy: bool) -> None:
        self.composer.set_busy(busy)
        if not busy:  # an answer may have added a version: ‹ n/m › changes
            self.chat.turn_status.clear()
            self.chat.refresh_branch_labels()
            self.chat.finder.recount()  # and its words may be looked for

    # -- drafts ----------------------------------------------------------------------------

    def save_draft(self) -> None:
        """Keep what is in the composer as the draft of its chat (not an edit's text)."""
        self._draft_timer.stop()
        text = self._stash if self._stash is not None else self.composer.input.toPlainText()
        self.controller.service.chats.set_draft(self._draft_chat, text)

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.save_draft()  # the window closes: nothing typed is lost

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        window = self.window()
        self.composer.set_max_input_height(int(window.height() * COMPOSER_SHARE) - 60)

    # -- sending and editing ----------------------------------------------------------------

    def send(self, text: str, attachments: list[Part] | None = None) -> None:
        editing = self.edit_banner.message_id
        if editing is not None:
            self._sending_edit = True
            try:
                if self.controller.edit_and_resend(editing, text):
                    self._end_edit(restore=False)
            finally:
                self._sending_edit = False
            return
        research = self.composer.research_button.isChecked()
        if self.controller.send(text, attachments or [], research=research):
            self.composer.research_button.setChecked(False)  # (a research costs: once)

    def start_edit(self, message_id: str, text: str) -> None:
        """Put an earlier user message into the composer; Enter sends a new version."""
        if self.controller.busy:
            return
        if self.edit_banner.message_id is None:
            self._stash = self.composer.input.toPlainText()
        self.edit_banner.start(message_id)
        self.chat.set_editing(message_id)
        self._set_text(text)
        self.composer.input.setFocus()

    def _end_edit(self, *, restore: bool) -> None:
        """Editing is over; ``restore``: the draft put aside comes back (not when the
        edit was sent: it comes back once the composer is emptied)."""
        self.edit_banner.finish()
        self.chat.set_editing(None)
        if restore and self._stash is not None:
            self._set_text(self._stash)
            self._stash = None

    def edit_last_message(self) -> None:
        """Up in an empty composer: edit the last thing the user wrote."""
        last = next((m for m in reversed(self.controller.history)
                     if m.role == "user" and not is_continuation(m)), None)
        if last is not None:
            self.start_edit(last.id, last.body_text)
            self.chat.scroll_to_message(last.id)

    def inspect(self, message_id: str | None = None) -> None:
        """The request inspector for the answer ``message_id`` is part of (every request
        its tool rounds took), else for the chat's last answer (Ctrl+Shift+I)."""
        from desktop.chat.inspection import answer_ids, last_answer_ids
        from desktop.ui.inspector.opener import open_inspector

        session_id = self.controller.session_id
        messages = (self.controller.services.sessions.load_active_branch(session_id).messages
                    if session_id else [])
        ids = answer_ids(messages, message_id) if message_id else last_answer_ids(messages)
        self.inspector = open_inspector(self.controller.services.inspection, ids, self.window())

    def delete_message(self, message_id: str) -> None:
        answer = QMessageBox.question(
            self, self.tr("Delete messages"),
            self.tr("Delete this message and everything after it? "
                    "Other versions below it are deleted too. This cannot be undone."),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel)
        if answer == QMessageBox.StandardButton.Yes:
            self.controller.delete_message(message_id)

    def _approval_requested(self, pending: PendingApproval) -> None:
        if pending.session_id and pending.session_id == self.controller.session_id:
            self.chat.turn_status.show_approval(pending)

    # -- attachments ------------------------------------------------------------------------

    def attach_files(self) -> QFileDialog:
        """The attach dialog (open, not modal to the loop): every supported kind shown
        at first, a filter per kind to narrow it; the chosen files are attached."""
        dialog = QFileDialog(self, self.tr("Attach files"))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.setNameFilters(chat_parts.attach_filters.attach_filters())
        dialog.filesSelected.connect(lambda paths: self.add_files([Path(p) for p in paths]))
        dialog.open()
        return dialog

    def add_files(self, paths: list[Path]) -> None:
        for path in paths:
            self.add_attachment(path)

    def add_attachment(self, path: Path) -> bool:
        """Attach a file to the next message; an unreadable one shows an error."""
        try:
            part = load_attachment(path)
        except AssistaError as exc:
            self.show_error(exception_text(exc))
            return False
        self.composer.add_attachment(path.name, part)
        return True

    def add_image(self, image: QImage) -> None:
        """A pasted image (a screenshot): attached as a PNG."""
        if image.isNull():
            return
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        # PySide6 takes the format as str at run time; its stubs say bytes.
        image.save(buffer, "PNG")  # type: ignore[call-overload]
        self._pasted += 1
        name = f"pasted-image-{self._pasted}.png"
        self.composer.add_attachment(name, ImagePart(
            media_type="image/png", name=name,
            data=base64.b64encode(bytes(data.data())).decode("ascii")))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if local_files(event.mimeData()) or event.mimeData().hasImage():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        mime = event.mimeData()
        files = local_files(mime)
        bundles = [f for f in files if f.suffix.lower() in BUNDLE_SUFFIXES]
        if bundles and self.on_bundle is not None:
            for bundle in bundles:
                self.on_bundle(str(bundle))
            files = [f for f in files if f not in bundles]
        if files:
            self.add_files(files)
        elif mime.hasImage():
            self.add_image(QImage(mime.imageData()))
        event.acceptProposedAction()
