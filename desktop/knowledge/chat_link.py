"""Which knowledge bases a chat uses: its own (``extra["knowledge"]`` of the session,
or ``NewChat.knowledge`` before it is saved), its assistant's (``extra["knowledge"]``
of the assistant), each a list of names, and its project's (attached, and the one
made for the project's larger files)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from desktop.chat.profile import ChatProfiles, ChatRef
    from desktop.chat.provider_service import ProviderService
    from desktop.core.services import AssistantSource

KNOWLEDGE_KEY = "knowledge"


def _names(extra: dict[str, Any] | None) -> list[str]:
    raw = (extra or {}).get(KNOWLEDGE_KEY)
    return [n for n in raw if isinstance(n, str) and n] if isinstance(raw, list) else []


def chat_knowledge(profiles: ChatProfiles, chat: ChatRef) -> list[str]:
    names = own_knowledge(profiles, chat)
    assistant = profiles.assistant(chat)
    if assistant is not None:
        names += _names(assistant.extra)
    project = profiles.project(chat)
    if project is not None:
        names += profiles.projects.knowledge(project)
    return list(dict.fromkeys(names))


def provider_key(providers: ProviderService, provider_id: str) -> str | None:
    """The API key of the configured provider ``provider_id`` (embedding models)."""
    config = next((c for c in providers.all() if c.id == provider_id), None)
    return providers.api_key(config) if config is not None else None


def own_knowledge(profiles: ChatProfiles, chat: ChatRef) -> list[str]:
    """The bases the chat itself chose (not its assistant's)."""
    if not isinstance(chat, str):
        return list(chat.knowledge)
    info = profiles.sessions.get_session(chat)
    return _names(info.extra if info is not None else None)


def set_own_knowledge(profiles: ChatProfiles, chat: ChatRef, names: list[str]) -> None:
    names = list(dict.fromkeys(n for n in names if n))
    if not isinstance(chat, str):
        chat.knowledge = names
        return
    info = profiles.sessions.get_session(chat)
    extra = dict(info.extra or {}) if info is not None else {}
    if names:
        extra[KNOWLEDGE_KEY] = names
    else:
        extra.pop(KNOWLEDGE_KEY, None)
    profiles.sessions.update_session(chat, extra=extra)


def set_assistant_knowledge(assistants: AssistantSource, assistant_id: str,
                            names: list[str]) -> None:
    """The bases every chat with this assistant searches."""
    assistant = assistants.get(assistant_id)
    if assistant is None:
        return
    extra = dict(assistant.extra)
    if names:
        extra[KNOWLEDGE_KEY] = list(dict.fromkeys(names))
    else:
        extra.pop(KNOWLEDGE_KEY, None)
    assistants.save(replace(assistant, extra=extra))
