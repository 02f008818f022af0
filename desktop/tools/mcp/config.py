"""MCP server settings, and import from Claude-Desktop-style ``mcpServers`` JSON.

A server is reached over ``stdio`` (a command the app starts), Streamable
``http`` or legacy ``sse`` (a URL, with optional headers). The JSON formats
accepted by :func:`parse_mcp_json` are the Claude Desktop one::

    {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"],
                             "env": {"TZ": "UTC"}}}}

and its common variants: ``"servers"`` instead of ``"mcpServers"`` (VS Code), the
inner mapping on its own (what people paste), ``"url"``/``"serverUrl"`` with
optional ``"headers"`` and ``"type"``/``"transport"`` (``stdio``, ``http``,
``streamable-http``, ``sse``), and ``"disabled": true``; this app's own keys (policies,
timeouts, ``oauth_client_id``/``oauth_client_secret``/``oauth_redirect_port`` of a
sign-in app registered by hand) are read too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from desktop.core.errors import ConfigError
from desktop.tools.approval import Policy

Transport = Literal["stdio", "http", "sse"]
Protocol = Literal["auto", "legacy"]

_TRANSPORT_ALIASES: dict[str, Transport] = {
    "stdio": "stdio",
    "http": "http",
    "streamable-http": "http",
    "streamable_http": "http",
    "streamablehttp": "http",
    "sse": "sse",
}


class McpServerConfig(BaseModel):
    """One MCP server. ``name`` is the key shown to the user and the tool-name prefix."""

    # (its validator is built at the first server read, not with the window's start)
    model_config = ConfigDict(extra="forbid", defer_build=True)

    name: str = Field(min_length=1)
    transport: Transport = "stdio"
    command: str = ""
    args: list[str] = []
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: dict[str, str] = Field(default_factory=dict)
    # Values the registry marks secret whatever their names (kept in the secret store):
    secret_env: list[str] = []  # env names
    secret_args: list[int] = []  # indices in args not stored yet
    # A client registered by hand with the server's sign-in (servers that register none
    # themselves); the secret is kept in the secret store; 0: the callback on any port
    oauth_client_id: str = ""
    oauth_client_secret: str = ""
    oauth_redirect_port: int = Field(default=0, ge=0, le=65535)
    enabled: bool = True
    disabled_tools: list[str] = []  # the server's own tool names
    tool_policies: dict[str, Policy] = Field(default_factory=dict)  # by the server's names
    default_policy: Policy | None = None  # None: allow if the tool is readOnlyHint, else ask
    protocol: Protocol = "auto"  # "legacy" skips the 2026 discover probe
    call_timeout_s: float = Field(default=120.0, gt=0)
    startup_timeout_s: float = Field(default=30.0, gt=0)
    # Installed from an .mcpb bundle: its unpacked folder (removed when it is uninstalled).
    bundle: str = ""

    @model_validator(mode="after")
    def _check(self) -> McpServerConfig:
        if self.transport == "stdio":
            if not self.command.strip():
                raise ValueError(f"MCP server {self.name!r}: a stdio server needs a command")
        else:
            parts = urlsplit(self.url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(
                    f"MCP server {self.name!r}: {self.transport} needs an http(s) URL, "
                    f"got {self.url!r}"
                )
        return self

    def policy_for(self, tool: str, read_only_hint: bool | None) -> Policy:
        """The approval policy of one of this server's tools."""
        if tool in self.tool_policies:
            return self.tool_policies[tool]
        if self.default_policy is not None:
            return self.default_policy
        return "allow" if read_only_hint else "ask"

    def tool_enabled(self, tool: str) -> bool:
        return tool not in self.disabled_tools

    def describe(self) -> str:
        """One line for lists: the command line (secret arguments hidden) or the URL
        (never header values)."""
        if self.transport == "stdio":
            hidden = set(self.secret_args)
            return " ".join([self.command, *("••••••" if i in hidden else a
                                             for i, a in enumerate(self.args))])
        return f"{self.transport} {self.url}"


