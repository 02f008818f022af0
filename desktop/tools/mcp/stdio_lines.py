"""The lines a stdio MCP server writes, read in linear time and at most
:data:`MAX_MESSAGE_BYTES` of each.

The SDK's reader joins each chunk it reads to the line so far (quadratic: a 10 MB
tool answer took 5 s, a 100 MB one over the 120 s timeout) and keeps all of it. Here a
line's chunks are kept in a list, and past the limit only its start (and its last
bytes, where a response's ``id`` may be) are kept. The oversized message is then
replaced: a tool's answer by its beginning with a note saying it was cut, any other
answer by an error naming the size.
"""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec

MB = 1024 * 1024
MAX_MESSAGE_BYTES = 16 * MB
TAIL_BYTES = 4096
_ID = r'(-?\d+|"(?:[^"\\]|\\.)*")'
ID_FIRST = re.compile(rb'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*' + _ID.encode())
_ID_LAST = re.compile(rb'"id"\s*:\s*' + _ID.encode() + rb"\s*\}\s*$")
_TEXT = re.compile(r'"text"\s*:\s*"')
_DECODER = json.JSONDecoder()


class Oversized(msgspec.Struct, weakref=True):
    """A line longer than the limit: its first ``limit`` bytes, its last bytes, its size."""

    head: bytes
    tail: bytes
    size: int


class LineSplitter(msgspec.Struct, weakref=True):
    """Chunks in, whole lines out (``bytes``, or :class:`Oversized`)."""

    limit: int = MAX_MESSAGE_BYTES
    _parts: list[bytes] = msgspec.field(default_factory=list)
    _size: int = 0
    _tail: bytes = b""

    def feed(self, chunk: bytes) -> list[bytes | Oversized]:
        lines: list[bytes | Oversized] = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            self._add(chunk[start:] if end < 0 else chunk[start:end])
            if end < 0:
                return lines
            lines.append(self._finish())
            start = end + 1

    @property
    def pending(self) -> int:
        """The size of the line not finished yet."""
        return self._size

    def cut(self) -> bytes | Oversized:
        """The line so far, as if it ended here."""
        return self._finish()

    def _add(self, piece: bytes) -> None:
        room = self.limit - self._size
        if room > 0:
            self._parts.append(piece[:room])
        if len(piece) > room:
            self._tail = (self._tail + piece[max(room, 0):])[-TAIL_BYTES:]
        self._size += len(piece)

    def _finish(self) -> bytes | Oversized:
        head, size, tail = b"".join(self._parts), self._size, self._tail
        self._parts, self._size, self._tail = [], 0, b""
        return head if size <= self.limit else Oversized(head, tail, size)


def cut_note(size: int | None, limit: int, *, cut: bool = True) -> str:
    """What is said of an oversized answer (``size`` None: not read to its end): before
    the beginning of a tool's answer, or (``cut`` False) as an error."""
    was = f"was {size / MB:.0f} MB, more than" if size is not None else "is larger than"
    text = f"The MCP server's answer {was} the {limit / MB:.0f} MB Assista reads"
    return f"[{text}; only its beginning follows.]" if cut else f"{text}."


def replacement(line: Oversized, limit: int, methods: dict[Any, str]) -> str | None:
    """The JSON-RPC message that stands for an oversized one (None: not an answer to a
    request of ours, so it is left out)."""
    found = ID_FIRST.search(line.head) or _ID_LAST.search(line.tail)
    if found is None:
        return None
    ident = json.loads(found.group(1))
    return stand_in(ident, methods.pop(ident, None), line.head, line.size, limit)


def stand_in(ident: Any, method: str | None, head: bytes, size: int | None,
             limit: int) -> str:
    """The answer to request ``ident`` that stands for an oversized one (``size`` bytes,
    None: unknown) beginning with ``head``: a tool's answer is its first text after a
    note saying it was cut, any other answer an error saying why."""
    if method == "tools/call":
        note = cut_note(size, limit)
        text = first_text(head.decode("utf-8", "ignore"))
        result = {"content": [{"type": "text", "text": f"{note}\n\n{text}" if text else note}],
                  "isError": False}
        return json.dumps({"jsonrpc": "2.0", "id": ident, "result": result})
    return json.dumps({"jsonrpc": "2.0", "id": ident, "error": {
        "code": -32603, "message": cut_note(size, limit, cut=False)}})


def first_text(head: str) -> str:
    """The first ``"text"`` string in the start of a JSON document, as far as it goes."""
    found = _TEXT.search(head)
    if found is None:
        return ""
    body = head[found.end():]
    try:
        return str(_DECODER.raw_decode(f'"{body}')[0])  # (it ended within the head)
    except ValueError:
        pass
    for cut in range(7):  # a cut escape (a lone backslash, half a \uXXXX): a little less
        try:
            return str(json.loads(f'"{body[:len(body) - cut]}"'))
        except ValueError:
            continue
    return ""
