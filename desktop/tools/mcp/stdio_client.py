"""The stdio transport: the SDK's ``stdio_client`` with the server's stdout read by
:class:`~desktop.tools.mcp.stdio_lines.LineSplitter` (linear, each message capped).

The process is started, stopped and drained by the SDK's own helpers (a new process
group, stdin closed then the tree killed, every wait bounded): only the reading of
stdout is ours. (Those helpers are the SDK's private functions, of the version pinned.)
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any, TextIO

import anyio
import anyio.lowlevel
from mcp import StdioServerParameters
from mcp.client.stdio import (
    _aclose_all,
    _create_platform_compatible_process,
    _drain_stdout,
    _get_executable_command,
    _parse_line,
    _stop_server_process,
    get_default_environment,
)
from mcp.shared.message import SessionMessage

from desktop.tools.mcp.stdio_lines import (
    MAX_MESSAGE_BYTES,
    LineSplitter,
    Oversized,
    replacement,
)

log = logging.getLogger(__name__)

_WRITER_FLUSH_TIMEOUT = 0.5
_MAX_PENDING = 10_000  # requests remembered for a cut answer (ids answered are dropped)


class _Pipes:
    """The tasks between the process's pipes and the session's streams."""

    def __init__(self, process: Any, command: str, limit: int) -> None:
        self.process = process
        self.command = command
        self.limit = limit
        self.read_writer, self.read_stream = \
            anyio.create_memory_object_stream[SessionMessage | Exception](0)
        self.write_stream, self.write_reader = \
            anyio.create_memory_object_stream[SessionMessage](0)
        self.methods: dict[Any, str] = {}  # request id -> method: what a cut answer was
        self.shutting_down = False
        self.writer_done = anyio.Event()

    def parsed(self, line: bytes | Oversized) -> SessionMessage | Exception | None:
        if isinstance(line, bytes):
            message = _parse_line(line.decode("utf-8", "replace"))
            if isinstance(message, SessionMessage):
                self.methods.pop(getattr(message.message, "id", None), None)
            return message
        text = replacement(line, self.limit, self.methods)
        log.warning("MCP server %s sent a %d-byte message; %s", self.command, line.size,
                    "it was cut" if text else "it was left out")
        return _parse_line(text) if text is not None else None

    async def stdout_reader(self) -> None:
        stdout = self.process.stdout
        splitter = LineSplitter(self.limit)
        try:
            async with self.read_writer:
                try:
                    async for chunk in stdout:
                        for line in splitter.feed(chunk):
                            if (message := self.parsed(line)) is None:
                                continue
                            try:
                                await self.read_writer.send(message)
                            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                                return  # the session is gone; only the drain remains
                finally:
                    await _drain_stdout(self.process)
        except anyio.ClosedResourceError:
            pass  # our own shutdown closed stdout under the read
        except (anyio.BrokenResourceError, ConnectionError):
            if not self.shutting_down:
                log.exception("Reading from the MCP server's stdout failed mid-session")

    async def stdin_writer(self) -> None:
        try:
            async with self.write_reader:
                async for session_message in self.write_reader:
                    message = session_message.message
                    method, ident = getattr(message, "method", None), getattr(message, "id", None)
                    if method is not None and ident is not None \
                            and len(self.methods) < _MAX_PENDING:
                        self.methods[ident] = method
                    text = message.model_dump_json(by_alias=True, exclude_unset=True)
                    await self.process.stdin.send((text + "\n").encode())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await self.read_writer.aclose()
        finally:
            self.writer_done.set()

    async def shutdown(self) -> None:
        """Stop traffic, let the writer flush, stop the server, release the streams."""
        self.read_stream.close()
        self.write_stream.close()
        with anyio.move_on_after(_WRITER_FLUSH_TIMEOUT):
            await self.writer_done.wait()
        await _stop_server_process(self.process)
        await _aclose_all(self.read_stream, self.write_stream, self.read_writer,
                          self.write_reader)
        await anyio.lowlevel.checkpoint()


@contextlib.asynccontextmanager
async def capped_stdio_client(server: StdioServerParameters, errlog: TextIO,
                              limit: int = MAX_MESSAGE_BYTES) -> AsyncIterator[Any]:
    """``(read, write)`` streams of the server ``server`` starts, as the SDK's."""
    command = await _get_executable_command(server.command)
    process = await _create_platform_compatible_process(
        command=command, args=server.args, env=get_default_environment() | (server.env or {}),
        errlog=errlog, cwd=server.cwd)
    pipes = _Pipes(process, server.command, limit)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(pipes.stdout_reader)
        tasks.start_soon(pipes.stdin_writer)
        try:
            yield pipes.read_stream, pipes.write_stream
        finally:
            pipes.shutting_down = True
            with anyio.CancelScope(shield=True):
                await pipes.shutdown()
            tasks.cancel_scope.cancel()
    await anyio.lowlevel.cancel_shielded_checkpoint()
