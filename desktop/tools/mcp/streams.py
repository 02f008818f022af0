"""Small pieces around the SDK's transports: a stdio server started with its stderr
kept, a read stream that reports its end, and one-line error text."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from mcp import StdioServerParameters
from pydantic import ValidationError

from desktop.tools.mcp.config import McpServerConfig
from desktop.tools.mcp.shellenv import find_command
from desktop.tools.mcp.stderr import StderrLog
from desktop.tools.mcp.stdio_client import capped_stdio_client

#: The line the app writes into a server's stderr log before each start (not the server's).
STARTING_MARK = "--- starting"


class CommandNotFound(FileNotFoundError):
    """A stdio server's command does not exist: retrying cannot help."""


@contextlib.asynccontextmanager
async def stdio_streams(config: McpServerConfig, path: str,
                        stderr: StderrLog) -> AsyncIterator[Any]:
    """Start ``config``'s command found on ``path``; its stderr goes to ``stderr``."""
    command = find_command(config.command, path)
    if command is None:
        raise CommandNotFound(
            f"command not found: {config.command} (not on the login-shell PATH: {path})")
    env = {"PATH": path, **config.env}
    params = StdioServerParameters(command=command, args=config.args, env=env, cwd=config.cwd)
    read_fd, write_fd = os.pipe()
    errlog = os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")
    stderr.append(f"{STARTING_MARK} {config.describe()} ---")
    stderr.start_reader(read_fd)
    try:
        async with capped_stdio_client(params, errlog=errlog) as streams:
            errlog.close()  # the child holds its own copy now
            yield streams
    finally:
        errlog.close()


class WatchedRead:
    """A transport read stream that reports when it ends (the server went away)."""

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    def __getattr__(self, name: str) -> Any:  # e.g. last_context
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_end()
            raise

    def __aiter__(self) -> WatchedRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> WatchedRead:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def one_line(exc: BaseException) -> str:
    """The first real error of ``exc`` (exception groups unwrapped) on one line."""
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return one_line(exc.exceptions[0])
    if isinstance(exc, ValidationError):
        return not_mcp(exc)
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:500]


#: What the SDK's models of a server's replies stand for, in words.
_REPLIES = {"InitializeResult": "its reply to initialize",
            "ListToolsResult": "its list of tools", "CallToolResult": "a tool's answer"}


def not_mcp(exc: ValidationError) -> str:
    """A reply the SDK could not read, said in one line: what it was, what was wrong
    (the first three problems; never the values, which may be long or hostile)."""
    problems = [f"{'.'.join(str(p) for p in error['loc']) or 'the whole reply'}: "
                f"{error['msg'][:80]}" for error in exc.errors(include_url=False)[:3]]
    more = exc.error_count() - len(problems)
    what = _REPLIES.get(exc.title, f"a reply ({exc.title})")
    return (f"{what} is not valid MCP ({'; '.join(problems)}"
            f"{f'; and {more} more' if more > 0 else ''})")
