"""Which knowledge bases a chat uses: its own (``extra["knowledge"]`` of the session)
and its assistant's (``extra["knowledge"]`` of the assistant), each a list of names."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop.chat.profile import ChatProfiles, ChatRef

KNOWLEDGE_KEY = "knowledge"


def _names(extra: dict[str, Any] | None) -> list[str]:
    raw = (extra or {}).get(KNOWLEDGE_KEY)
    return [n for n in raw if isinstance(n, str) and n] if isinstance(raw, list) else []


def chat_knowledge(profiles: ChatProfiles, chat: ChatRef) -> list[str]:
    names: list[str] = []
    if isinstance(chat, str):
        info = profiles.ctx.sessions.get_session(chat)
        names += _names(info.extra if info is not None else None)
    assistant = profiles.assistant(chat)
    if assistant is not None:
        names += _names(assistant.extra)
    return list(dict.fromkeys(names))
