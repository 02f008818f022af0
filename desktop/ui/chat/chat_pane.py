"""The middle of the window: the open chat, the error and edit banners, and the
composer with its attachments.

It owns what it shows: the messages of the open chat, the error on screen, the
message being edited. Messages go to the controller from here (a new one, or a new
version of an edited one); the window tells it what the controller did.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from desktop.ui.chat.chat_view import ChatView
from desktop.ui.chat.composer import Composer
from desktop.ui.chat.edit_banner import EditBanner

if TYPE_CHECKING:
    from desktop.core.messages import Message, Part
    from desktop.ui.window.controller import ChatController

ATTACH_FILTER = (
    "Images and text (*.png *.jpg *.jpeg *.gif *.webp *.txt *.md *.py *.json *.csv "
    "*.log *.yaml *.yml *.toml *.xml *.html *.js *.ts *.rs *.go *.java *.c *.h *.cpp);;"
    "All files (*)")

log = logging.getLogger(__name__)


class ChatPane(QWidget):
    def __init__(self, controller: ChatController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.chat = ChatView(controller.bridge)
        self.composer = Composer()
        self.error_banner = QLabel()
        self.error_banner.setObjectName("errorBanner")
        self.error_banner.setWordWrap(True)
        self.error_banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_banner.hide()
        self.edit_banner = EditBanner()

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 12)
        column.setSpacing(8)
        column.addWidget(self.chat, 1)  # (the chat's scroll bar runs to the pane's edge)
        for widget in (self.error_banner, self.edit_banner, self.composer):
            row = QHBoxLayout()
            row.setContentsMargins(24, 0, 24, 0)
            row.addWidget(widget)
            column.addLayout(row)

        self.composer.sendRequested.connect(self.send)
        self.composer.attachRequested.connect(self.attach_files)
        self.edit_banner.cancelled.connect(self.composer.clear)
        self.chat.branch_label = controller.branch_label
        self.chat.editRequested.connect(self.start_edit)

    def show_error(self, text: str) -> None:
        log.warning("shown to user: %s", text)  # (the log is what a bug report has)
        self.error_banner.setText(text)
        self.error_banner.show()

    def show_chat(self, messages: list[Message]) -> None:
        """Another chat was opened (or a new one): its messages, nothing half done."""
        self.error_banner.hide()
        self.edit_banner.finish()
        self.chat.show_messages(messages)
        self.composer.input.setFocus()

    def add_user_message(self, message: Message) -> None:
        """The composer's message was taken: show it, empty the composer."""
        self.error_banner.hide()
        self.composer.clear()
        self.chat.add_message(message)
        self.chat.scroll_to_bottom()

    def set_busy(self, busy: bool) -> None:
        self.composer.set_busy(busy)
        if not busy:  # an answer may have added a version: ‹ n/m › changes
            self.chat.refresh_branch_labels()

    # -- sending and editing ----------------------------------------------------------------

    def send(self, text: str, attachments: list[Part] | None = None) -> None:
        editing = self.edit_banner.message_id
        if editing is not None:
            if self.controller.edit_and_resend(editing, text):
                self.edit_banner.finish()
            return
        self.controller.send(text, attachments or [])

    def start_edit(self, message_id: str, text: str) -> None:
        """Put an earlier user message into the composer; Enter sends a new version."""
        if self.controller.busy:
            return
        self.edit_banner.start(message_id)
        self.composer.input.setPlainText(text)
        self.composer.input.setFocus()

    def attach_files(self) -> None:
        paths, _filter = QFileDialog.getOpenFileNames(self, "Attach files", "", ATTACH_FILTER)
        for path in paths:
            self.add_attachment(Path(path))

    def add_attachment(self, path: Path) -> bool:
        """Attach a file to the next message; an unreadable one shows an error."""
        from desktop.core.attachments import load_attachment
        from desktop.core.errors import AssistaError

        try:
            part = load_attachment(path)
        except AssistaError as exc:
            self.show_error(str(exc))
            return False
        self.composer.add_attachment(path.name, part)
        return True
