"""Which tools a chat gets, and the MCP servers that add to them.

One rule for the window and the CLI: the built-ins switched on in Settings (those
that work in a folder only when the chat has a workspace), plus every tool of the
running MCP servers, less the ones the chat switched off. The names a caller asks
for explicitly (``assista ask --tools``) are checked here, once.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from desktop import chat as chat_features
from desktop import knowledge as knowledge_bases
from desktop import skills as agent_skills
from desktop.core.errors import ConfigError
from desktop.core.tooling import NoTools, ToolRunner
from desktop.storage.mcp_secrets import settle_servers
from desktop.tools import mcp
from desktop.tools.approval import ChatGrants
from desktop.tools.builtins.remember import Remember
from desktop.tools.builtins.web_search import web_search_tool
from desktop.tools.registry import ToolRegistry
from desktop.tools.trust import ToolTrust

if TYPE_CHECKING:
    from desktop.chat.app_context import ChatContext
    from desktop.chat.research.progress import ResearchLimits
    from desktop.chat.research.start import ResearchJob
    from desktop.core.messages import Message
    from desktop.core.services import KeyStore
    from desktop.core.settings import AppSettings
    from desktop.skills.format import Skill
    from desktop.tools.approval import Approver, Policy, ProgressSink
    from desktop.tools.builtins.remember import SaveMemory
    from desktop.tools.checkpoints import TurnCheckpoint
    from desktop.tools.grants import JsonGrantStore
    from desktop.tools.mcp.catalog import RegistryCatalog
    from desktop.tools.mcp.config import McpServerConfig
    from desktop.tools.mcp.live_lists import McpEvent
    from desktop.tools.mcp.manager import McpManager
    from desktop.tools.mcp.oauth import Browser
    from desktop.tools.mcp.server_requests import Elicitor, Sampler

log = logging.getLogger(__name__)


#: Added to a turn whose chat (or assistant) has knowledge bases; bound to them.
KNOWLEDGE_TOOL = "search_knowledge"
#: Added to a turn that searches the web on a provider without a search of its own.
WEB_TOOL = "web_search"
#: Added to a turn of a chat that may write memories; bound to the chat's scope.
REMEMBER_TOOL = "remember"
#: Added to a turn whose chat offers skills; bound to them.
SKILL_TOOL = "load_skill"


def check_known(names: Iterable[str], registry: ToolRegistry) -> None:
    unknown = [name for name in names if registry.get(name) is None]
    if unknown:
        raise ConfigError(f"unknown tool(s): {', '.join(unknown)}; available: "
                          f"{', '.join(registry.names())}",
                          code="unknown_tools",
                          params={"tools": ", ".join(unknown),
                                  "available": ", ".join(registry.names())})


class ChatTools:
    """The tool side of the chats. It takes the whole :class:`ChatContext` because it is
    the tools' own assembly: each turn's executor (the app's ``build_tools``, its
    registry, grants and checkpoints), the MCP servers (their configs, secrets and
    proxy), the registry catalog (environment, data folder) and the search tools (the
    database, the providers' keys, Settings) each need other app services."""

    def __init__(self, ctx: ChatContext) -> None:
        self._ctx = ctx
        self.mcp: McpManager | None = None
        self._grants: dict[str, ChatGrants] = {}
        self.on_change: list[Callable[[], None]] = []
        # Told when a server's tools, prompts or resources change, or a subscribed
        # resource does (after the list was fetched again).
        self.on_mcp_event: list[Callable[[McpEvent], None]] = []
        # Who answers servers that ask (None: declined); set before start_mcp.
        self.elicitor: Elicitor | None = None
        self.sampler: Sampler | None = None
        # Opens a remote server's sign-in page for a person (None: nobody to ask).
        self.browser: Browser | None = None
        # The settings (secrets as stored: placeholders) each server was started from
        self.started_settings: dict[str, dict[str, Any]] = {}

    def server_catalog(self) -> RegistryCatalog:
        """The MCP servers the official registry lists (or the one ``ASSISTA_MCP_REGISTRY``
        names), cached in the data folder, fetched through the app's proxy."""
        base = self._ctx.environ.get(mcp.REGISTRY_ENV) or mcp.OFFICIAL_REGISTRY
        return mcp.RegistryCatalog(self._ctx.paths.root, base_url=base, proxy=self._ctx.proxy)

    def settle_server_secrets(self, before: list[dict[str, Any]], renamed: Mapping[str, str],
                              kept: set[str]) -> list[str]:
        """Before an edited MCP server list is saved: removed servers' keys and sign-ins
        are forgotten, renamed ones take theirs along (see
        :func:`desktop.storage.mcp_secrets.settle_servers`)."""
        return settle_servers(before, renamed, kept, self._ctx.secrets)

    def secrets(self) -> KeyStore:
        """Keys and tokens (opened when first asked for: the keyring is slow)."""
        return self._ctx.secrets

    # -- which tools ----------------------------------------------------------------

    def registry(self) -> ToolRegistry:
        registry = self._ctx.registry
        return self.mcp.registry(registry) if self.mcp is not None else registry

    def available(self, settings: AppSettings, workspace: str | None) -> list[str]:
        """Every tool a chat could use with this workspace."""
        registry = self.registry()
        names = [*settings.enabled_tools, *(t.name for t in registry if t.source != "builtin")]
        tools = [registry.get(n) for n in dict.fromkeys(names)]
        # (a tool that needs a workspace folder says so: Tool.needs_workspace)
        return [t.name for t in tools if t is not None and (workspace or not t.needs_workspace)]

    def mcp_tools(self, servers: Iterable[str]) -> list[str]:
        wanted = set(servers)
        return [t.name for t in self.registry() if t.source in wanted]

    @property
    def saved_grants(self) -> JsonGrantStore:
        """The user's "always allow" grants (Settings lists and revokes them)."""
        return self._ctx.grants

    def chat_grants(self, session_id: str) -> ChatGrants:
        """The chat's "allow for this chat" grants."""
        return self._grants.setdefault(session_id, ChatGrants())

    def checkpoint(self, session_id: str, base: Sequence[Message]) -> TurnCheckpoint | None:
        """Where a turn keeps the files it writes, for undo (none for unsaved chats);
        the turn's id is its question's message id."""
        if session_id.startswith("unsaved-"):
            return None
        last = base[-1] if base else None
        turn_id = last.id if last is not None and last.role == "user" else uuid.uuid4().hex
        return self._ctx.checkpoints.begin(session_id, turn_id)

    def move_grants(self, old_key: str, session_id: str) -> None:
        grants = self._grants.pop(old_key, None)
        if grants is not None:
            self._grants[session_id] = grants

    def research_job(self, limits: ResearchLimits, knowledge: Sequence[str],
                     question: str) -> ResearchJob:
        """A research run of ``question`` within ``limits``, searching and reading with
        the search service of Settings and the knowledge bases named; ConfigError with
        what to do when there is neither, or the service cannot search. (The research
        run's modules load here, when research is first asked for.)"""
        settings = self._ctx.settings.current
        web = chat_features.web_search_config(self.secrets, settings)
        if web is not None and (unusable := chat_features.search_service_error(web)) is not None:
            raise unusable
        tool = None
        if knowledge:
            keys = partial(knowledge_bases.provider_key, self._ctx.providers)
            tool = knowledge_bases.search_knowledge_tool(self._ctx.db, knowledge, keys,
                                                         self._ctx.proxy)
        if web is None and tool is None:
            raise ConfigError("Research needs something to search: choose a search service "
                              "(SearXNG, Brave or Tavily) in Settings, or add a knowledge "
                              "base to the chat.", code="research_no_search")
        trust = ToolTrust.from_settings(settings, hidden_paths=(str(self._ctx.paths.root),))
        gatherer = chat_features.Gatherer(web, tool, proxy=self._ctx.proxy, trust=trust)
        return chat_features.ResearchJob(limits, gatherer, question)

    def runner(self, names: list[str], *, workspace: str | None, settings: AppSettings,
               approver: Approver | None, grants: ChatGrants | None,
               on_progress: ProgressSink | None,
               extra_policies: Mapping[str, Policy] | None = None,
               knowledge: Sequence[str] = (),
               checkpoint: TurnCheckpoint | None = None,
               origin: str | None = None,
               remember: SaveMemory | None = None,
               skills: Sequence[Skill] = ()) -> ToolRunner:
        """An executor for one turn (``NoTools`` when nothing is enabled).
        ``knowledge``: the chat's knowledge bases, searched by ``search_knowledge``;
        ``origin``: the chat the turn runs in (MCP servers' questions belong to it);
        ``remember``: where the ``remember`` tool saves (None: it is not offered);
        ``skills``: the skills the chat offers, read by ``load_skill``."""
        if not names:
            return NoTools()
        registry = self.registry()
        if knowledge:
            registry = ToolRegistry([t for t in registry if t.name != KNOWLEDGE_TOOL])
            keys = partial(knowledge_bases.provider_key, self._ctx.providers)
            registry.register(knowledge_bases.search_knowledge_tool(self._ctx.db, knowledge, keys,
                                                                    self._ctx.proxy))
        if REMEMBER_TOOL in names:
            if remember is None:
                names = [n for n in names if n != REMEMBER_TOOL]
            else:
                registry = ToolRegistry([t for t in registry if t.name != REMEMBER_TOOL])
                registry.register(Remember.tool(remember))
        if SKILL_TOOL in names:
            registry = ToolRegistry([t for t in registry if t.name != SKILL_TOOL])
            registry.register(agent_skills.load_skill_tool(skills))
        if WEB_TOOL in names:
            config = chat_features.web_search_config(self.secrets, settings)
            if config is not None:
                registry = ToolRegistry([t for t in registry if t.name != WEB_TOOL])
                registry.register(web_search_tool(config))
        check_known(names, registry)
        return self._ctx.build_tools(workspace, names, registry=registry, settings=settings,
                                    approver=approver, chat_grants=grants,
                                    on_progress=on_progress, extra_policies=extra_policies,
                                    checkpoint=checkpoint, origin=origin)

    # -- MCP --------------------------------------------------------------------------

    async def start_mcp(self, extra: Iterable[McpServerConfig] = ()) -> dict[str, bool]:
        """(Re)start the configured MCP servers plus ``extra`` (same name: ``extra``
        wins); returns which started. Failures are kept per server."""
        await self.stop_mcp()
        extra = list(extra)
        names = {c.name for c in extra}
        self.started_settings = {str(raw.get("name")): raw
                                 for raw in self._ctx.settings.current.mcp_servers
                                 if raw.get("name") not in names}
        configs = [c for c in self._ctx.mcp_configs(self._ctx.settings.current)
                   if c.name not in names] + extra
        if not configs:
            self._changed()
            return {}
        manager = mcp.McpManager(configs, proxy=self._ctx.proxy, elicitor=self.elicitor,
                             sampler=self.sampler,
                             oauth=mcp.OAuthSetup(self._ctx.secrets, self.browser))
        for connection in manager.connections.values():
            connection.on_change = lambda _c: self._changed()
        manager.observe(self._mcp_event)
        self.mcp = manager
        self._changed()
        results = await manager.start_all()
        for name, ok in results.items():
            if not ok:
                log.warning("MCP server %s did not start: %s", name,
                            manager.connections[name].last_error)
        self._changed()
        return results

    async def stop_mcp(self) -> None:
        if self.mcp is not None:
            manager, self.mcp = self.mcp, None
            await manager.stop_all()
            self._changed()

    def _mcp_event(self, event: McpEvent) -> None:
        for callback in list(self.on_mcp_event):
            try:
                callback(event)
            except Exception:
                log.exception("an MCP observer failed")
        self._changed()  # a tool list may have changed: tool switches follow

    def _changed(self) -> None:
        for callback in list(self.on_change):
            try:
                callback()
            except Exception:
                log.exception("a tools observer failed")
