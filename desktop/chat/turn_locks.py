"""The chat locks this process holds while its turns run (see
:mod:`desktop.storage.chat_lock`): a chat answering in another process refuses a turn
here with :class:`ChatBusy`."""

from __future__ import annotations

from pathlib import Path

from desktop.core.errors import ConfigError
from desktop.storage.chat_lock import ChatLock, lock_chat


class ChatBusy(ConfigError):
    """The chat is answering in another Assista process (the window or ``assista ask``)."""

    def __init__(self) -> None:
        super().__init__("This chat is answering in another Assista process (the window or "
                         "assista ask); wait until it has finished.")


class TurnLocks:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._held: dict[str, ChatLock] = {}

    def claim(self, session_id: str) -> None:
        """Hold the chat's lock until :meth:`release`; ChatBusy when another process
        holds it."""
        if session_id in self._held:
            return
        try:
            lock = lock_chat(self.root, session_id)
        except OSError as exc:
            raise ConfigError(f"cannot lock the chat for its answer: {exc}",
                              code="chat_lock_failed", params={"detail": str(exc)}) from exc
        if lock is None:
            raise ChatBusy
        self._held[session_id] = lock

    def release(self, session_id: str) -> None:
        lock = self._held.pop(session_id, None)
        if lock is not None:
            lock.release()

    def held(self) -> list[str]:
        return list(self._held)
