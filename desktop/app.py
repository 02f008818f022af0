"""Composition root: builds storage, providers and tools for the window and the CLI.

Nothing here is global: :class:`AppContext` is created once per process by the entry
point and handed to whoever needs it. This module imports no Qt.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.chat.provider_service import ProviderService
from desktop.core.errors import ConfigError
from desktop.core.proxy import Proxy
from desktop.core.settings import AppSettings, ProviderConfig
from desktop.core.tooling import NoTools, ToolRunner
from desktop.knowledge.schema import KNOWLEDGE_MIGRATIONS
from desktop.projects.service import ProjectService
from desktop.providers.factory import create_provider
from desktop.storage.assistants import AssistantStore
from desktop.storage.data_folder import open_data_folder
from desktop.storage.database import Database
from desktop.storage.instance_lock import InstanceLock
from desktop.storage.logs import SecretRedactor
from desktop.storage.mcp_secrets import (
    holds_clear_secrets,
    resolve_mcp_secrets,
    stash_mcp_secrets,
)
from desktop.storage.migration_set import Migrations
from desktop.storage.migrations import STORAGE_MIGRATIONS
from desktop.storage.paths import DataPaths
from desktop.storage.sessions import SessionStore
from desktop.storage.settings_service import SettingsService
from desktop.storage.settings_store import SettingsStore
from desktop.tools.builtins import builtin_registry
from desktop.tools.registry import ToolRegistry

if TYPE_CHECKING:
    # Imported where first used: the window shows sooner without them (keyring, the
    # agent loop, the executor and the MCP config models are not needed to start).
    from desktop.core.orchestrator import ConfirmContinue, Orchestrator
    from desktop.core.provider import Provider
    from desktop.knowledge.store import KnowledgeStore
    from desktop.providers.stream_pace import StreamPace
    from desktop.storage.inspector_writer import InspectorWriter
    from desktop.storage.secrets import SecretStore
    from desktop.sync.service import SyncService
    from desktop.tools.approval import Approver, ChatGrants, Policy, ProgressSink
    from desktop.tools.checkpoints import CheckpointStore, TurnCheckpoint
    from desktop.tools.grants import JsonGrantStore
    from desktop.tools.mcp.config import McpServerConfig

log = logging.getLogger(__name__)

GRANTS_FILE = "tool_grants.json"

#: Every feature's schema migrations, in the order they build on each other: storage's
#: own (chats, sync, projects, memories), then the features' that keep their own tables.
DATABASE_MIGRATIONS: tuple[Migrations, ...] = (*STORAGE_MIGRATIONS, KNOWLEDGE_MIGRATIONS)


_OPENING_SECRETS = threading.Lock()


@dataclass
class AppContext:
    """Storage, settings, providers and tools of one process, made by :meth:`open`."""

    paths: DataPaths
    db: Database
    sessions: SessionStore
    settings_store: SettingsStore
    registry: ToolRegistry
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    _grants: JsonGrantStore | None = None
    _secrets: SecretStore | None = None
    _inspector: InspectorWriter | None = None
    lock: InstanceLock | None = None
    notice: str | None = None  # shown once at start (e.g. a recovered damaged database)
    assistants: AssistantStore = field(init=False)
    projects: ProjectService = field(init=False)
    settings: SettingsService = field(init=False)
    providers: ProviderService = field(init=False)
    # Keys and tokens this process has seen, hidden from its log (see open()).
    redactor: SecretRedactor = field(default_factory=SecretRedactor)

    @classmethod
    def open(
        cls,
        data_dir: str | Path | None = None,
        *,
        environ: Mapping[str, str] | None = None,
        log_to_stderr: bool = True,
        lock: InstanceLock | None = None,
        verify: bool | None = None,
        read_only: bool = False,
        stale_leaves: list[tuple[str, str | None]] | None = None,
    ) -> AppContext:
        """Open the data folder. The first process to open it holds the instance lock
        and does the start-up repairs (damaged file recovery, interrupted answers,
        emptying the trash); a second process (e.g. ``assista ask`` while the window
        is open) shares the database without touching what the first one owns.

        ``lock``: the data folder's lock when the caller took it already (the window
        does, before it shows, to hand over to a running instance instead).
        ``verify``: whether to check the database's integrity first (None: after an
        unclean exit, or for a small file; the window checks on a thread, then passes
        what it found). ``read_only``: for a folder that cannot be written (see
        :mod:`desktop.storage.data_folder`). ``stale_leaves``: the chats whose active
        branch needs repair, when that thread found them too (None: looked for here)."""
        redactor = SecretRedactor()
        paths, db, lock, notice = open_data_folder(
            None if data_dir is None else str(data_dir), redactor,
            log_to_stderr=log_to_stderr, lock=lock, verify=verify, read_only=read_only,
            migrations=DATABASE_MIGRATIONS)
        sessions = SessionStore(db)
        ctx = cls(
            paths=paths,
            db=db,
            sessions=sessions,
            settings_store=SettingsStore(db),
            registry=builtin_registry(),
            environ=dict(os.environ if environ is None else environ),
            redactor=redactor,
        )
        ctx.lock = lock
        ctx.notice = notice
        ctx.settings_store.secrets = lambda: ctx.secrets  # URL passwords, header values
        ctx.assistants = AssistantStore(db)
        ctx.projects = ProjectService.on(db)
        ctx.settings = SettingsService(ctx.settings_store, before_save=ctx._stash_secrets)
        ctx.providers = ProviderService(
            ctx.settings_store, ctx.settings, secrets=lambda: ctx.secrets,
            environ=ctx.environ, redactor=redactor, proxy=lambda: ctx.proxy,
            # (looked up per call: a test records what ctx.build_provider builds)
            build=lambda config: ctx.build_provider(config))  # noqa: PLW0108
        settings = ctx.settings.current
        if lock is not None and any(holds_clear_secrets(s) for s in settings.mcp_servers):
            settings = ctx.settings.replace(settings)  # tokens saved in clear before: moved
        if lock is not None:
            interrupted = sessions.mark_interrupted(stale_leaves)
            if interrupted:
                log.warning("marked %d unfinished message(s) from the last run as "
                            "interrupted", interrupted)
            sessions.purge_deleted(older_than_s=settings.trash_retention_days * 86400)
            ctx.checkpoints.prune(older_than_s=max(settings.trash_retention_days, 30) * 86400)
            ctx.inspector.apply_retention()  # on its thread: the start is not held up
        return ctx

    @property
    def is_primary(self) -> bool:
        """True in the process that holds the data folder's instance lock."""
        return self.lock is not None

    @property
    def secrets(self) -> SecretStore:
        """API keys and MCP tokens: the keyring (or the 0600 file in portable mode),
        opened on first use; assign to replace it (tests use a file store). Every key
        it reads or writes is added to :attr:`redactor`."""
        if self._secrets is None:
            with _OPENING_SECRETS:  # (a model list may be opening it on a worker thread)
                if self._secrets is None:
                    from desktop.storage.secrets import SecretStore

                    self._secrets = SecretStore(self.paths, redactor=self.redactor)
        return self._secrets

    @secrets.setter
    def secrets(self, store: SecretStore) -> None:
        if store.redactor is None:  # a store made elsewhere still keeps keys out of the log
            store.redactor = self.redactor
        self._secrets = store

    @property
    def inspector(self) -> InspectorWriter:
        """Where every model request is recorded (``inspector.sqlite``), with the
        retention limits of Settings and every secret the app knows hidden."""
        if self._inspector is None:
            from desktop.storage.inspector_writer import InspectorWriter

            def limits() -> tuple[float, float]:
                current = self.settings.current
                return current.inspector_retention_days, current.inspector_retention_mb

            self._inspector = InspectorWriter(self.paths.root, limits, self.redactor.values,
                                              read_only=self.db.read_only)
        return self._inspector

    @property
    def sync(self) -> SyncService:
        """Sync's configuration, secrets, status and engine (the window's scheduler and
        Sync dialog use this)."""
        from desktop.sync.service import SyncService

        return SyncService(self.db, self.settings_store, secrets=lambda: self.secrets,
                           proxy=lambda: self.proxy)

    @contextmanager
    def knowledge_apart(self) -> Iterator[KnowledgeStore]:
        """The knowledge bases on a connection of their own to the database (for a
        thread that indexes while this context's connection stays free); closed after."""
        from desktop.knowledge.chat_link import provider_key
        from desktop.knowledge.store import KnowledgeStore

        db = Database(self.db.path, migrations=DATABASE_MIGRATIONS)
        try:
            yield KnowledgeStore(db, partial(provider_key, self.providers), self.proxy)
        finally:
            db.close()

    def close(self) -> None:
        if self._inspector is not None:
            self._inspector.close()
        self.db.close()
        if self.lock is not None:
            self.lock.release()

    # -- settings -------------------------------------------------------------------

    @property
    def proxy(self) -> Proxy:
        """The proxy every HTTP client of this context uses (Preferences, else the
        proxy variables the app was started with); read per client, so a change in
        Preferences applies to the next request without touching ``os.environ``."""
        settings = self.settings.current
        return Proxy.from_settings(settings.proxy_url, settings.no_proxy, self.environ)

    def _stash_secrets(self, settings: AppSettings) -> AppSettings:
        """MCP tokens go to the keyring; settings keep a reference."""
        servers = [stash_mcp_secrets(raw, self.secrets) for raw in settings.mcp_servers]
        return settings.model_copy(update={"mcp_servers": servers})

    # -- providers ------------------------------------------------------------------

    def build_provider(self, config: ProviderConfig, *,
                       on_retry: Callable[[int, float, str], None] | None = None,
                       pace: StreamPace | None = None) -> Provider:
        settings = self.settings.current
        recording = None
        if settings.inspector_enabled:
            from desktop.core.exchange import ExchangeRecording

            recording = ExchangeRecording(self.inspector, config.kind, config.id)
        return create_provider(config.model_copy(update={"timeout_s": settings.request_timeout_s}),
                               self.providers.api_key(config), on_retry=on_retry, proxy=self.proxy,
                               recording=recording, pace=pace)

    # -- tools ----------------------------------------------------------------------

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
    ) -> ToolRunner:
        """A tool executor for one turn: ``enabled`` names from ``registry`` (the
        built-ins, plus MCP tools when given), approval policies from settings,
        persisted "always" grants, and the caller's approver (none: Ask = denied).
        ``origin``: the chat the turn runs in."""
        from desktop.tools.executor import ToolExecutor
        from desktop.tools.trust import ToolTrust
        from desktop.tools.workspace import Workspace

        if not enabled:
            return NoTools()
        registry = registry or self.registry
        unknown = [name for name in enabled if registry.get(name) is None]
        if unknown:
            raise ConfigError(
                f"unknown tool(s): {', '.join(unknown)}; available: "
                f"{', '.join(registry.names())}",
                code="unknown_tools",
                params={"tools": ", ".join(unknown), "available": ", ".join(registry.names())}
            )
        settings = settings or self.settings.current
        policies: dict[str, Policy] = dict(settings.tool_policies)
        policies.update(extra_policies or {})
        space = Workspace(Path(workspace)) if workspace else None
        return ToolExecutor(
            registry, space, set(enabled), timeout_s=settings.agent.tool_timeout_s,
            policies=policies, approver=approver, grants=self.grants,
            chat_grants=chat_grants, on_progress=on_progress, proxy=self.proxy,
            # (the data folder hidden from commands, but for the skills: their scripts run)
            trust=ToolTrust.from_settings(settings, hidden_paths=(str(self.paths.root),),
                                          shown_paths=(str(self.paths.root / "skills"),)),
            checkpoint=checkpoint, origin=origin,
        )

    @property
    def checkpoints(self) -> CheckpointStore:
        """Copies of the files the agent wrote, per turn (``assista undo``)."""
        from desktop.tools.checkpoints import CheckpointStore

        return CheckpointStore(self.paths.root / "checkpoints")

    @property
    def grants(self) -> JsonGrantStore:
        """The user's "always allow" grants (Settings lists and revokes them)."""
        if self._grants is None:
            from desktop.tools.grants import JsonGrantStore

            self._grants = JsonGrantStore(self.paths.root / GRANTS_FILE)
        return self._grants

    def mcp_configs(self, settings: AppSettings | None = None) -> list[McpServerConfig]:
        """The configured MCP servers; an invalid entry is logged and skipped."""
        from desktop.tools.mcp.config import McpServerConfig

        configs: list[McpServerConfig] = []
        for raw in (settings or self.settings.current).mcp_servers:
            try:
                resolved = resolve_mcp_secrets(raw, self.secrets)
                configs.append(McpServerConfig.model_validate(resolved))
            except ValueError as exc:
                log.warning("ignoring an invalid MCP server in settings: %s", exc)
        return configs

    def build_orchestrator(
        self,
        provider: Provider,
        tools: ToolRunner,
        settings: AppSettings,
        confirm: ConfirmContinue | None = None,
        *,
        config: ProviderConfig | None = None,
        model: str | None = None,
    ) -> Orchestrator:
        """The request defaults in ``config.options`` (thinking, its budget or effort,
        max_tokens, temperature) go with every request. The model's context window
        (when known) bounds what is sent."""
        from desktop.core.orchestrator import Orchestrator

        options = config.options.request_options() if config is not None else None
        window = None
        if config is not None:
            window = self.providers.capabilities(config, model or config.model).context_window
        return Orchestrator(provider, tools, settings.agent, confirm_continue=confirm,
                            request_options=options, context_window=window,
                            overflow=settings.context_overflow)

