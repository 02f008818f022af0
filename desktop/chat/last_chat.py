"""The chat the user was last in, reopened at the next start.

Kept as one small settings value (not in the settings document: opening a chat must
not notify everyone who follows the settings). A chat that was deleted, archived or
is in the trash since is not reopened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop.storage.sessions import SessionStore
    from desktop.storage.settings_store import SettingsStore

LAST_CHAT_KEY = "last_chat_id"


def remember_last_chat(values: SettingsStore, session_id: str | None) -> None:
    """``session_id`` is on screen now (a new chat not saved yet changes nothing: the
    chat before it is the one to come back to)."""
    if session_id and values.get_value(LAST_CHAT_KEY) != session_id:
        values.set_value(LAST_CHAT_KEY, session_id)


def last_chat(values: SettingsStore, sessions: SessionStore) -> str | None:
    """The chat to reopen, if it is still there and not archived."""
    session_id = values.get_value(LAST_CHAT_KEY)
    if not isinstance(session_id, str):
        return None
    info = sessions.get_session(session_id)
    return session_id if info is not None and not info.archived else None
