"""What each chat is doing, for the chat list: answering, queued, waiting for the user,
failed, finished unread — or nothing (idle, not stored). Observers are told of every
change."""

from __future__ import annotations

import logging
from collections.abc import Callable

from desktop.chat.events import ChatState

log = logging.getLogger(__name__)

StateObserver = Callable[[str, ChatState], None]


class ChatStates:
    def __init__(self) -> None:
        self._states: dict[str, ChatState] = {}
        self.observers: list[StateObserver] = []

    def get(self, session_id: str) -> ChatState:
        return self._states.get(session_id, "idle")

    def all(self) -> dict[str, ChatState]:
        return dict(self._states)

    def forget(self, session_id: str) -> None:
        self._states.pop(session_id, None)

    def set(self, session_id: str, state: ChatState) -> None:
        if self.get(session_id) == state:
            return
        if state == "idle":
            self._states.pop(session_id, None)
        else:
            self._states[session_id] = state
        for callback in list(self.observers):
            try:
                callback(session_id, state)
            except Exception:  # the chat goes on; the other observers are told
                log.exception("a chat-state observer failed")
