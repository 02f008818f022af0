"""What the user has typed but not sent, per chat, kept across restarts.

A saved chat's draft is a settings value (``draft:<chat id>``), not a column of the
chat: saving it must not touch the chat's ``updated_at``, which orders the chat list
(typing in a chat is not a change to it). The new chat's draft lives in its
:class:`~desktop.chat.profile.NewChat` and under ``draft:new``, so a half-written first
message survives a restart too. An empty draft is deleted, not stored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.chat.profile import ChatRef, NewChat

if TYPE_CHECKING:
    from desktop.storage.settings_store import SettingsStore

NEW_CHAT_KEY = "draft:new"


def draft_key(session_id: str) -> str:
    return f"draft:{session_id}"


class ChatDrafts:
    def __init__(self, store: SettingsStore) -> None:
        self.store = store

    def get(self, chat: ChatRef) -> str:
        if isinstance(chat, NewChat):
            return chat.draft
        value = self.store.get_value(draft_key(chat), "")
        return value if isinstance(value, str) else ""

    def set(self, chat: ChatRef, text: str) -> None:
        """Keep ``text`` as the chat's draft (whitespace only: no draft)."""
        if not text.strip():
            text = ""
        if isinstance(chat, NewChat):
            if chat.draft == text:
                return
            chat.draft = text
            key = NEW_CHAT_KEY
        else:
            key = draft_key(chat)
            if self.get(chat) == text:
                return
        if text:
            self.store.set_value(key, text)
        else:
            self.store.delete_value(key)

    def new_chat_draft(self) -> str:
        """The new chat's draft of the last run (a new :class:`NewChat` starts with it)."""
        value = self.store.get_value(NEW_CHAT_KEY, "")
        return value if isinstance(value, str) else ""

    def forget(self, session_id: str) -> None:
        self.store.delete_value(draft_key(session_id))
