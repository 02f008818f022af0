"""Each message an MCP server sends over HTTP read at most :data:`ANSWER_LIMIT` bytes,
as over stdio (:mod:`.stdio_lines`).

Without this a JSON answer to a POST was read whole, however large (a server could
exhaust the app's memory), and an SSE event over the SDK's 1 MiB limit broke the
request (Streamable HTTP) or the whole connection (legacy SSE). The HTTP clients of
MCP connections get :class:`MessageLimit` as a response hook; it puts a capped stream
in front of each response body:

- a JSON body is read up to the limit; past it reading stops, and the answer to the
  POST's request stands in: a tool's answer is cut to its beginning with a note
  saying so, any other answer is a JSON-RPC error (-32603) naming the limit;
- an SSE stream is read event by event, each up to the limit (what is past it is
  skipped, keeping the event's last bytes, where a response's ``id`` may be); an
  oversized event is replaced the same way, or left out when it answers nothing (a
  notification). Past :data:`ENDLESS_BYTES` an event is taken to never end: reading
  stops, and the request it answers gets the same stand-in (or, when which one is not
  known, the stream fails: :class:`EventNeverEnds`).

Replies are asked for uncompressed, so the limit counts what is kept in memory.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx2

from desktop.tools.mcp.stdio_lines import (
    ID_FIRST,
    MAX_MESSAGE_BYTES,
    MB,
    TAIL_BYTES,
    LineSplitter,
    Oversized,
    replacement,
    stand_in,
)

log = logging.getLogger(__name__)

#: The most bytes of one JSON-RPC message (a JSON body or one SSE event) kept in memory.
ANSWER_LIMIT = MAX_MESSAGE_BYTES
#: The SDK's own limit of a legacy SSE event (its ``sse_client`` sets it, not the app):
#: what stands in for an oversized event must fit under it.
SDK_SSE_EVENT_LIMIT = 1024 * 1024
#: Past this many bytes an SSE event is taken to never end: reading stops.
ENDLESS_BYTES = 4 * ANSWER_LIMIT
_MAX_PENDING = 10_000  # requests remembered (legacy SSE answers on another stream)


class AnswerTooLarge(httpx2.StreamError):
    """An MCP server's message is over the limit and nothing can stand in for it."""

    def __init__(self, limit: int, what: str = "a message") -> None:
        super().__init__(f"the MCP server sent {what} larger than the {limit / MB:g} MB "
                         "Assista reads")
        self.limit = limit


class EventNeverEnds(httpx2.SSEError):
    """An SSE event went on past :data:`ENDLESS_BYTES`, answering no known request: the
    stream is given up."""

    def __init__(self, endless: int) -> None:
        super().__init__(f"the MCP server sent an event of more than {endless / MB:.0f} MB")


def _requests(request: httpx2.Request) -> dict[Any, str]:
    """id -> method of the JSON-RPC requests a POST carries."""
    if request.method != "POST":
        return {}
    try:
        body = json.loads(request.content)
    except (ValueError, httpx2.RequestNotRead):
        return {}
    found: dict[Any, str] = {}
    for item in body if isinstance(body, list) else [body]:
        if isinstance(item, dict) and "id" in item and isinstance(item.get("method"), str):
            found[item["id"]] = item["method"]
    return found