def parse_mcp_json(text: str) -> list[McpServerConfig]:
    """Servers from Claude-Desktop-style JSON text; ``ConfigError`` with a clear line."""
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"MCP configuration is not valid JSON ({exc.msg} at line {exc.lineno})",
            code="mcp_config_json", params={"line": exc.lineno, "detail": exc.msg}
        ) from None
    if not isinstance(data, dict):
        raise ConfigError("MCP configuration must be a JSON object with an 'mcpServers' key",
                          code="mcp_config_shape")
    servers = data.get("mcpServers", data.get("servers"))
    if servers is None:
        if _looks_like_server(data):
            raise ConfigError(
                "MCP configuration holds a single server without a name: wrap it as "
                '{"mcpServers": {"name": {...}}}', code="mcp_unnamed_server"
            )
        servers = data  # the inner mapping pasted on its own
    if not isinstance(servers, dict):
        raise ConfigError("'mcpServers' must map server names to their settings",
                          code="mcp_servers_shape")
    configs: list[McpServerConfig] = []
    for name, entry in servers.items():
        if not isinstance(entry, dict):
            raise ConfigError(f"MCP server {name!r}: its settings must be a JSON object",
                              code="mcp_server_shape", params={"server": name})
        configs.append(_server(str(name), entry))
    if not configs:
        raise ConfigError("MCP configuration lists no servers", code="mcp_no_servers")
    return configs


def load_mcp_config(path: str | Path) -> list[McpServerConfig]:
    """Servers from a Claude-Desktop-style JSON file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read MCP configuration {path}: {exc.strerror or exc}",
                          code="mcp_config_unreadable",
                          params={"file": str(path), "detail": exc.strerror or str(exc)}) from None
    return parse_mcp_json(text)


def _looks_like_server(data: dict[str, Any]) -> bool:
    return any(key in data for key in ("command", "url", "serverUrl"))


def _str_map(name: str, key: str, value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"MCP server {name!r}: '{key}' must be an object of strings",
                          code="mcp_strings_needed", params={"server": name, "key": key})
    return {str(k): str(v) for k, v in value.items()}


def _server(name: str, entry: dict[str, Any]) -> McpServerConfig:
    url = entry.get("url") or entry.get("serverUrl") or ""
    kind = str(entry.get("type") or entry.get("transport") or "").strip().lower()
    if kind:
        transport = _TRANSPORT_ALIASES.get(kind.replace(" ", ""))
        if transport is None:
            raise ConfigError(f"MCP server {name!r}: unknown transport {kind!r}",
                              code="mcp_unknown_transport",
                              params={"server": name, "transport": kind})
    elif url:
        transport = "sse" if urlsplit(str(url)).path.rstrip("/").endswith("/sse") else "http"
    else:
        transport = "stdio"
    fields: dict[str, Any] = {
        "name": name,
        "transport": transport,
        "command": entry.get("command") or "",
        "args": entry.get("args") or [],
        "env": _str_map(name, "env", entry.get("env")),
        "cwd": entry.get("cwd"),
        "url": url,
        "headers": _str_map(name, "headers", entry.get("headers")),
        "enabled": not bool(entry.get("disabled", False)),
    }
    for key in (
        "disabled_tools",
        "tool_policies",
        "default_policy",
        "protocol",
        "call_timeout_s",
        "startup_timeout_s",
        "oauth_client_id",  # a sign-in app registered by hand (see McpServerConfig)
        "oauth_client_secret",
        "oauth_redirect_port",
    ):
        if key in entry:
            fields[key] = entry[key]
    try:
        return McpServerConfig.model_validate(fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        message = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
        prefix = f"MCP server {name!r}: " if not message.startswith("MCP server") else ""
        raise ConfigError(f"{prefix}{message}{f' ({where})' if where else ''}",
                          code="mcp_server_invalid",
                          params={"server": name,
                                  "detail": f"{message}{f' ({where})' if where else ''}"}) from None
