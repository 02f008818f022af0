"""A provider that owns its client reads its stream on the ``assista-stream`` thread:
retries wait there, the retry callback still runs on the caller's loop, a stop closes
the stream there (the inspector records it stopped), and text deltas that arrived
together reach the caller as one."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.events import (
    EndEvent,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallStarted,
)
from desktop.core.exchange import ExchangeRecording
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest
from desktop.providers.openai_chat import OpenAIChatProvider
from desktop.providers.recording import recorded
from desktop.providers.retry import RetryPolicy
from desktop.providers.stream_thread import joined
from desktop.storage.inspector_writer import InspectorWriter
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream

REQUEST = ChatRequest(model="gpt-test", messages=[Message.user("hi")])


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


async def test_read_and_retried_on_the_stream_thread_told_on_the_loop(
        server: FakeOpenAIServer) -> None:
    server.enqueue_error(503, "overloaded")
    server.enqueue_text("Hello from the thread")
    waited_on: list[str] = []
    told_on: list[str] = []

    async def sleep(_delay: float) -> None:
        waited_on.append(threading.current_thread().name)

    provider = OpenAIChatProvider(
        server.base_url, "sk-test", retry=RetryPolicy(sleep=sleep, random=lambda: 0.0),
        on_retry=lambda *_a: told_on.append(threading.current_thread().name))
    events = [event async for event in provider.stream(REQUEST)]
    await provider.aclose()
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == \
        "Hello from the thread"
    assert isinstance(events[-1], EndEvent)
    assert waited_on == ["assista-stream"]
    assert told_on == [threading.current_thread().name]


async def test_a_stop_closes_the_stream_on_its_thread(server: FakeOpenAIServer,
                                                      tmp_path: Path) -> None:
    held = ScriptedResponse(chunks=text_stream("one two three four", 4), hold_after=2)
    server.enqueue(held)
    writer = InspectorWriter(tmp_path, lambda: (14, 200))
    provider = recorded(OpenAIChatProvider(server.base_url, "sk-test"),
                        ExchangeRecording(writer, "openai", "prov_x"))
    first = asyncio.get_running_loop().create_future()

    async def consume() -> None:
        async for event in provider.stream(REQUEST):
            if isinstance(event, TextDelta) and not first.done():
                first.set_result(event.text)

    task = asyncio.ensure_future(consume())
    assert await first
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    held.release()
    await provider.aclose()
    writer.flush()
    [record] = writer.store._records("SELECT * FROM exchanges", ())
    writer.close()
    assert record.error == "stopped"  # finished on the thread before the stop returned


def test_text_deltas_that_arrived_together_are_joined() -> None:
    batch: list[StreamEvent] = [
        TextDelta("Hel"), TextDelta("lo"), ReasoningDelta("hm"), ReasoningDelta("m"),
        ToolCallStarted(0, "call_1", "search"), TextDelta(" there"), EndEvent("stop")]
    assert joined(batch) == [
        TextDelta("Hello"), ReasoningDelta("hmm"), ToolCallStarted(0, "call_1", "search"),
        TextDelta(" there"), EndEvent("stop")]
