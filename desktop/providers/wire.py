"""The two streaming wire formats (SSE, NDJSON) as the streaming template uses them.

A :class:`Wire` says how to decode a response body into items for a parser, which
``Accept`` header asks for it, how an unterminated tail is treated, and whether an
``application/json`` reply is a whole (non-streamed) answer. :func:`drain` finishes
a body iterator so nothing is left for the garbage collector.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

import httpx
import msgspec

from desktop.providers.ndjson import NDJSONDecoder, NDJSONError
from desktop.providers.sse import ServerSentEvent, SSEDecoder

__all__ = ["DRAIN_TIMEOUT_S", "NDJSON", "SSE", "Decoder", "Wire", "drain", "is_json"]

#: After the closing event: read the rest of the body briefly so the connection is reused.
DRAIN_TIMEOUT_S = 0.5


class Decoder(Protocol):
    def feed(self, chunk: bytes) -> list[Any]: ...


class Wire(msgspec.Struct, frozen=True):
    """One streaming format: ``decoder()`` makes a fresh decoder per response;
    ``tail(decoder)`` gives the items of an unterminated end worth parsing."""

    expected: str  # for "expected <this> but got a web page"
    accept: str
    decoder: Callable[[], Decoder]
    tail: Callable[[Any], list[Any]]
    whole_json: bool  # an application/json reply is a whole answer, not a stream


def is_json(text: str) -> bool:
    """True when ``text`` parses as JSON (a stream line that was not cut mid-way)."""
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _sse_tail(decoder: SSEDecoder) -> list[ServerSentEvent]:
    """A final event without its blank line counts (lenient servers end that way)
    unless it was cut mid-way: only whole JSON, ``[DONE]`` or an error event."""
    return [
        sse
        for sse in decoder.flush(dispatch_incomplete=True)
        if sse.event == "error" or sse.data.startswith("[DONE]") or is_json(sse.data)
    ]


def _ndjson_tail(decoder: NDJSONDecoder) -> list[Any]:
    """A final line without its newline counts, unless it was cut mid-way."""
    try:
        return decoder.flush()
    except NDJSONError:
        return []


SSE = Wire("an event stream", "text/event-stream", SSEDecoder, _sse_tail, whole_json=True)
NDJSON = Wire("a stream", "application/x-ndjson", NDJSONDecoder, _ndjson_tail, whole_json=False)


async def drain(chunks: AsyncIterator[bytes], timeout: float) -> None:
    """Finish an httpx byte iterator instead of leaving it suspended.

    httpx/httpcore iterate through a chain of async generators; one abandoned
    mid-way is finalized by the garbage collector, which fails noisily ("async
    generator ignored GeneratorExit", "no running event loop") under event loops
    without asyncgen hooks, such as qasync's. Reading to the end (within
    ``timeout``; normally just the final zero-length chunk after the closing
    event, which also lets the connection be reused) or cancelling the pending
    read makes every generator in the chain finish while the loop is running.
    """
    try:
        async with asyncio.timeout(timeout):
            async for _ in chunks:
                pass
    except (TimeoutError, httpx.HTTPError):
        pass
