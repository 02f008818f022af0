"""The banner shown when an answer could not be stored: what failed, that the answer
is kept in memory until it is, and Retry. It holds the failed turns' messages (every
failure since the last success, in order) and stores them on Retry, off the event
loop; it hides once they are stored."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QWidget

from desktop.chat.events import SaveFailed
from desktop.core.messages import Message
from desktop.ui.error_text import exception_text
from desktop.ui.plain_text import plain_label

log = logging.getLogger(__name__)

Store = Callable[[str, Sequence[Message]], Awaitable[None]]


class SaveBanner(QFrame):
    saved = Signal(str)  # session id: its messages are stored now

    def __init__(self, store: Store, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBanner")
        self._store = store
        self.pending: list[SaveFailed] = []  # kept until stored
        self._task: asyncio.Future[None] | None = None
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 6, 6, 6)
        self.label = plain_label()  # the message quotes the database's error
        self.label.setWordWrap(True)
        self.retry_button = QPushButton(self.tr("Retry"))
        self.retry_button.setToolTip(self.tr("Try to store the answer again"))
        self.retry_button.setAccessibleName(self.tr("Retry saving the answer"))
        self.retry_button.clicked.connect(self.retry)
        row.addWidget(self.label, 1)
        row.addWidget(self.retry_button)
        self.hide()

    def show_failure(self, event: SaveFailed) -> None:
        self.pending.append(event)
        self._say(self.tr("The answer could not be saved: {error}. It is kept here until "
                          "it is stored.").format(error=event.message))
        self.show()

    def retry(self) -> None:
        if (self._task is not None and not self._task.done()) or not self.pending:
            return
        self.retry_button.setEnabled(False)
        self.retry_button.setText(self.tr("Saving…"))
        self._task = asyncio.ensure_future(self._store_all())

    async def _store_all(self) -> None:
        try:
            while self.pending:
                event = self.pending[0]
                await self._store(event.session_id, event.messages)
                self.pending.pop(0)
                self.saved.emit(event.session_id)
        except Exception as exc:  # the database's words, for the user (and the log)
            log.warning("saving again failed: %s", exc)
            self._say(self.tr("Still not saved: {error}. The answer is kept here; try "
                              "again.").format(error=exception_text(exc)))
        else:
            self.hide()
        finally:
            self.retry_button.setEnabled(True)
            self.retry_button.setText(self.tr("Retry"))

    def _say(self, text: str) -> None:
        self.label.setText(text)
