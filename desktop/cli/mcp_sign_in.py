"""Signing in to remote MCP servers from the terminal.

``assista ask`` and ``assista mcp list`` start servers in the background like the
window does; a server that needs a sign-in is then signed in on a TTY (the
authorization URL is printed and the command waits for the browser to come back
to the loopback redirect), and reported without one. ``assista mcp login NAME``
signs in explicitly, ``assista mcp logout NAME`` forgets the tokens.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from typing import TextIO

from desktop.app import AppContext
from desktop.chat.chat_tools import ChatTools
from desktop.cli.context import open_cli_context
from desktop.cli.failure import fail
from desktop.core.errors import AssistaError, ConfigError
from desktop.tools.mcp.config import McpServerConfig, load_mcp_config


def sign_in_needed_text(name: str) -> str:
    return f"server {name} needs sign-in: run the app or assista mcp login {name}"


#: How long ``assista mcp login`` waits for the browser to come back.
LOGIN_WAIT_S = 60.0


class TerminalBrowser:
    """Shows the authorization URL for the person at the terminal to open."""

    def __init__(self, err: TextIO, wait_s: float | None = None) -> None:
        self.err = err
        self.wait_s = wait_s

    async def __call__(self, url: str) -> None:
        limit = f"; gives up after {self.wait_s:g} s" if self.wait_s else ""
        self.err.write(f"Open this address in your browser to sign in:\n  {url}\n"
                       f"Waiting for the sign-in to finish (Ctrl+C cancels{limit})…\n")
        self.err.flush()


async def sign_in_where_needed(tools: ChatTools, err: TextIO,
                               is_tty: Callable[[], bool] | None = None) -> None:
    """Sign in (on a TTY) to every started server that asked for it."""
    manager = tools.mcp
    if manager is None or not (is_tty or sys.stdin.isatty)():
        return
    for connection in manager.connections.values():
        if connection.needs_sign_in:
            err.write(f"MCP server {connection.name!r} needs sign-in.\n")
            await connection.sign_in_now()


def _find(ctx: AppContext, args: argparse.Namespace) -> McpServerConfig:
    configs = list(ctx.mcp_configs())
    for path in args.mcp_config or []:
        configs += load_mcp_config(path)
    named = [c for c in configs if c.name == args.name]
    if not named:
        known = ", ".join(c.name for c in configs) or "none"
        raise ConfigError(f"no MCP server named {args.name!r} (configured: {known})")
    if named[-1].transport == "stdio":
        raise ConfigError(f"MCP server {args.name!r} is started as a command: it has no sign-in")
    return named[-1]


async def _login(ctx: AppContext, config: McpServerConfig, err: TextIO) -> str | None:
    from desktop.tools.mcp.manager import McpManager
    from desktop.tools.mcp.oauth import OAuthSetup

    manager = McpManager([config], proxy=ctx.proxy, oauth=OAuthSetup(
        ctx.secrets, TerminalBrowser(err, LOGIN_WAIT_S), wait_s=LOGIN_WAIT_S))
    connection = manager.connections[config.name]
    try:
        if await connection.sign_in_now():
            return None
        return connection.last_error or connection.state
    finally:
        await manager.stop_all()


def login_command(args: argparse.Namespace) -> int:
    try:
        ctx = open_cli_context(args)
    except AssistaError as exc:
        return fail(str(exc))
    try:
        config = _find(ctx, args)
        if args.mcp_command == "logout":
            from desktop.tools.mcp.oauth import KeyringTokenStorage

            KeyringTokenStorage(ctx.secrets, config.name).sign_out()
            print(f"Signed out of {config.name}.")
            return 0
        problem = asyncio.run(_login(ctx, config, sys.stderr))
    except KeyboardInterrupt:
        return fail("sign-in cancelled", 130)
    except AssistaError as exc:
        return fail(str(exc))
    finally:
        ctx.close()
    if problem is not None:
        return fail(f"could not sign in to {config.name}: {problem}")
    print(f"Signed in to {config.name}.")
    return 0
