"""All configured MCP servers: start/stop them together and expose their tools.

Typical use (the composition root owns one manager per process)::

    manager = McpManager(configs, proxy=ctx.proxy)   # options go to each McpConnection
    await manager.start_all()                 # concurrently, each bounded by its timeout
    registry = manager.registry(builtin_registry())
    ...
    await manager.stop_all()

Tools are named ``<server>__<tool>`` (see :mod:`.convert`); their default policy
comes from the server's settings, else ``allow`` for tools the server marks
``readOnlyHint`` and ``ask`` for all others. Disabled servers are not started;
disabled tools are not exposed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from typing import Any

import mcp_types as mt

from desktop.core.errors import ConfigError
from desktop.core.messages import Part
from desktop.tools.approval import ApprovalPreview
from desktop.tools.mcp.config import McpServerConfig
from desktop.tools.mcp.connection import McpConnection
from desktop.tools.mcp.content import PromptTurn, prompt_turn, resource_parts
from desktop.tools.mcp.convert import convert_result, exposed_name, input_schema
from desktop.tools.mcp.live_lists import McpObserver
from desktop.tools.mcp.shellenv import LoginPath
from desktop.tools.registry import Tool, ToolContext, ToolRegistry
from desktop.tools.results import ToolOutput

log = logging.getLogger(__name__)

MAX_DESCRIPTION = 2_000


class McpManager:
    def __init__(
        self,
        configs: Iterable[McpServerConfig] = (),
        *,
        login_path: LoginPath | None = None,
        connection_factory: Callable[..., McpConnection] = McpConnection,
        **connection_options: Any,
    ) -> None:
        self.login_path = login_path or LoginPath()
        self._factory = connection_factory
        self._options = connection_options
        self.connections: dict[str, McpConnection] = {}
        for config in configs:
            self.add(config)

    def add(self, config: McpServerConfig) -> McpConnection:
        """Register a server (not started); ``ConfigError`` if the name is taken."""
        if config.name in self.connections:
            raise ConfigError(f"there is already an MCP server named {config.name!r}",
                              code="mcp_server_exists", params={"name": config.name})
        connection = self._factory(config, path=self.login_path.get, **self._options)
        self.connections[config.name] = connection
        return connection

    async def remove(self, name: str) -> None:
        connection = self.connections.pop(name, None)
        if connection is not None:
            await connection.stop()

    def get(self, name: str) -> McpConnection | None:
        return self.connections.get(name)

    async def start_all(self) -> dict[str, bool]:
        """Start every enabled server concurrently; name -> connected."""
        enabled = [c for c in self.connections.values() if c.config.enabled]
        results = await asyncio.gather(*(c.start() for c in enabled), return_exceptions=True)
        outcome: dict[str, bool] = {}
        for connection, result in zip(enabled, results, strict=True):
            if isinstance(result, BaseException):
                log.error("MCP server %s could not start: %s", connection.name, result)
                outcome[connection.name] = False
            else:
                outcome[connection.name] = bool(result)
        return outcome

    async def stop_all(self) -> None:
        await asyncio.gather(*(c.stop() for c in self.connections.values()), return_exceptions=True)

    async def restart(self, name: str) -> bool:
        connection = self.connections.get(name)
        if connection is None:
            raise ConfigError(f"no MCP server named {name!r}",
                              code="no_mcp_server", params={"name": name})
        await connection.stop()
        return await connection.start()

    # -- tools --------------------------------------------------------------------------

    def tools(self, taken: Iterable[str] = ()) -> list[Tool]:
        """Tool objects for the enabled tools of every connected, enabled server."""
        used = set(taken)
        out: list[Tool] = []
        for connection in self.connections.values():
            if not connection.config.enabled:
                continue
            for remote in connection.tools:
                if not connection.config.tool_enabled(remote.name):
                    continue
                name = exposed_name(connection.name, remote.name, used)
                used.add(name)
                out.append(mcp_tool(connection, remote, name))
        return out

    def registry(self, base: ToolRegistry | None = None) -> ToolRegistry:
        """A new registry: the tools of ``base`` (e.g. the built-ins), then the MCP tools."""
        registry = ToolRegistry(list(base) if base is not None else [])
        registry.extend(self.tools(taken=registry.names()))
        return registry

    # -- prompts and resources ----------------------------------------------------------

    def observe(self, observer: McpObserver) -> None:
        """Tell ``observer`` when a server's list or a subscribed resource changes."""
        for connection in self.connections.values():
            connection.observers.append(observer)

    def prompts(self) -> list[tuple[str, mt.Prompt]]:
        return [(c.name, p) for c in self._live() for p in c.lists.prompts]

    def resources(self) -> list[tuple[str, mt.Resource]]:
        return [(c.name, r) for c in self._live() for r in c.lists.resources]

    def templates(self) -> list[tuple[str, mt.ResourceTemplate]]:
        return [(c.name, t) for c in self._live() for t in c.lists.templates]

    async def get_prompt(self, server: str, name: str,
                         arguments: dict[str, str] | None = None) -> PromptTurn:
        """The prompt's messages as the user's turn; ``ToolError`` if the server fails."""
        connection = self._server(server)
        result: mt.GetPromptResult = await connection.request(
            lambda client, _left: client.get_prompt(name, arguments or {}),
            connection.config.call_timeout_s)
        return prompt_turn(server, result)

    async def read_resource(self, server: str, uri: str) -> list[Part]:
        """The resource as attachment parts (read afresh, never from a cache)."""
        connection = self._server(server)
        result: mt.ReadResourceResult = await connection.request(
            lambda client, _left: client.read_resource(uri, cache_mode="bypass"),
            connection.config.call_timeout_s)
        return resource_parts(server, list(result.contents))

    def subscribe(self, server: str, uri: str) -> None:
        """Hear about changes to ``uri`` (a :class:`ResourceChanged` to observers)."""
        self._server(server).live.subscribe(uri)

    def unsubscribe(self, server: str, uri: str) -> None:
        self._server(server).live.unsubscribe(uri)

    async def wait_subscribed(self, server: str, uri: str, timeout_s: float = 10.0) -> bool:
        return await self._server(server).live.wait_active(uri, timeout_s)

    def _live(self) -> list[McpConnection]:
        return [c for c in self.connections.values() if c.config.enabled]

    def _server(self, name: str) -> McpConnection:
        connection = self.connections.get(name)
        if connection is None:
            known = ", ".join(self.connections) or "none"
            raise ConfigError(f"no MCP server named {name!r} (configured: {known})",
                              code="no_mcp_server", params={"name": name})
        return connection


def mcp_tool(connection: McpConnection, remote: mt.Tool, name: str) -> Tool:
    """Our :class:`Tool` calling ``remote`` on ``connection``."""
    config = connection.config
    hints = remote.annotations
    read_only = bool(hints is not None and hints.read_only_hint)
    summary = remote.description or remote.title or remote.name
    description = f"[MCP server {config.name}] {summary}"[:MAX_DESCRIPTION]

    async def handler(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        result = await connection.call_tool(remote.name, args, config.call_timeout_s,
                                            progress=ctx.progress, origin=ctx.origin)
        return convert_result(result)

    async def preview(args: dict[str, Any], ctx: ToolContext) -> ApprovalPreview:
        return ApprovalPreview.arguments(args, title=f"{config.name}: {remote.name}")

    return Tool(
        name=name,
        description=description,
        parameters=input_schema(remote.input_schema),
        handler=handler,
        read_only=read_only,
        default_policy=config.policy_for(remote.name, hints.read_only_hint if hints else None),
        preview=preview,
        timeout_s=config.call_timeout_s + 5.0,
        source=config.name,
    )
