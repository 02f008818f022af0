"""A recorded response stream read back as the events its server sent: the network
pieces (any size: a piece may hold half an event, or three) are joined and split
into Server-Sent Events (``event:``/``data:``/``id:`` lines up to a blank line) or,
for the NDJSON streams of Ollama, into lines. Each event keeps the time its last
byte arrived. No I/O, no Qt: the inspector panel and the CLI share it."""

from __future__ import annotations

import bisect
import codecs
import json
from collections.abc import Sequence
from typing import Any

import msgspec


class StreamEvent(msgspec.Struct, frozen=True):
    """One event of a recorded response stream: an SSE event or an NDJSON line."""

    at_s: float  # when its last byte arrived, since the request started
    name: str  # the SSE ``event:`` name ("message" when none); "" for an NDJSON line
    data: str  # the ``data:`` lines joined with newlines, or the NDJSON line
    raw: str  # the event as sent (its lines, comments included)

    def pretty_data(self) -> str:
        """The data pretty-printed when it is JSON, else as sent."""
        return pretty_json(self.data)

    def summary(self, limit: int = 400) -> str:
        """The data on one line (compact JSON), for a row."""
        try:
            value: Any = json.loads(self.data)
        except ValueError:
            text = self.data
        else:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        return text.replace("\r", "").replace("\n", " ⏎ ")[:limit]


def pretty_json(text: str) -> str:
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return json.dumps(value, indent=2, ensure_ascii=False)


def is_ndjson(content_type: str, text: str) -> bool:
    """Whether a body is newline-delimited JSON (from its content type; else: whether
    it has no SSE field lines and starts like JSON)."""
    kind = content_type.lower()
    if "event-stream" in kind:
        return False
    if "ndjson" in kind or "jsonl" in kind or "json-seq" in kind:
        return True
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(("data:", "event:", "id:", "retry:", ":")):
            return False
        return stripped.startswith(("{", "["))
    return False


def is_single_json(content_type: str, text: str) -> bool:
    """Whether a body is one JSON document (``application/json``, or a body that
    parses whole as JSON), not a stream of them."""
    kind = content_type.lower()
    if "event-stream" in kind or "ndjson" in kind or "jsonl" in kind:
        return False
    if "json" in kind:
        return True
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def parse_stream(pieces: Sequence[tuple[float, bytes]],
                 content_type: str = "") -> list[StreamEvent]:
    """The events in the pieces ``(arrival time, bytes)`` of a response body, in order.
    A last event without its blank line (a stream cut short) is still one."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    texts: list[str] = []
    ends: list[int] = []  # the character offset where each piece ends
    times: list[float] = []
    offset = 0
    for at, data in pieces:
        texts.append(decoder.decode(data))
        offset += len(texts[-1])
        ends.append(offset)
        times.append(at)
    texts.append(decoder.decode(b"", final=True))
    whole = "".join(texts)
    if is_single_json(content_type, whole):  # an answer not streamed, an error body
        return [StreamEvent(times[-1], "", whole.strip(), whole)] if whole.strip() else []
    ndjson = is_ndjson(content_type, whole)
    events: list[StreamEvent] = []
    for end, block in (_lines(whole) if ndjson else _blocks(whole)):
        # (the piece its last character came in)
        at = times[min(bisect.bisect_left(ends, end), len(times) - 1)] if times else 0.0
        if ndjson:
            events.append(StreamEvent(at, "", block.strip(), block))
        else:
            events.append(_sse_event(at, block))
    return events


def _lines(text: str) -> list[tuple[int, str]]:
    """The non-blank lines and where each ends."""
    out: list[tuple[int, str]] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        if bare.strip():
            out.append((pos + len(bare), bare))
        pos += len(line)
    return out


def _blocks(text: str) -> list[tuple[int, str]]:
    """Runs of non-blank lines (an SSE event ends at a blank line; CRLF or LF) and
    where each ends."""
    out: list[tuple[int, str]] = []
    lines: list[str] = []
    pos = end = 0
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        if bare:
            lines.append(bare)
            end = pos + len(bare)
        elif lines:
            out.append((end, "\n".join(lines)))
            lines = []
        pos += len(line)
    if lines:
        out.append((end, "\n".join(lines)))
    return out


def _sse_event(at: float, block: str) -> StreamEvent:
    name, data, seen = "", [], False
    for line in block.split("\n"):
        if line.startswith(":"):
            continue  # a comment (a keep-alive)
        field, _colon, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            name, seen = value, True
        elif field == "data":
            data.append(value)
            seen = True
        elif field in ("id", "retry"):
            seen = True
    if not seen:  # only comments: shown as such, so that nothing the server sent hides
        return StreamEvent(at, ":", block, block)
    return StreamEvent(at, name or "message", "\n".join(data), block)
