"""Sockets read straight from the stream thread's loop: a network backend for httpcore.

httpx's async client reads through anyio: every read, even of bytes that have already
arrived, opens a timeout scope, yields to the loop once and turns the socket's reading
on and off in the selector. On the stream thread (:mod:`desktop.providers.stream_thread`)
the body is read in a few large reads, most of which find their bytes waiting; this
backend gives those at once (one ``recv``), and waits on the loop, under the read's
timeout and cancellable like any await, only when nothing has arrived. Writes are the
same. TLS runs over the socket through the ``ssl`` module's memory BIOs (so TLS
inside TLS, an HTTPS proxy's tunnel, works the same way), with the context the HTTP
factory gives (:mod:`desktop.providers.tls`).

It is httpcore's documented extension point (``AsyncNetworkBackend``); connection
pooling, HTTP/1.1 framing, proxies and every error's mapping stay httpx's and
httpcore's. :func:`use_backend` puts it under a client the factory made.
"""

from __future__ import annotations

import asyncio
import math
import select
import socket
import ssl
from asyncio.staggered import staggered_race
from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from typing import Any

import httpcore
from httpcore import (
    AsyncNetworkBackend,
    AsyncNetworkStream,
    ConnectError,
    ConnectTimeout,
    ReadError,
    ReadTimeout,
    WriteError,
    WriteTimeout,
)

from desktop.providers.stream_pace import StreamPace

__all__ = ["LoopBackend", "use_backend"]

#: How long one address is tried before the next one is tried beside it (RFC 8305's
#: "Happy Eyeballs", as anyio does: a host whose IPv6 route drops packets still
#: connects over IPv4 at once, not after the connect timeout).
NEXT_ADDRESS_S = 0.25
#: The most a TLS read asks the socket for (a TLS record is at most 16 KiB).
TLS_READ = 65536

SocketOption = (tuple[int, int, int] | tuple[int, int, bytes | bytearray]
                | tuple[int, int, None, int])  # (httpcore's SOCKET_OPTION)


class _SocketStream(AsyncNetworkStream):
    """A connected non-blocking socket, read and written on the running loop."""

    __slots__ = ("_pace", "_pause", "_sleep", "_sock", "_woke")

    def __init__(self, sock: socket.socket, pause: float = 0.0,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 pace: StreamPace | None = None) -> None:
        self._sock = sock
        self._pause, self._sleep, self._pace = pause, sleep, pace
        self._woke = -math.inf  # when a read last had to wait, or sleep, for bytes

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        sock = self._sock
        try:
            return sock.recv(max_bytes)  # what has arrived: no wait, no loop step
        except BlockingIOError:
            pass
        except OSError as exc:
            raise ReadError(exc) from exc
        loop = asyncio.get_running_loop()
        pause = self._pause
        if pause and self._pace is not None:
            pause = self._pace.interval  # (its stream's consumer's: see stream_pace)
        if pause:  # caught up with the server: let a period's bytes arrive first
            left = self._woke + pause - loop.time()
            if left > 0:
                await self._sleep(left)
                self._woke = loop.time()
                try:
                    return sock.recv(max_bytes)
                except BlockingIOError:
                    pass
                except OSError as exc:
                    raise ReadError(exc) from exc
        try:
            async with asyncio.timeout(timeout):
                data = await loop.sock_recv(sock, max_bytes)
        except TimeoutError as exc:
            raise ReadTimeout(exc) from exc
        except OSError as exc:
            raise ReadError(exc) from exc
        self._woke = loop.time()
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        sock = self._sock
        self._woke = -math.inf  # a request: its answer's first bytes are awaited at once
        try:
            sent = sock.send(buffer)
        except BlockingIOError:
            sent = 0
        except OSError as exc:
            raise WriteError(exc) from exc
        if sent == len(buffer):
            return
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                await loop.sock_sendall(sock, memoryview(buffer)[sent:])
        except TimeoutError as exc:
            raise WriteTimeout(exc) from exc
        except OSError as exc:
            raise WriteError(exc) from exc

    async def aclose(self) -> None:
        self._sock.close()

    async def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                        timeout: float | None = None) -> AsyncNetworkStream:
        return await _TLSStream.open(self, ssl_context, server_hostname, timeout)

    def get_extra_info(self, info: str) -> Any:
        return _socket_info(self._sock, info)


