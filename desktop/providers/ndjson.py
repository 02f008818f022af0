"""An incremental newline-delimited JSON decoder (Ollama's streaming format).

Feed raw bytes in any chunking. Lines end with LF (a preceding CR is dropped);
blank lines are skipped. Splitting happens on bytes, which is safe for UTF-8
because a multi-byte character never contains the byte 0x0A, so a chunk that
splits a character simply leaves it in the pending tail.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, Protocol

__all__ = ["NDJSONDecoder", "NDJSONError", "aiter_ndjson"]


class NDJSONError(ValueError):
    """A line was not valid JSON. ``line`` holds (a prefix of) the offending text."""

    def __init__(self, message: str, line: str) -> None:
        super().__init__(message)
        self.line = line


class NDJSONDecoder:
    """``feed(bytes) -> list[Any]``: the JSON values of every line completed so far."""

    __slots__ = ("_pending",)

    def __init__(self) -> None:
        self._pending: list[bytes] = []

    def feed(self, chunk: bytes) -> list[Any]:
        if not chunk:
            return []
        if b"\n" not in chunk:
            self._pending.append(chunk)
            return []
        lines = chunk.split(b"\n")
        if self._pending:
            self._pending.append(lines[0])
            lines[0] = b"".join(self._pending)
        tail = lines.pop()
        self._pending = [tail] if tail else []
        return [_parse(line) for line in lines if line.strip()]

    def flush(self) -> list[Any]:
        """End of stream: parse a final line that had no trailing newline."""
        line = b"".join(self._pending)
        self._pending = []
        return [_parse(line)] if line.strip() else []


def _parse(line: bytes) -> Any:
    try:
        return json.loads(line)
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
        text = line[:200].decode("utf-8", "replace").strip()
        raise NDJSONError(f"invalid JSON line: {exc}", text) from None


class _ByteStream(Protocol):
    def aiter_bytes(self) -> AsyncIterator[bytes]: ...


async def aiter_ndjson(response: _ByteStream) -> AsyncGenerator[Any, None]:
    """JSON values of an ``httpx`` streaming response (anything with ``aiter_bytes()``)."""
    decoder = NDJSONDecoder()
    async for chunk in response.aiter_bytes():
        for value in decoder.feed(chunk):
            yield value
    for value in decoder.flush():
        yield value
