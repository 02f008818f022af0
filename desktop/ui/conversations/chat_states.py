"""What each chat in the list is doing: answering (a spinner), waiting for the user
(a badge), failed, or finished while nobody looked (a dot).

Chats answer in the background, so the list is where the user sees them; the marks
are drawn by :class:`SectionDelegate` from the item's :data:`STATE_ROLE`, and only the
rows of spinning chats are repainted as the spinner turns.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QListWidget, QListWidgetItem

from desktop.ui.conversations.session_items import (
    ID_ROLE,
    STATE_ROLE,
    TITLE_ROLE,
    SectionDelegate,
    state_text,
)

SPINNING = ("answering", "queued")


class ChatStateMarks:
    def __init__(self, chat_list: QListWidget) -> None:
        self.list = chat_list
        self.delegate = SectionDelegate(chat_list)
        chat_list.setItemDelegate(self.delegate)
        self._states: dict[str, str] = {}  # chats doing something: id -> ChatState
        # The chat on screen shows its answer streaming: its mark need not turn (a
        # turning mark is a repaint ~11 times a second, ~7 % of what streaming costs).
        self._current: str | None = None
        self._spinner = QTimer(chat_list)
        self._spinner.setInterval(90)
        self._spinner.timeout.connect(self._spin)

    def set_state(self, session_id: str, state: str) -> None:
        """``idle`` clears the mark."""
        if state == "idle":
            self._states.pop(session_id, None)
        else:
            self._states[session_id] = state
        item = self._item(session_id)
        if item is not None:
            self.show(item, session_id)
        self._update_spinner()

    def set_current(self, session_id: str | None) -> None:
        self._current = session_id
        self._update_spinner()

    def _spinning(self) -> list[str]:
        return [sid for sid, state in self._states.items()
                if state in SPINNING and sid != self._current]

    def _update_spinner(self) -> None:
        spinning = bool(self._spinning())
        if spinning and not self._spinner.isActive():
            self._spinner.start()
        elif not spinning:
            self._spinner.stop()

    def state_of(self, session_id: str) -> str:
        return self._states.get(session_id, "idle")

    def show(self, item: QListWidgetItem, session_id: str) -> None:
        """Put the chat's mark (and what it means, for screen readers) on its row."""
        state = self._states.get(session_id)
        if state is None and item.data(STATE_ROLE) is None:
            return
        item.setData(STATE_ROLE, state)
        title = str(item.data(TITLE_ROLE) or item.text())
        item.setData(Qt.ItemDataRole.AccessibleTextRole,
                     f"{title}, {state_text(state)}" if state else title)

    def _item(self, session_id: str) -> QListWidgetItem | None:
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item is not None and item.data(ID_ROLE) == session_id:
                return item
        return None

    def _spin(self) -> None:
        self.delegate.phase = (self.delegate.phase + 1) % 12
        for session_id in self._spinning():
            item = self._item(session_id)
            if item is not None:  # repaint just its mark (the row's text stays)
                index = self.list.indexFromItem(item)
                mark = self.delegate.mark_rect(self.list.visualItemRect(item),
                                               self.delegate.header_height(self.list, index))
                # (the mark only, the arc is drawn inside it: then the row's text
                # is not drawn again, see SectionDelegate.paint)
                self.list.viewport().update(mark)
