"""What goes over the wire, byte for byte: an httpx transport wrapper.

:class:`WireTap` wraps the transports of a provider's HTTP client. A request whose
httpx extensions carry a :class:`WireObserver` under :data:`WIRE_TAP` (the request
inspector's capture, see :mod:`desktop.providers.recording`) is told to it: the
request as sent (again for each retry), how an attempt failed, the response's
status and headers, and each chunk of its body as it arrives (gzip and deflate
bodies as the server's text, not compressed bytes). Every other request passes
straight through; nothing here knows about chats or the inspector.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Callable
from typing import Protocol

import httpx

__all__ = ["WIRE_TAP", "WireObserver", "WireTap"]

#: The httpx request extension naming who is told what the request sends and receives.
WIRE_TAP = "assista.wire_tap"


class WireObserver(Protocol):
    def sending(self, request: httpx.Request) -> None:
        """An attempt goes out (a second one is a retry)."""

    def failed(self, reason: str) -> None:
        """The attempt got no response (``reason``: the exception's name)."""

    def response(self, response: httpx.Response) -> None:
        """The attempt's status and headers arrived."""

    def chunk(self, data: bytes) -> None:
        """A piece of the body arrived (the per-chunk path: must be cheap)."""


class WireTap(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        observer: WireObserver | None = request.extensions.get(WIRE_TAP)
        if observer is None:
            return await self.inner.handle_async_request(request)
        observer.sending(request)
        try:
            response = await self.inner.handle_async_request(request)
        except Exception as exc:
            observer.failed(type(exc).__name__)
            raise
        observer.response(response)
        stream = response.stream
        assert isinstance(stream, httpx.AsyncByteStream)
        return httpx.Response(
            response.status_code, headers=response.headers, extensions=response.extensions,
            stream=_TappedStream(stream, observer.chunk,
                                 response.headers.get("content-encoding", "")))

    async def aclose(self) -> None:
        await self.inner.aclose()


class _TappedStream(httpx.AsyncByteStream):
    """The response body, each chunk told as it is read. An iterator, not a
    generator: nothing for the garbage collector to finalize when a stream is
    drained or stopped."""

    def __init__(self, inner: httpx.AsyncByteStream, note: Callable[[bytes], None],
                 encoding: str) -> None:
        self._inner = inner
        self._chunks: AsyncIterator[bytes] | None = None
        self._note = note
        coding = encoding.strip().lower()
        self._decompress = zlib.decompressobj(16 + zlib.MAX_WBITS) if coding == "gzip" else (
            zlib.decompressobj() if coding == "deflate" else None)

    def __aiter__(self) -> _TappedStream:
        self._chunks = aiter(self._inner)
        return self

    async def __anext__(self) -> bytes:
        assert self._chunks is not None
        chunk = await self._chunks.__anext__()
        decompress = self._decompress
        if decompress is None:
            self._note(chunk)
        else:
            try:
                self._note(decompress.decompress(chunk))
            except zlib.error:  # not what it said it was: recorded as it came
                self._decompress = None
                self._note(chunk)
        return chunk

    async def aclose(self) -> None:
        await self._inner.aclose()
