"""``assista ask --prompt SERVER:NAME [--prompt-arg K=V]... --resource SERVER:URI``:
the user's turn built from an MCP prompt and resources.

The prompt's messages come first, then the typed text; resources are attached as
files are (text as a named block, images as images).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from desktop.core.errors import ConfigError

if TYPE_CHECKING:  # the SDK is slow to import: only runs that use MCP load it
    from desktop.chat.chat_tools import ChatTools
    from desktop.core.messages import Part
    from desktop.tools.mcp.manager import McpManager


def split_ref(ref: str, what: str) -> tuple[str, str]:
    """``SERVER:REST`` -> (server, rest); the rest may hold colons (URIs do)."""
    server, sep, rest = ref.partition(":")
    if not sep or not server.strip() or not rest.strip():
        raise ConfigError(f"--{what} takes SERVER:{what.upper() if what != 'resource' else 'URI'}"
                          f", got {ref!r}")
    return server.strip(), rest.strip()


def prompt_arguments(pairs: Sequence[str]) -> dict[str, str]:
    arguments: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--prompt-arg takes KEY=VALUE, got {pair!r}")
        arguments[key.strip()] = value
    return arguments


def wants_mcp_inputs(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "mcp_prompt", None) or getattr(args, "resource", None))


async def mcp_turn(tools: ChatTools, args: argparse.Namespace,
                   text: str) -> tuple[str, list[Part]]:
    """The user's text and attachments with ``--prompt``/``--resource`` applied."""
    if not wants_mcp_inputs(args):
        return text, []
    manager = tools.mcp
    if manager is None:
        raise ConfigError("--prompt and --resource need MCP servers (--mcp-config FILE)")
    parts: list[Part] = []
    if args.mcp_prompt:
        server, name = split_ref(args.mcp_prompt, "prompt")
        _require_running(manager, server)
        arguments = prompt_arguments(args.prompt_arg or [])
        _check_arguments(manager, server, name, arguments)
        turn = await manager.get_prompt(server, name, arguments)
        text = turn.with_question(text)
        parts += turn.parts
    for ref in args.resource or []:
        server, uri = split_ref(ref, "resource")
        _require_running(manager, server)
        parts += await manager.read_resource(server, uri)
    return text, parts


def _require_running(manager: McpManager, server: str) -> None:
    connection = manager.connections.get(server)
    if connection is None:
        known = ", ".join(manager.connections) or "none"
        raise ConfigError(f"no MCP server named {server!r} (configured: {known})")
    if connection.state != "running":
        raise ConfigError(f"MCP server {server!r} is not available: "
                          f"{connection.last_error or connection.state}")


def _check_arguments(manager: McpManager, server: str, name: str,
                     arguments: dict[str, str]) -> None:
    found = [p for s, p in manager.prompts() if s == server and p.name == name]
    if not found:
        names = ", ".join(p.name for s, p in manager.prompts() if s == server) or "none"
        raise ConfigError(f"MCP server {server!r} has no prompt named {name!r} "
                          f"(its prompts: {names})")
    declared = found[0].arguments or []
    missing = [a.name for a in declared if a.required and a.name not in arguments]
    if missing:
        raise ConfigError(f"prompt {name!r} needs " + ", ".join(
            f"--prompt-arg {n}=VALUE" for n in missing))
    unknown = sorted(set(arguments) - {a.name for a in declared})
    if unknown:
        raise ConfigError(f"prompt {name!r} takes no argument named {', '.join(unknown)} "
                          f"(it takes: {', '.join(a.name for a in declared) or 'none'})")
