"""What a saved chat, an assistant and a project are, as the app reads them: plain records.

Defined here, below storage, so that whoever shows them (the window, the terminal)
names their type without importing the database code that reads and writes them
(:mod:`desktop.storage.sessions`, :mod:`desktop.storage.assistants`). Qt-free.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import msgspec

from desktop.core.messages import new_id


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """A saved chat as the app reads it, without its messages."""

    id: str
    title: str
    created_at: float
    updated_at: float
    provider_id: str | None = None
    model: str | None = None
    workspace: str | None = None
    message_count: int | None = None
    extra: dict[str, Any] = field(default_factory=dict, hash=False)
    system_prompt: str | None = None  # this chat's own system prompt (None: inherited)
    assistant_id: str | None = None  # the assistant the chat was started from
    pinned: bool = False
    archived: bool = False
    deleted_at: float | None = None  # set while the chat is in the trash (undo)
    active_leaf_id: str | None = None  # last message of the active branch
    project_id: str | None = None  # the project the chat is in (desktop.projects)


@dataclass(frozen=True, slots=True)
class Assistant:
    """A named system prompt with a default provider, model, temperature and tools."""

    name: str
    system_prompt: str = ""
    description: str = ""
    provider_id: str | None = None  # None: the provider chosen in the window
    model: str | None = None  # None: the provider's default model
    temperature: float | None = None  # None: the provider's default
    enabled_tools: tuple[str, ...] | None = None  # None: the app's tool settings
    id: str = field(default_factory=lambda: new_id("asst_"))
    position: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict, hash=False)


def new_project_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True, slots=True)
class Project:
    """A project: its chats get its instructions and files, and start with its model."""

    name: str
    instructions: str = ""  # added to the system prompt after the assistant's
    knowledge: tuple[str, ...] = ()  # knowledge bases its chats search
    workspace: str | None = None  # the folder its chats' file tools work in
    provider_id: str | None = None  # None: the chat's provider
    model: str | None = None  # None: the provider's (or assistant's) model
    tools: tuple[str, ...] | None = None  # None: the app's tool settings
    files_base: str | None = None  # the knowledge base made for its larger files
    id: str = field(default_factory=new_project_id)
    position: int = 0
    created_at: float = 0.0
    updated_at: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict, hash=False)


class ProjectFile(msgspec.Struct, frozen=True):
    """A file added to a project: its text (in every chat's context) or, for a
    larger one, ``content`` None: it is searched in the project's files base."""

    project_id: str
    name: str
    content: str | None
    path: str | None = None
    size: int = 0
    id: str = msgspec.field(default_factory=new_project_id)
    created_at: float = 0.0

    @property
    def in_context(self) -> bool:
        return self.content is not None
