"""A loopback HTTP proxy on asyncio that streams: CONNECT tunnels and forwarded
absolute-URI requests, each recorded.

Unlike :mod:`tests.support.proxy_server` (which reads each answer whole), answers
are passed on as they arrive, so event streams held open (an MCP server's SSE, a
streaming chat answer) work through it. It runs its own event loop in a thread, so
sync and async tests, and clients on any loop, can use it::

    with StreamingProxy() as proxy:
        ... a client configured with proxy.url ...
        assert "POST http://127.0.0.1:PORT/mcp" in proxy.seen

Every forwarded request is sent on with ``Connection: close`` and its answer is
given ``Connection: close``: one request per connection, so each one is recorded
and none is sent raw down a connection opened for another.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from urllib.parse import urlsplit

__all__ = ["StreamingProxy"]

_HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection",
                         "proxy-authorization"})
_MAX_HEAD = 64 * 1024


def _split_head(head: bytes) -> tuple[str, list[str]]:
    lines = head.decode("latin-1").split("\r\n")
    return lines[0], [line for line in lines[1:] if line]


def _end_to_end(lines: list[str]) -> str:
    kept = [line for line in lines if line.split(":", 1)[0].strip().lower() not in _HOP_BY_HOP]
    return "".join(f"{line}\r\n" for line in kept) + "Connection: close\r\n\r\n"


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    if writer.can_write_eof():
        with contextlib.suppress(OSError):
            writer.write_eof()


class StreamingProxy:
    """``url``: ``http://127.0.0.1:PORT``; ``seen``: ``"METHOD target"`` per request
    (``"CONNECT host:port"`` for a tunnel)."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, name="streaming-proxy", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> StreamingProxy:
        self._thread.start()
        self._started.wait()
        return self

    def __exit__(self, *exc_info: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._start())
        self._started.set()
        self._loop.run_forever()

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        upstream: asyncio.StreamWriter | None = None
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            request_line, headers = _split_head(head[:_MAX_HEAD])
            method, target, version = request_line.split(" ", 2)
            self.seen.append(f"{method} {target}")
            if method == "CONNECT":
                host, port = target.rsplit(":", 1)
                up_reader, upstream = await asyncio.open_connection(host, int(port))
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                await writer.drain()
                await asyncio.gather(_pipe(reader, upstream), _pipe(up_reader, writer))
                return
            url = urlsplit(target)
            up_reader, upstream = await asyncio.open_connection(url.hostname, url.port or 80)
            path = (url.path or "/") + (f"?{url.query}" if url.query else "")
            upstream.write(f"{method} {path} {version}\r\n{_end_to_end(headers)}".encode("latin-1"))
            body = asyncio.ensure_future(_pipe(reader, upstream))  # request body, if any
            try:
                status, answer_headers = _split_head(await up_reader.readuntil(b"\r\n\r\n"))
                writer.write(f"{status}\r\n{_end_to_end(answer_headers)}".encode("latin-1"))
                await _pipe(up_reader, writer)  # the target closes after its answer
            finally:
                body.cancel()
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass  # a client or target that went away: nothing to forward
        finally:
            self._tasks.discard(task)
            for stream in (upstream, writer):
                if stream is not None:
                    stream.close()
