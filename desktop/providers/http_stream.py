"""Helpers every streaming adapter shares for the end of an HTTP response body."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx

#: After the closing event: read the rest of the body briefly so the connection is reused.
DRAIN_TIMEOUT_S = 0.5


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


def is_json(text: str) -> bool:
    """True when ``text`` parses as JSON (a stream line that was not cut mid-way)."""
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