class _TLSStream(AsyncNetworkStream):
    """TLS over another stream of this module (a socket, or a proxy's TLS tunnel)."""

    __slots__ = ("_in", "_inner", "_out", "_tls")

    def __init__(self, inner: _SocketStream | _TLSStream, tls: ssl.SSLObject,
                 incoming: ssl.MemoryBIO, outgoing: ssl.MemoryBIO) -> None:
        self._inner, self._tls, self._in, self._out = inner, tls, incoming, outgoing

    @classmethod
    async def open(cls, inner: _SocketStream | _TLSStream, context: ssl.SSLContext,
                   server_hostname: str | None, timeout: float | None) -> _TLSStream:
        incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        tls = context.wrap_bio(incoming, outgoing, server_hostname=server_hostname)
        stream = cls(inner, tls, incoming, outgoing)
        try:
            async with asyncio.timeout(timeout):
                await stream._run(tls.do_handshake, timeout)
        except TimeoutError as exc:
            await inner.aclose()
            raise ConnectTimeout(exc) from exc
        except (ssl.SSLError, ReadError, WriteError) as exc:
            await inner.aclose()
            raise ConnectError(exc) from exc
        except BaseException:
            await inner.aclose()
            raise
        return stream

    async def _run(self, step: Any, timeout: float | None, *args: Any) -> Any:
        """``step(*args)`` on the TLS object, feeding it what the socket brings until
        it has what it needs; what it has to send is sent."""
        while True:
            try:
                result = step(*args)
            except ssl.SSLWantReadError:
                await self._flush(timeout)
                data = await self._inner.read(TLS_READ, timeout)
                if data:
                    self._in.write(data)
                else:
                    self._in.write_eof()
                continue
            if self._out.pending:
                await self._flush(timeout)
            return result

    async def _flush(self, timeout: float | None) -> None:
        if self._out.pending:
            await self._inner.write(self._out.read(), timeout)

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        try:
            return self._tls.read(max_bytes)  # decrypted bytes already here
        except ssl.SSLWantReadError:
            pass
        except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
            return b""
        except ssl.SSLError as exc:
            raise ReadError(exc) from exc
        try:
            data: bytes = await self._run(self._tls.read, timeout, max_bytes)
        except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
            return b""  # closed, with or without TLS's own goodbye (as httpcore allows)
        except ssl.SSLError as exc:
            raise ReadError(exc) from exc
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        view = memoryview(buffer)
        try:
            while view:
                written: int = await self._run(self._tls.write, timeout, view)
                view = view[written:]
        except ssl.SSLError as exc:
            raise WriteError(exc) from exc

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                        timeout: float | None = None) -> AsyncNetworkStream:
        return await _TLSStream.open(self, ssl_context, server_hostname, timeout)

    def get_extra_info(self, info: str) -> Any:
        if info == "ssl_object":
            return self._tls
        return self._inner.get_extra_info(info)


def _socket_info(sock: socket.socket, info: str) -> Any:
    if info == "socket":
        return sock
    if info == "client_addr":
        return sock.getsockname()
    if info == "server_addr":
        return sock.getpeername()
    if info == "is_readable":  # an idle pooled connection the server closed
        return _readable(sock)
    return None


def _interleaved(infos: list[Any]) -> list[Any]:
    """``getaddrinfo``'s addresses, the families taking turns (RFC 8305), each family's
    in its order, the first address's family first."""
    families: dict[int, list[Any]] = {}
    for info in infos:
        families.setdefault(info[0], []).append(info)
    turns = list(families.values())
    return [group[i] for i in range(max(map(len, turns), default=0))
            for group in turns if i < len(group)]


def _readable(sock: socket.socket) -> bool:
    """Whether an idle connection has something to read: the server closed it (or sent
    what it should not have), so the pool must not use it again."""
    if sock.fileno() < 0:
        return True
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))


class LoopBackend(AsyncNetworkBackend):
    """httpcore's network backend on the running asyncio loop (see the module).

    ``pause``: a read that finds nothing within ``pause`` seconds of the last read
    that had to wait sleeps out the rest of that time before it waits; ``pace``: the
    pause is then that of the consumer's pace (:mod:`~desktop.providers.stream_pace`)."""

    def __init__(self, pause: float = 0.0,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 pace: StreamPace | None = None) -> None:
        self.pause, self._sleep, self.pace = pause, sleep, pace

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable[SocketOption] | None = None
                          ) -> AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        opened: list[socket.socket] = []

        async def attempt(family: int, kind: int, proto: int, address: Any) -> socket.socket:
            sock = socket.socket(family, kind, proto)
            opened.append(sock)
            sock.setblocking(False)
            if family in (socket.AF_INET, socket.AF_INET6):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for option in socket_options or ():
                sock.setsockopt(*option)
            if local_address is not None:
                sock.bind((local_address, 0))
            await loop.sock_connect(sock, address)
            return sock

        connected: socket.socket | None = None
        try:
            async with asyncio.timeout(timeout):
                infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
                tries = [partial(attempt, family, kind, proto, address)
                         for family, kind, proto, _name, address in _interleaved(infos)]
                connected, _which, failures = await staggered_race(tries, NEXT_ADDRESS_S)
        except TimeoutError as exc:
            raise ConnectTimeout(exc) from exc
        except OSError as exc:  # the name did not resolve
            raise ConnectError(exc) from exc
        finally:
            for sock in opened:  # (the attempts that lost, failed or were cut short)
                if sock is not connected:
                    sock.close()
        if connected is not None:
            return _SocketStream(connected, self.pause, self._sleep, self.pace)
        failure = next((f for f in reversed(failures) if isinstance(f, OSError)), None) \
            or OSError(f"{host} has no address")
        error = ConnectError(failure)
        error.__context__ = failure  # (kept where httpcore's pool re-raises "from None")
        raise error from failure

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Iterable[SocketOption] | None = None
                                  ) -> AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.setblocking(False)
            for option in socket_options or ():
                sock.setsockopt(*option)
            async with asyncio.timeout(timeout):
                await loop.sock_connect(sock, path)
        except TimeoutError as exc:
            sock.close()
            raise ConnectTimeout(exc) from exc
        except OSError as exc:
            sock.close()
            raise ConnectError(exc) from exc
        except BaseException:
            sock.close()
            raise
        return _SocketStream(sock, self.pause, self._sleep, self.pace)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def use_backend(transport: Any, backend: AsyncNetworkBackend) -> bool:
    """Put ``backend`` under ``transport`` (an httpx transport, or one wrapping another
    as ``inner``, like the wire tap); False when it holds no httpcore pool (a transport
    a test injected)."""
    while transport is not None:
        pool = getattr(transport, "_pool", None)
        if isinstance(pool, httpcore.AsyncConnectionPool):  # its proxies' pools too
            pool._network_backend = backend
            return True
        transport = getattr(transport, "inner", None)
    return False
