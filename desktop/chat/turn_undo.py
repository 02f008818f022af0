"""Undo the files a turn's tools wrote (the window's "Undo this turn's changes" and
``assista undo``): find the turn's checkpoint, refuse when a file changed since,
otherwise put every file back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.errors import ConfigError
from desktop.tools.checkpoints import CheckpointStore, TurnChanges, UndoRefused, UndoResult

if TYPE_CHECKING:
    from desktop.storage.sessions import SessionStore

__all__ = ["TurnUndo", "UndoRefused", "find_turn", "undo_turn"]


def find_turn(sessions: SessionStore, checkpoints: CheckpointStore, session_id: str,
              turn: str | None = None) -> TurnChanges | None:
    """The checkpoint of the chat's last turn that wrote files and was not undone; with
    ``turn`` (a message id: the question, or an answer that made tool calls) that
    turn's. ConfigError for an unknown chat or message."""
    if sessions.get_session(session_id) is None:
        raise ConfigError(f"no chat with id {session_id!r}",
                          code="chat_gone", params={"chat": session_id})
    calls: list[str] = []
    if turn is not None:
        messages = {m.id: m for m in sessions.load_all_messages(session_id)}
        message = messages.get(turn)
        if message is None:
            raise ConfigError(f"no message with id {turn!r} in chat {session_id}",
                              code="message_not_in_chat",
                              params={"message": turn, "chat": session_id})
        calls = [c.id for c in message.tool_calls]
    return checkpoints.find(session_id, turn, calls)


def undo_turn(sessions: SessionStore, checkpoints: CheckpointStore, session_id: str,
              turn: str | None = None) -> list[UndoResult]:
    """Put back the files of that turn (see :func:`find_turn`). ConfigError when there
    is nothing to undo; :class:`UndoRefused` (nothing touched) when it cannot be done."""
    changes = find_turn(sessions, checkpoints, session_id, turn)
    if changes is None:
        which = f"turn {turn}" if turn else "this chat"
        raise ConfigError(f"nothing to undo: no file written by the assistant in {which} "
                          "is waiting to be undone", code="nothing_to_undo")
    return checkpoints.undo(changes)


class TurnUndo:
    """:func:`find_turn` and :func:`undo_turn` on the app's chats and checkpoints, as the
    window's undo bar is handed them."""

    def __init__(self, sessions: SessionStore, checkpoints: CheckpointStore) -> None:
        self._sessions = sessions
        self._checkpoints = checkpoints

    def find(self, session_id: str, turn: str | None = None) -> TurnChanges | None:
        return find_turn(self._sessions, self._checkpoints, session_id, turn)

    def undo(self, session_id: str, turn: str | None = None) -> list[UndoResult]:
        return undo_turn(self._sessions, self._checkpoints, session_id, turn)
