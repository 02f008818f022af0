"""An incremental Server-Sent Events decoder that follows the WHATWG spec.

https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation

Feed raw bytes in any chunking (a chunk may split a line, a CRLF pair or a
multi-byte UTF-8 character); each :meth:`SSEDecoder.feed` returns the events
completed by that chunk. The decoder works on whole strings with ``split`` and
``find`` rather than per character, because it sits on the token hot path.

Spec rules implemented:

* the stream is UTF-8; invalid bytes decode to U+FFFD; one leading BOM is dropped;
* lines end with CRLF, LF or CR (a CRLF split across two chunks counts once);
* a blank line dispatches the pending event; a line starting with ``:`` is a comment;
* ``field:value`` with one optional space after the colon, or a bare ``field``
  (empty value); unknown fields are ignored;
* ``data`` lines are joined with LF; an event with no data is not dispatched;
* ``event`` sets the type for the next event only (default ``message``);
* ``id`` (ignored if it contains NUL) persists across events; ``retry`` is
  accepted only when it is all ASCII digits;
* at end of stream an unfinished event is discarded (``flush`` can be asked to
  dispatch it instead, for lenient clients).

Beyond the spec: one event (its unfinished line plus its data lines) may hold at most
``max_size`` characters; past that :class:`~desktop.providers.limits.ReplyTooLarge`
is raised, so a line that never ends cannot fill the memory.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, Protocol

import msgspec

from desktop.providers.limits import MAX_EVENT_SIZE, event_too_large

__all__ = ["SSEDecoder", "ServerSentEvent", "aiter_sse"]


class ServerSentEvent(msgspec.Struct):
    """One dispatched event. ``id`` is the stream's last event id at dispatch time."""

    event: str = "message"
    data: str = ""
    id: str = ""
    retry: int | None = None

    def json(self) -> Any:
        return json.loads(self.data)


class SSEDecoder:
    """Incremental WHATWG event-stream parser: ``feed(bytes) -> list[ServerSentEvent]``."""

    __slots__ = (
        "_data",
        "_data_size",
        "_decoder",
        "_event",
        "_last_id",
        "_max_size",
        "_partial",
        "_partial_size",
        "_skip_lf",
        "_started",
        "retry",
    )

    def __init__(self, max_size: int = MAX_EVENT_SIZE) -> None:
        self._max_size = max_size
        self._partial_size = 0  # characters of the unfinished line
        self._data_size = 0  # characters of the unfinished event's data lines
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial: list[str] = []  # pieces of the current, unterminated line
        self._skip_lf = False  # the previous chunk ended with CR: drop a leading LF
        self._started = False  # the BOM check has been done
        self._data: list[str] = []
        self._event = ""
        self._last_id = ""
        self.retry: int | None = None  # reconnection time in ms, from ``retry:``

    @property
    def last_event_id(self) -> str:
        return self._last_id

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """Consume ``chunk`` and return the events it completed, in order."""
        return self._feed_text(self._decoder.decode(chunk))

    def flush(self, *, dispatch_incomplete: bool = False) -> list[ServerSentEvent]:
        """End of stream. Per spec an event not ended by a blank line is discarded.

        With ``dispatch_incomplete=True`` a trailing unterminated line is treated as a
        complete line and a pending event is dispatched, as lenient clients do.
        """
        events = self._feed_text(self._decoder.decode(b"", True))
        if dispatch_incomplete:
            if self._partial:
                line = "".join(self._partial)
                self._partial = []
                self._process_line(line)
            event = self._dispatch()
            if event is not None:
                events.append(event)
        self._partial = []
        self._data = []
        self._partial_size = self._data_size = 0
        self._event = ""
        return events

    def _feed_text(self, text: str) -> list[ServerSentEvent]:
        if not text:
            return []
        if not self._started:
            self._started = True
            if text[0] == "\ufeff":
                text = text[1:]
                if not text:
                    return []
        if self._skip_lf:
            self._skip_lf = False
            if text[0] == "\n":
                text = text[1:]
                if not text:
                    return []
        if "\r" in text:
            # CR is a line terminator on its own; if it ends the chunk, the LF of a
            # CRLF pair may come first thing in the next chunk.
            self._skip_lf = text[-1] == "\r"
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        if "\n" not in text:
            self._partial.append(text)
            self._partial_size += len(text)
            self._check_size()
            return []
        lines = text.split("\n")
        if self._partial:
            self._partial.append(lines[0])
            lines[0] = "".join(self._partial)
        tail = lines.pop()
        self._partial = [tail] if tail else []
        self._partial_size = len(tail)
        events = self._process_lines(lines)
        self._check_size()
        return events

    def _check_size(self) -> None:
        if self._partial_size + self._data_size > self._max_size:
            self._partial, self._data = [], []
            self._partial_size = self._data_size = 0
            raise event_too_large(self._max_size)

    def _process_lines(self, lines: list[str]) -> list[ServerSentEvent]:
        events: list[ServerSentEvent] = []
        data = self._data
        size = self._data_size
        for line in lines:
            if not line:
                event = self._dispatch()
                if event is not None:
                    events.append(event)
                data = self._data
                size = 0
            elif line.startswith("data:"):  # the hot path
                data.append(line[6:] if line.startswith(" ", 5) else line[5:])
                size += len(line)
            elif line[0] != ":":
                self._process_line(line)
        self._data_size = size
        return events

    def _process_line(self, line: str) -> None:
        if not line or line[0] == ":":
            return
        colon = line.find(":")
        if colon < 0:
            name, value = line, ""
        else:
            name = line[:colon]
            value = line[colon + 2 :] if line.startswith(" ", colon + 1) else line[colon + 1 :]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self.retry = int(value)

    def _dispatch(self) -> ServerSentEvent | None:
        data = self._data
        if not data:
            self._event = ""
            return None
        self._data = []
        text = data[0] if len(data) == 1 else "\n".join(data)
        event = ServerSentEvent(self._event or "message", text, self._last_id, self.retry)
        self._event = ""
        return event


class _ByteStream(Protocol):
    def aiter_bytes(self) -> AsyncIterator[bytes]: ...


async def aiter_sse(
    response: _ByteStream, *, dispatch_incomplete: bool = False
) -> AsyncGenerator[ServerSentEvent, None]:
    """Events of an ``httpx`` streaming response (anything with ``aiter_bytes()``)."""
    decoder = SSEDecoder()
    async for chunk in response.aiter_bytes():
        for event in decoder.feed(chunk):
            yield event
    for event in decoder.flush(dispatch_incomplete=dispatch_incomplete):
        yield event
