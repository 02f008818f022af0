"""How much one reply from a server may make the app hold in memory.

A broken or hostile server can send an event line that never ends, data lines
without the blank line that completes an event, or a JSON reply of any size (and
compressed replies inflate about a thousandfold). Every read from a provider is
capped here and fails with :class:`ReplyTooLarge`, whose message says what was too
large, instead of growing until the machine swaps.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

#: One SSE event (its pending line and data lines) or one NDJSON line, in characters or
#: bytes. A whole answer of a Responses API ``response.completed`` event fits easily.
MAX_EVENT_SIZE = 32 * 1024 * 1024
#: A whole (non-stream) JSON reply: a model list, an answer sent without streaming.
MAX_JSON_REPLY = 64 * 1024 * 1024

__all__ = ["MAX_EVENT_SIZE", "MAX_JSON_REPLY", "ReplyTooLarge", "mib", "read_limited"]


def mib(size: int) -> str:
    return f"{size / (1024 * 1024):g} MB"


class ReplyTooLarge(ValueError):
    """A server's reply went over a limit; the message is for the user."""


def event_too_large(limit: int = MAX_EVENT_SIZE) -> ReplyTooLarge:
    return ReplyTooLarge(
        f"the server sent a stream event of more than {mib(limit)} without ending it; "
        "stopped reading (the server or a proxy in between is broken)"
    )


class _ByteStream(Protocol):
    def aiter_bytes(self) -> AsyncIterator[bytes]: ...


async def read_limited(response: _ByteStream, limit: int = MAX_JSON_REPLY,
                       what: str = "reply") -> bytes:
    """The (decompressed) body, or ReplyTooLarge once it passes ``limit`` bytes."""
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > limit:
            raise ReplyTooLarge(f"the server's {what} is larger than {mib(limit)}; "
                                "stopped reading it")
    return bytes(body)
