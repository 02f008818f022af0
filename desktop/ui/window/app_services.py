"""What the window's widgets are handed instead of the app context (issue 26): the
narrow services of the composition root, each for what it is about. The controller is
about the chat on screen; a widget that lists providers, chats, projects or
assistants, installs bundles or syncs takes its service from here."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from desktop.app import AppContext

if TYPE_CHECKING:
    from desktop.chat.model_catalog import ModelCatalog
    from desktop.chat.provider_service import ProviderService
    from desktop.core.services import SettingsSource
    from desktop.projects.service import ProjectService
    from desktop.storage.assistants import AssistantStore
    from desktop.storage.sessions import SessionStore
    from desktop.sync.service import SyncService
    from desktop.tools.mcp.bundle_install import BundleService


class AppServices:
    def __init__(self, ctx: AppContext) -> None:
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
    def assistants(self) -> AssistantStore:
        return self._ctx.assistants

    @property
    def projects(self) -> ProjectService:
        return self._ctx.projects

    @property
    def sync(self) -> SyncService:
        return self._ctx.sync

    @property
    def data_folder(self) -> Path:
        """The data folder's root (extensions unpack below it)."""
        return self._ctx.paths.root

    @property
    def bundles(self) -> BundleService:
        """Installs and removes MCP bundles (.mcpb)."""
        from desktop.tools.mcp.bundle_install import BundleService

        return BundleService(self._ctx.paths.root, self._ctx.settings, self._ctx.secrets)

    def model_catalog(self) -> ModelCatalog:
        """Every provider's models (as last fetched), their prices and capabilities."""
        from desktop.chat.model_catalog import ModelCatalog

        return ModelCatalog(self._ctx)

    def chat_title(self, session_id: str) -> str | None:
        """The chat's title (None: there is no such chat, or it is in the trash)."""
        info = self._ctx.sessions.get_session(session_id)
        return info.title if info is not None else None

    def has_chats(self) -> bool:
        return self._ctx.sessions.has_sessions()


__all__ = ["AppServices"]
