"""The tool side of the window's chats: approvals, live progress, MCP servers, and
which tools each chat has switched on. Owned by the controller; widgets observe the
bridge's signals and answer approvals through :class:`PendingApproval`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from desktop.app import AppContext
from desktop.core.settings import AppSettings
from desktop.tools.approval import ApprovalDecision, ApprovalRequest, ChatGrants, ToolProgress
from desktop.tools.registry import ToolRegistry
from desktop.ui.window.bridge import AgentBridge

if TYPE_CHECKING:
    from desktop.tools.mcp.manager import McpManager

log = logging.getLogger(__name__)

#: Built-in tools that only make sense with a workspace folder.
WORKSPACE_TOOLS = frozenset({"read_file", "list_directory", "search_files", "write_file",
                             "create_file", "edit_file", "run_command"})


@dataclass
class PendingApproval:
    """One tool call waiting for the user. Call :meth:`resolve` exactly once."""

    request: ApprovalRequest
    _future: asyncio.Future[ApprovalDecision] = field(repr=False)

    @property
    def done(self) -> bool:
        return self._future.done()

    def resolve(self, decision: ApprovalDecision) -> None:
        if not self._future.done():
            self._future.set_result(decision)


class ToolSession:
    def __init__(self, ctx: AppContext, bridge: AgentBridge) -> None:
        self.ctx = ctx
        self.bridge = bridge
        self.mcp: McpManager | None = None
        self.pending: dict[str, PendingApproval] = {}
        self._chat_grants: dict[str, ChatGrants] = {}
        self.on_mcp_change: Callable[[], None] | None = None

    # -- approvals and progress ---------------------------------------------------------

    async def approve(self, request: ApprovalRequest) -> ApprovalDecision:
        future: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
        pending = PendingApproval(request, future)
        self.pending[request.call_id] = pending
        self.bridge.approvalRequested.emit(pending)
        try:
            return await future
        finally:
            self.pending.pop(request.call_id, None)
            self.bridge.approvalClosed.emit(request.call_id)

    def progress(self, event: ToolProgress) -> None:
        self.bridge.toolProgress.emit(event)

    def chat_grants(self, session_id: str) -> ChatGrants:
        """The "allow for this chat" grants ("new" for a chat not saved yet)."""
        return self._chat_grants.setdefault(session_id, ChatGrants())

    def adopt_new_chat_grants(self, session_id: str) -> None:
        grants = self._chat_grants.pop("new", None)
        if grants is not None:
            self._chat_grants[session_id] = grants

    # -- MCP ------------------------------------------------------------------------

    async def start_mcp(self, settings: AppSettings) -> None:
        """(Re)start the configured MCP servers; failures are kept per server."""
        await self.stop_mcp()
        configs = self.ctx.mcp_configs(settings)
        if not configs:
            self._changed()
            return
        from desktop.tools.mcp.manager import McpManager  # the SDK is slow to import

        manager = McpManager(configs)
        for connection in manager.connections.values():
            connection.on_change = lambda _c: self._changed()
        self.mcp = manager
        self._changed()
        results = await manager.start_all()
        for name, ok in results.items():
            if not ok:
                log.warning("MCP server %s did not start: %s", name,
                            manager.connections[name].last_error)
        self._changed()

    async def stop_mcp(self) -> None:
        if self.mcp is not None:
            manager, self.mcp = self.mcp, None
            await manager.stop_all()

    def _changed(self) -> None:
        if self.on_mcp_change is not None:
            self.on_mcp_change()

    # -- which tools a chat gets ------------------------------------------------------------

    def registry(self) -> ToolRegistry:
        return self.mcp.registry(self.ctx.registry) if self.mcp is not None else self.ctx.registry

    def available(self, settings: AppSettings, workspace: str | None) -> list[str]:
        """Every tool the chat could use: enabled built-ins (those needing a folder only
        with a workspace) and the tools of running MCP servers."""
        names = [n for n in settings.enabled_tools
                 if workspace or n not in WORKSPACE_TOOLS]
        names += [t.name for t in self.registry() if t.source != "builtin"]
        registry = self.registry()
        return [n for n in dict.fromkeys(names) if registry.get(n) is not None]

    def enabled_for(self, settings: AppSettings, workspace: str | None,
                    disabled: list[str]) -> list[str]:
        return [n for n in self.available(settings, workspace) if n not in disabled]