def fitted(message: Oversized, limit: int, methods: dict[Any, str],
           room: int) -> bytes | None:
    """What stands in for ``message`` (see :func:`replacement`), made to fit in ``room``
    bytes by keeping less of its beginning."""
    head = message.head
    while True:
        text = replacement(Oversized(head, message.tail, message.size), limit, dict(methods))
        if text is None or len(text.encode()) <= room or len(head) < 512:
            break  # (what is left of the head still names the request)
        head = head[:len(head) // 2]
    replacement(Oversized(head, message.tail, message.size), limit, methods)  # (forget it)
    return text.encode() if text is not None else None


class MessageLimit:
    """The response hook of an MCP connection's HTTP client (one per connection: it
    remembers the requests sent, whose answers may come on another stream)."""

    def __init__(self, limit: int = ANSWER_LIMIT, event_room: int | None = None,
                 endless: int = ENDLESS_BYTES) -> None:
        self.limit = limit
        self.event_room = event_room or limit  # the most an SSE event may be once cut
        self.endless = max(endless, limit)
        self.methods: dict[Any, str] = {}

    def remember(self, request: httpx2.Request) -> dict[Any, str]:
        found = _requests(request)
        self.methods.update(found)
        while len(self.methods) > _MAX_PENDING:
            self.methods.pop(next(iter(self.methods)))
        return found

    async def __call__(self, response: httpx2.Response) -> None:
        sent = self.remember(response.request)
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind == "text/event-stream":
            response.stream = _CappedEvents(response.stream, self, sent)
        else:
            response.stream = _CappedBody(response.stream, self, sent)


class _CappedBody(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, limit: MessageLimit, sent: dict[Any, str]) -> None:
        self.inner = inner
        self.limit = limit
        self.sent = sent

    async def __aiter__(self) -> AsyncIterator[bytes]:
        parts: list[bytes] = []
        size = 0
        async for chunk in self.inner:
            size += len(chunk)
            if size > self.limit.limit:
                await self.aclose()  # read no further
                yield self._stand_in(b"".join(parts) + chunk)
                return
            parts.append(chunk)
        yield b"".join(parts)

    def _stand_in(self, head: bytes) -> bytes:
        limit = self.limit.limit
        log.warning("An MCP server's answer over HTTP is over %d bytes; it was cut", limit)
        if len(self.sent) != 1:  # a batch, or not an answer to a request of ours
            raise AnswerTooLarge(limit, "an answer")
        ident, method = next(iter(self.sent.items()))  # what a POST's answer answers
        self.limit.methods.pop(ident, None)
        return stand_in(ident, method, head[:limit], None, limit).encode()

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()


class _CappedEvents(httpx2.AsyncByteStream):
    """An SSE stream passed on event by event, each event at most the limit."""

    def __init__(self, inner: Any, limit: MessageLimit,
                 sent: dict[Any, str] | None = None) -> None:
        self.inner = inner
        self.limit = limit
        self.sent = sent or {}  # the request of the POST this stream answers, if any
        self.lines = LineSplitter(limit.limit + 64)  # a data line: "data: " and the message
        self._reset()

    def _reset(self) -> None:
        self.kept: list[bytes] = []  # the event's lines while it is within the limit
        self.fields: list[bytes] = []  # its other lines (event, id) once it is not
        self.head: list[bytes] = []
        self.head_size = 0
        self.tail = b""
        self.size = 0
        self.over = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            out = []
            for line in self.lines.feed(chunk):
                if isinstance(line, bytes) and line.rstrip(b"\r") == b"":
                    out.append(self._finish())
                else:
                    self._add(line)
            if self.size + self.lines.pending > self.limit.endless:
                await self.aclose()  # read no further
                yield b"".join(out) + self._give_up()
                return
            if joined := b"".join(out):
                yield joined

    def _give_up(self) -> bytes:
        """The stand-in for an event that does not end: for the request its start
        names, else the one this POST's stream answers; else the stream fails."""
        self._add(self.lines.cut())
        head = b"".join(self.head)
        fields = [f for f in self.fields if f.startswith((b"event:", b"id:"))]
        self._reset()
        log.warning("An MCP server's event went on past %d bytes; reading stopped",
                    self.limit.endless)
        found = ID_FIRST.search(head)
        if found is not None:
            ident = json.loads(found.group(1))
        elif len(self.sent) == 1:
            ident = next(iter(self.sent))
        else:
            raise EventNeverEnds(self.limit.endless)
        method = self.limit.methods.pop(ident, None) or self.sent.get(ident)
        text = stand_in(ident, method, head[:self.limit.event_room // 2], None,
                        self.limit.limit)
        return b"\n".join([*fields, b"data: " + text.encode()]) + b"\n\n"

    def _add(self, line: bytes | Oversized) -> None:
        if isinstance(line, Oversized):
            self.size += line.size + 1
            self._go_over()
            self._data(line.head, line.tail)
            return
        line = line.rstrip(b"\r")
        self.size += len(line) + 1
        if not self.over:
            self.kept.append(line)
            if self.size > self.limit.limit:
                self._go_over()
        elif line.startswith(b"data:"):
            self._data(line, line[-TAIL_BYTES:])
        else:
            self.fields.append(line)

    def _go_over(self) -> None:
        if self.over:
            return
        self.over = True
        kept, self.kept = self.kept, []
        for line in kept:
            if line.startswith(b"data:"):
                self._data(line, line[-TAIL_BYTES:])
            else:
                self.fields.append(line)

    def _data(self, line: bytes, tail: bytes) -> None:
        value = line[5:]
        value = value[1:] if value.startswith(b" ") else value
        room = self.limit.limit - self.head_size
        if room > 0:
            piece = (b"\n" if self.head else b"") + value[:room]
            self.head.append(piece)
            self.head_size += len(piece)
        self.tail = (self.tail + b"\n" + tail)[-TAIL_BYTES:]

    def _finish(self) -> bytes:
        if not self.over:
            event = b"\n".join(self.kept) + b"\n\n" if self.kept else b""
            self._reset()
            return event
        message = Oversized(b"".join(self.head), self.tail, self.size)
        fields = [f for f in self.fields if f.startswith((b"event:", b"id:"))]
        self._reset()
        log.warning("An MCP server sent a %d-byte event; it was cut", message.size)
        room = self.limit.event_room - sum(len(f) + 1 for f in fields) - 16
        text = fitted(message, self.limit.limit, self.limit.methods, room)
        if text is None:
            return b""  # it answered nothing of ours: left out
        return b"\n".join([*fields, b"data: " + text]) + b"\n\n"

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()
