"""A server that takes the request and never answers is not asked again and again:
one full timeout, then a clear error (at the default 120 s and four retries the user
waited ~10 minutes)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from desktop.core.events import ErrorEvent
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest
from desktop.providers.openai_chat import OpenAIChatProvider
from desktop.providers.retry import RetryPolicy


@pytest.fixture
def silent() -> Iterator[tuple[str, list[socket.socket]]]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            accepted.append(conn)  # read nothing, answer nothing

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1", accepted
    stop.set()
    listener.close()
    for conn in accepted:
        conn.close()


async def test_a_silent_server_is_given_one_timeout(
        silent: tuple[str, list[socket.socket]]) -> None:
    base, accepted = silent
    waits: list[float] = []

    async def record(delay: float) -> None:
        waits.append(delay)

    provider = OpenAIChatProvider(base, "k", timeout=1.0, retry=RetryPolicy(sleep=record))
    started = time.monotonic()
    events = [e async for e in provider.stream(ChatRequest("m", [Message.user("hi")]))]
    await provider.aclose()
    assert time.monotonic() - started < 5  # one timeout, not five
    assert isinstance(events[-1], ErrorEvent) and events[-1].code == "timeout"
    assert "no response" in events[-1].message
    assert waits == [] and len(accepted) == 1
