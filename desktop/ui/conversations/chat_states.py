"""What each chat in the list is doing: answering (a spinner), waiting for the user
(a badge), failed, or finished while nobody looked (a dot).

Chats answer in the background, so the list is where the user sees them; the marks
are drawn by :class:`SectionDelegate` from the item's :data:`STATE_ROLE`, and only the
rows of spinning chats are repainted as the spinner turns: while the chat on screen
streams, in the same pass as its frames (see desktop.ui.frames).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QListWidget, QListWidgetItem

from desktop.ui import frames
from desktop.ui.conversations.session_items import (
    ID_ROLE,
    STATE_ROLE,
    TITLE_ROLE,
    SectionDelegate,
    state_text,
)

SPINNING = ("answering", "queued")
STEP_S = 0.09  # a spinner's step (12 a turn)


class ChatStateMarks(QObject):
    # (a QObject owned by the list: its connection to the frame clock ends with it)
    def __init__(self, chat_list: QListWidget,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(chat_list)
        self.list = chat_list
        self._clock = clock
        self.delegate = SectionDelegate(chat_list)
        chat_list.setItemDelegate(self.delegate)
        self._states: dict[str, str] = {}  # chats doing something: id -> ChatState
        self._rows: dict[str, QListWidgetItem] = {}  # their rows, as last found
        # The chat on screen shows its answer streaming: its mark need not turn (a
        # turning mark is a repaint ~11 times a second, ~7 % of what streaming costs).
        self._current: str | None = None
        self._spinner = QTimer(chat_list)
        self._spinner.setInterval(round(STEP_S * 1000))
        self._spinner.timeout.connect(self._spin)
        self._turned = clock()  # when the spinners last stepped
        # While the chat on screen streams, the spinners step with its frames: painted
        # in the frame's pass, not in passes of their own between frames (each one
        # painted and sent the window's backing store again); the timer steps them
        # when no frame came for a step.
        frames.clock().rendered.connect(self._on_frame)

    def set_state(self, session_id: str, state: str) -> None:
        """``idle`` clears the mark."""
        if state == "idle":
            self._states.pop(session_id, None)
            self._rows.pop(session_id, None)
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
            self._turned = self._clock()
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
        """The chat's row: the one found last time while it is still in the list and
        still the chat's, else looked for (a spinner's step with 1,000 chats looked
        through every row, ~1.6 ms, 11 times a second)."""
        known = self._rows.get(session_id)
        if known is not None:
            try:
                if known.listWidget() is self.list and known.data(ID_ROLE) == session_id:
                    return known
            except RuntimeError:  # (deleted: the list was filled again)
                pass
            del self._rows[session_id]
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item is not None and item.data(ID_ROLE) == session_id:
                if session_id in self._states:
                    self._rows[session_id] = item
                return item
        return None

    def _on_frame(self) -> None:
        """A streamed frame was rendered: the steps that fell due since the last one,
        and the timer waits a whole step again."""
        if not self._spinner.isActive():
            return
        self._spinner.start()
        steps = int((self._clock() - self._turned) / STEP_S + 1e-6)
        if steps > 0:
            self._turned += steps * STEP_S
            self._step(steps)

    def _spin(self) -> None:
        self._turned = self._clock()
        self._step(1)

    def _step(self, steps: int) -> None:
        self.delegate.phase = (self.delegate.phase + steps) % 12
        for session_id in self._spinning():
            item = self._item(session_id)
            if item is not None:  # repaint just its mark (the row's text stays)
                index = self.list.indexFromItem(item)
                mark = self.delegate.mark_rect(self.list.visualItemRect(item),
                                               self.delegate.header_height(self.list, index))
                # (the mark only, the arc is drawn inside it: then the row's text
                # is not drawn again, see SectionDelegate.paint)
                self.list.viewport().update(mark)
