"""MCP servers as tool sources, through the official ``mcp`` SDK (2.x).

- :mod:`.config`: :class:`McpServerConfig` and Claude-Desktop ``mcpServers`` import
- :mod:`.shellenv`: the login-shell PATH stdio servers are started with
- :mod:`.connection`: one supervised connection (restart with backoff, stderr log)
- :mod:`.convert`: tool names, schemas and results
- :mod:`.manager`: all servers together, and their tools as :class:`Tool` objects
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.lazy import lazy_names
from desktop.tools.mcp.config import (
    McpServerConfig,
    load_mcp_config,
    parse_mcp_json,
)
from desktop.tools.mcp.shellenv import LoginPath, merge_paths, query_login_shell_path
from desktop.tools.mcp.stderr import StderrLog

if TYPE_CHECKING:
    from desktop.tools.mcp.bundle_install import BundleService
    from desktop.tools.mcp.catalog import OFFICIAL_REGISTRY, REGISTRY_ENV, RegistryCatalog
    from desktop.tools.mcp.connection import McpConnection
    from desktop.tools.mcp.convert import exposed_name
    from desktop.tools.mcp.live_lists import ResourceChanged
    from desktop.tools.mcp.manager import McpManager, mcp_tool
    from desktop.tools.mcp.oauth import OAuthSetup

# The SDK takes about half a second to import: load it only when it is used.
_LAZY = {
    **dict.fromkeys(["OFFICIAL_REGISTRY", "REGISTRY_ENV", "RegistryCatalog"],
                    "desktop.tools.mcp.catalog"),
    "OAuthSetup": "desktop.tools.mcp.oauth",
    "BundleService": "desktop.tools.mcp.bundle_install",
    "ResourceChanged": "desktop.tools.mcp.live_lists",
    "McpConnection": "desktop.tools.mcp.connection",
    "exposed_name": "desktop.tools.mcp.convert",
    "McpManager": "desktop.tools.mcp.manager",
    "mcp_tool": "desktop.tools.mcp.manager",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


__all__ = [
    "OFFICIAL_REGISTRY",
    "REGISTRY_ENV",
    "BundleService",
    "LoginPath",
    "McpConnection",
    "McpManager",
    "McpServerConfig",
    "OAuthSetup",
    "RegistryCatalog",
    "ResourceChanged",
    "StderrLog",
    "exposed_name",
    "load_mcp_config",
    "mcp_tool",
    "merge_paths",
    "parse_mcp_json",
    "query_login_shell_path",
]
