"""What the window's widgets are handed instead of the app context (issue 26): the
narrow services of the composition root, each for what it is about. The controller is
about the chat on screen; a widget that lists providers, chats, projects or
assistants, installs bundles or syncs takes its service from here.

Built on a :class:`WindowContext` (the composition root's :class:`desktop.app.AppContext`
is one), so this module imports neither the composition root nor the storage layer."""

from __future__ import annotations

from contextlib import AbstractContextManager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from desktop import chat as chat_features
from desktop import knowledge as knowledge_bases
from desktop import skills as agent_skills
from desktop import updates
from desktop.chat.app_context import ChatContext
from desktop.core.first_frame import WINDOW_STATE_KEY
from desktop.tools import mcp

if TYPE_CHECKING:
    from desktop.chat.inspector_service import InspectorService
    from desktop.chat.model_catalog import ModelCatalog
    from desktop.chat.provider_service import ProviderService
    from desktop.chat.saved_chats import SessionStore
    from desktop.chat.turn_undo import TurnUndo
    from desktop.chat.usage import ModelUsage
    from desktop.chat.voice import VoiceService
    from desktop.core.first_frame import WindowState
    from desktop.core.services import AssistantSource, KeyStore, SettingsSource
    from desktop.knowledge.store import KnowledgeStore
    from desktop.projects.service import ProjectService
    from desktop.skills.service import SkillService
    from desktop.sync.service import SyncService
    from desktop.tools.mcp.bundle_install import BundleService
    from desktop.updates.checker import UpdateChecker


class WindowContext(ChatContext, Protocol):
    """The app's services the window's are built from: the chats' and, besides them,
    sync and the knowledge bases on a connection of their own."""

    @property
    def sync(self) -> SyncService: ...

    def knowledge_apart(self) -> AbstractContextManager[KnowledgeStore]: ...


class DataFolder(Protocol):
    """Where the data folder and its parts are (shown in Preferences)."""

    @property
    def root(self) -> Path: ...

    @property
    def portable(self) -> bool: ...

    @property
    def db_path(self) -> Path: ...

    @property
    def logs_dir(self) -> Path: ...


class AppServices:
    def __init__(self, ctx: WindowContext) -> None:
        self._ctx = ctx

    @property
    def settings(self) -> SettingsSource:
        """The settings as a service (read, change, observe)."""
        return self._ctx.settings

    @property
    def providers(self) -> ProviderService:
        return self._ctx.providers

    @property
    def sessions(self) -> SessionStore:
        """The saved chats (listing, searching, import and export read them here)."""
        return self._ctx.sessions

    @property
    def assistants(self) -> AssistantSource:
        return self._ctx.assistants

    @property
    def projects(self) -> ProjectService:
        return self._ctx.projects

    @property
    def sync(self) -> SyncService:
        return self._ctx.sync

    @property
    def paths(self) -> DataFolder:
        """Where the data folder's parts are (shown in Preferences; the logs' folder)."""
        return self._ctx.paths

    @property
    def secrets(self) -> KeyStore:
        """Keys and tokens (the keyring, or a private file)."""
        return self._ctx.secrets

    @property
    def inspection(self) -> InspectorService:
        """The request inspector's records, and replaying one."""
        ctx = self._ctx
        return chat_features.InspectorService(lambda: ctx.inspector, ctx.providers,
                                              ctx.build_provider)

    @property
    def turn_undo(self) -> TurnUndo:
        """Finds and undoes the files a chat's turn wrote."""
        return chat_features.TurnUndo(self._ctx.sessions, self._ctx.checkpoints)

    @property
    def knowledge(self) -> KnowledgeStore:
        """The knowledge bases (on the window's connection)."""
        ctx = self._ctx
        return knowledge_bases.KnowledgeStore(
            ctx.db, partial(knowledge_bases.provider_key, ctx.providers), ctx.proxy)

    def knowledge_apart(self) -> AbstractContextManager[KnowledgeStore]:
        """The knowledge bases on a connection of their own (for a thread that indexes
        while the window's connection stays free for the chats); closed after."""
        return self._ctx.knowledge_apart()

    def voice(self) -> VoiceService:
        """Dictation and reading aloud with the configured audio models."""
        ctx = self._ctx
        return chat_features.VoiceService(ctx.settings, ctx.providers, lambda: ctx.proxy)

    def skills(self) -> SkillService:
        return agent_skills.SkillService(self._ctx.paths.root, self._ctx.settings)

    def usage(self, since: float = 0.0) -> list[ModelUsage]:
        """Tokens, cost and speed per model of the answers since ``since`` (a time)."""
        return chat_features.usage_by_model(self._ctx.db, since)

    def save_window_state(self, state: WindowState) -> None:
        """Keep the window's size and layout for the next start."""
        self._ctx.settings_store.set_value(WINDOW_STATE_KEY, state.to_json())

    @property
    def data_folder(self) -> Path:
        """The data folder's root (extensions unpack below it)."""
        return self._ctx.paths.root

    @property
    def bundles(self) -> BundleService:
        """Installs and removes MCP bundles (.mcpb)."""
        return mcp.BundleService(self._ctx.paths.root, self._ctx.settings, self._ctx.secrets)

    def update_checker(self, current: str) -> UpdateChecker:
        """Checks the release feed for a version newer than ``current``."""
        ctx = self._ctx
        return updates.UpdateChecker(ctx.settings, ctx.settings_store, current,
                             portable=ctx.paths.portable, proxy=lambda: ctx.proxy)

    def model_catalog(self) -> ModelCatalog:
        """Every provider's models (as last fetched), their prices and capabilities."""
        ctx = self._ctx
        return chat_features.ModelCatalog(ctx.settings_store, ctx.settings, ctx.providers)

    def chat_title(self, session_id: str) -> str | None:
        """The chat's title (None: there is no such chat, or it is in the trash)."""
        info = self._ctx.sessions.get_session(session_id)
        return info.title if info is not None else None

    def has_chats(self) -> bool:
        return self._ctx.sessions.has_sessions()


__all__ = ["AppServices"]
