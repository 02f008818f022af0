"""An incremental newline-delimited JSON decoder (Ollama's streaming format).

Feed raw bytes in any chunking. Lines end with LF (a preceding CR is dropped);
blank lines are skipped. Splitting happens on bytes, which is safe for UTF-8
because a multi-byte character never contains the byte 0x0A, so a chunk that
splits a character simply leaves it in the pending tail. A line may hold at most
``max_size`` bytes (:class:`~desktop.providers.limits.ReplyTooLarge` past that).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, Protocol

from desktop.providers.limits import MAX_EVENT_SIZE, event_too_large

__all__ = ["NDJSONDecoder", "NDJSONError", "aiter_ndjson"]


class NDJSONError(ValueError):
    """A line was not valid JSON. ``line`` holds (a prefix of) the offending text."""

    def __init__(self, message: str, line: str) -> None:
        super().__init__(message)
        self.line = line


class NDJSONDecoder:
    """``feed(bytes) -> list[Any]``: the JSON values of every line completed so far."""

    __slots__ = ("_max_size", "_pending", "_pending_size")

    def __init__(self, max_size: int = MAX_EVENT_SIZE) -> None:
        self._pending: list[bytes] = []
        self._pending_size = 0
        self._max_size = max_size

    def feed(self, chunk: bytes) -> list[Any]:
        if not chunk:
            return []
        if b"\n" not in chunk:
            self._pending.append(chunk)
            self._pending_size += len(chunk)
            if self._pending_size > self._max_size:
                self._pending, self._pending_size = [], 0
                raise event_too_large(self._max_size)
            return []
        lines = chunk.split(b"\n")
        if self._pending:
            self._pending.append(lines[0])
            lines[0] = b"".join(self._pending)
        tail = lines.pop()
        self._pending = [tail] if tail else []
        self._pending_size = len(tail)
        return [_parse(line) for line in lines if line.strip()]

    def flush(self) -> list[Any]:
        """End of stream: parse a final line that had no trailing newline."""
        line = b"".join(self._pending)
        self._pending, self._pending_size = [], 0
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
