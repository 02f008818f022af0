"""``assista mcp list``: what every configured MCP server offers.

One line per tool, prompt and resource, ``SERVER<TAB>tool|prompt|resource<TAB>NAME-or-URI``,
in the server's order; ``--json`` prints one JSON document with the details (and the
resource templates). Servers come from Settings and from ``--mcp-config`` files, the
same rule as ``assista ask``. A server that cannot start is a warning line on
stderr; the exit status is 1 when any could not.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any, TextIO

from desktop.app import AppContext
from desktop.chat.chat_tools import ChatTools
from desktop.cli.context import open_cli_context
from desktop.cli.failure import fail
from desktop.cli.mcp_sign_in import TerminalBrowser, sign_in_needed_text, sign_in_where_needed
from desktop.core.errors import AssistaError, ConfigError
from desktop.core.terminal_text import visible
from desktop.tools.mcp.config import McpServerConfig, load_mcp_config
from desktop.tools.mcp.connection import McpConnection
from desktop.tools.mcp.server_requests import (
    ElicitationAnswer,
    ElicitationRequest,
    SamplingAnswer,
    SamplingDenied,
    SamplingRequest,
)


async def decline_elicitation(request: ElicitationRequest) -> ElicitationAnswer:
    return ElicitationAnswer.decline()


async def deny_sampling(request: SamplingRequest) -> SamplingAnswer:
    raise SamplingDenied("nobody is there to approve it (assista mcp list)")


def mcp_files(paths: list[str] | None) -> list[McpServerConfig]:
    configs: list[McpServerConfig] = []
    for path in paths or []:
        configs += load_mcp_config(path)
    return configs


def plain_lines(connection: McpConnection) -> list[str]:
    name = connection.name
    lists = connection.lists
    lines = [f"{name}\ttool\t{t.name}" for t in lists.tools
             if connection.config.tool_enabled(t.name)]
    lines += [f"{name}\tprompt\t{p.name}" for p in lists.prompts]
    lines += [f"{name}\tresource\t{r.uri}" for r in lists.resources]
    return lines


def server_document(connection: McpConnection) -> dict[str, Any]:
    lists = connection.lists
    return {
        "name": connection.name,
        "state": connection.state,
        "error": connection.last_error if connection.state != "running" else None,
        "needs_sign_in": connection.needs_sign_in,
        "tools": [{"name": t.name, "description": t.description or ""} for t in lists.tools
                  if connection.config.tool_enabled(t.name)],
        "prompts": [{"name": p.name, "description": p.description or "",
                     "arguments": [{"name": a.name, "description": a.description or "",
                                    "required": bool(a.required)}
                                   for a in p.arguments or []]} for p in lists.prompts],
        "resources": [{"uri": str(r.uri), "name": r.name, "mime_type": r.mime_type}
                      for r in lists.resources],
        "resource_templates": [{"uri_template": t.uri_template, "name": t.name,
                                "mime_type": t.mime_type} for t in lists.templates],
    }


async def _list(ctx: AppContext, args: argparse.Namespace, out: TextIO, err: TextIO) -> list[str]:
    tools = ChatTools(ctx)
    extra = mcp_files(args.mcp_config)
    if not extra and not ctx.mcp_configs():
        raise ConfigError("no MCP servers are configured (add one in Settings → MCP servers, "
                          "or pass --mcp-config FILE)")
    tools.browser = TerminalBrowser(err)
    # The same capabilities as `assista ask` announces (servers offer some tools only to
    # clients that can answer their questions); nobody answers here, so they decline.
    tools.elicitor, tools.sampler = decline_elicitation, deny_sampling
    try:
        await tools.start_mcp(extra)
        await sign_in_where_needed(tools, err)
        manager = tools.mcp
        connections = list(manager.connections.values()) if manager is not None else []
        failed = [c for c in connections if c.config.enabled and c.state != "running"]
        for connection in failed:
            reason = (sign_in_needed_text(connection.name) if connection.needs_sign_in
                      else f"MCP server {connection.name!r} is not available: "
                           f"{connection.last_error or connection.state}")
            err.write(f"assista: warning: {visible(reason)}\n")
        running = [c for c in connections if c.state == "running"]
        if args.json:
            document = {"servers": [server_document(c) for c in connections
                                    if c.config.enabled]}
            out.write(json.dumps(document, ensure_ascii=False, indent=2) + "\n")
        else:
            for connection in running:
                for line in plain_lines(connection):
                    out.write(visible(line, lines=False) + "\n")  # names a server chose
        return [c.name for c in failed]
    finally:
        await tools.stop_mcp()


def mcp_command(args: argparse.Namespace) -> int:
    if args.mcp_command in ("install", "uninstall"):
        from desktop.cli.mcp_bundle_cmd import bundle_command

        return bundle_command(args)
    if args.mcp_command in ("login", "logout"):
        from desktop.cli.mcp_sign_in import login_command

        return login_command(args)
    try:
        ctx = open_cli_context(args, writes=False)
    except AssistaError as exc:
        return fail(str(exc))
    try:
        failed = asyncio.run(_list(ctx, args, sys.stdout, sys.stderr))
    except KeyboardInterrupt:
        return fail("interrupted", 130)
    except AssistaError as exc:
        return fail(str(exc))
    finally:
        ctx.close()
    sys.stdout.flush()
    if failed:
        return fail(f"{len(failed)} MCP server(s) could not be listed: {', '.join(failed)}")
    return 0
