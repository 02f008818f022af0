"""What the chat layer asks of the app: the services the composition root builds.

The chat layer runs on these and never imports :mod:`desktop.app` (the composition
root, imported only by the entry points): :class:`desktop.app.AppContext` satisfies
:class:`ChatContext` by its shape.

Only the chat layer's assembly, :class:`desktop.chat.service.ChatService`, takes the
whole :class:`ChatContext`: it builds the chat parts (profiles, tools, the turn runner,
titles, ...) and hands each the few services it uses as constructor arguments (issue
26), so every other chat module names what it needs. The builders the context offers
are typed here (:class:`BuildProvider`, :class:`BuildTools`, :class:`BuildOrchestrator`)
for the parts that are handed one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from desktop.chat.provider_service import ProviderService
    from desktop.core.orchestrator import ConfirmContinue, Orchestrator
    from desktop.core.provider import Provider
    from desktop.core.proxy import Proxy
    from desktop.core.settings import AppSettings, ProviderConfig
    from desktop.core.tooling import ToolRunner
    from desktop.projects.service import ProjectService
    from desktop.providers.stream_pace import StreamPace
    from desktop.storage.assistants import AssistantStore
    from desktop.storage.database import Database
    from desktop.storage.inspector_writer import InspectorWriter
    from desktop.storage.paths import DataPaths
    from desktop.storage.secrets import SecretStore
    from desktop.storage.sessions import SessionStore
    from desktop.storage.settings_service import SettingsService
    from desktop.storage.settings_store import SettingsStore
    from desktop.tools.approval import Approver, ChatGrants, Policy, ProgressSink
    from desktop.tools.checkpoints import CheckpointStore, TurnCheckpoint
    from desktop.tools.grants import JsonGrantStore
    from desktop.tools.mcp.config import McpServerConfig
    from desktop.tools.registry import ToolRegistry


class BuildProvider(Protocol):
    """A provider for requests as the app makes them (its timeout, proxy, recorded)."""

    def __call__(self, config: ProviderConfig, *,
                 on_retry: Callable[[int, float, str], None] | None = None,
                 pace: StreamPace | None = None) -> Provider: ...


class BuildTools(Protocol):
    """A tool executor for one turn (see :meth:`desktop.app.AppContext.build_tools`)."""

    def __call__(
        self,
        workspace: str | None,
        enabled: list[str] | None,
        *,
        registry: ToolRegistry | None = None,
        settings: AppSettings | None = None,
        approver: Approver | None = None,
        chat_grants: ChatGrants | None = None,
        on_progress: ProgressSink | None = None,
        extra_policies: Mapping[str, Policy] | None = None,
        checkpoint: TurnCheckpoint | None = None,
        origin: str | None = None,
    ) -> ToolRunner: ...


class BuildOrchestrator(Protocol):
    """The agent loop of one turn (see :meth:`desktop.app.AppContext.build_orchestrator`)."""

    def __call__(
        self,
        provider: Provider,
        tools: ToolRunner,
        settings: AppSettings,
        confirm: ConfirmContinue | None = None,
        *,
        config: ProviderConfig | None = None,
        model: str | None = None,
    ) -> Orchestrator: ...


class ChatContext(Protocol):
    """The app's services the chats, their tools and their providers are built from
    (what :class:`desktop.chat.service.ChatService` is assembled from)."""

    @property
    def paths(self) -> DataPaths: ...

    @property
    def db(self) -> Database: ...

    @property
    def sessions(self) -> SessionStore: ...

    @property
    def settings_store(self) -> SettingsStore: ...

    @property
    def settings(self) -> SettingsService: ...

    @property
    def providers(self) -> ProviderService: ...

    @property
    def assistants(self) -> AssistantStore: ...

    @property
    def projects(self) -> ProjectService: ...

    @property
    def registry(self) -> ToolRegistry: ...

    @property
    def environ(self) -> Mapping[str, str]: ...

    @property
    def secrets(self) -> SecretStore: ...

    @property
    def inspector(self) -> InspectorWriter: ...

    @property
    def proxy(self) -> Proxy: ...

    @property
    def checkpoints(self) -> CheckpointStore: ...

    @property
    def grants(self) -> JsonGrantStore: ...

    def build_provider(self, config: ProviderConfig, *,
                       on_retry: Callable[[int, float, str], None] | None = None,
                       pace: StreamPace | None = None) -> Provider:
        ...

    def build_tools(
        self,
        workspace: str | None,
        enabled: list[str] | None,
        *,
        registry: ToolRegistry | None = None,
        settings: AppSettings | None = None,
        approver: Approver | None = None,
        chat_grants: ChatGrants | None = None,
        on_progress: ProgressSink | None = None,
        extra_policies: Mapping[str, Policy] | None = None,
        checkpoint: TurnCheckpoint | None = None,
        origin: str | None = None,
    ) -> ToolRunner: ...

    def mcp_configs(self, settings: AppSettings | None = None) -> list[McpServerConfig]: ...

    def build_orchestrator(
        self,
        provider: Provider,
        tools: ToolRunner,
        settings: AppSettings,
        confirm: ConfirmContinue | None = None,
        *,
        config: ProviderConfig | None = None,
        model: str | None = None,
    ) -> Orchestrator: ...
