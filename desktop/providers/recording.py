"""Capturing one model request for the request inspector, on the streaming path.

:class:`ExchangeCapture` is made by the streaming template for each request when the
provider was given an :class:`~desktop.core.exchange.ExchangeRecording`. On the
per-chunk path it only appends ``(time, bytes)`` to a list and notes token times;
every :data:`FLUSH_CHUNKS` chunks or :data:`FLUSH_S` seconds the list goes to the
writer, which stores (and redacts) it on its own thread.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar
from functools import partial
from typing import Any

import httpx

from desktop.core.events import ErrorEvent, StreamEvent, UsageEvent
from desktop.core.exchange import (
    CaptureBatch,
    ExchangeHead,
    ExchangeRecording,
    ExchangeTail,
    RetryRecord,
)
from desktop.core.messages import new_id
from desktop.core.provider import ChatRequest
from desktop.providers.retry import RetryPolicy, send_with_retry

__all__ = ["CAPTURING", "FLUSH_CHUNKS", "FLUSH_S", "ExchangeCapture", "chat_request_dict",
           "recorded_chunks", "send_recorded"]

FLUSH_CHUNKS = 256
FLUSH_S = 1.0
#: Events that are the model writing (their times are first/last token).
CONTENT_EVENTS = frozenset({"text_delta", "reasoning_delta", "tool_call_started",
                            "tool_call_complete"})


#: The capture of the request being opened or read (set around those awaits only,
#: never across a ``yield``: the stream's consumer must not see it).
CAPTURING: ContextVar[ExchangeCapture | None] = ContextVar("capturing", default=None)


async def send_recorded(client: httpx.AsyncClient, request: httpx.Request,
                        policy: RetryPolicy,
                        on_retry: Callable[[int, float, str], None] | None
                        ) -> httpx.Response:
    """:func:`send_with_retry`, the request, retries and response headers recorded
    when a capture is under way."""
    capture = CAPTURING.get()
    if capture is None:
        return await send_with_retry(client, request, policy, on_retry=on_retry)
    capture.request(request)
    response = await send_with_retry(client, request, policy,
                                     on_retry=capture.on_retry(on_retry))
    capture.response(response)
    return response


def recorded_chunks(chunks: AsyncIterator[bytes],
                    capture: ExchangeCapture | None) -> AsyncIterator[bytes]:
    """``chunks``, each recorded as it arrives when there is a capture."""
    return chunks if capture is None else _RecordedChunks(chunks, capture.chunk)


def chat_request_dict(request: ChatRequest) -> dict[str, Any]:
    """The provider-neutral request, as JSON-ready data (for Replay)."""
    return {
        "model": request.model,
        "system": request.system,
        "messages": [m.model_dump(mode="json") for m in request.messages],
        "tools": [dataclasses.asdict(t) for t in request.tools],
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
        "reasoning": request.reasoning,
        "reasoning_budget": request.reasoning_budget,
        "reasoning_effort": request.reasoning_effort,
        "extra": request.extra,
    }


class ExchangeCapture:
    """One request's record while it runs; :meth:`finish` hands over the rest."""

    __slots__ = ("_chunks", "_deltas", "_first_seq", "_flush_at", "_head", "_recording",
                 "_secrets", "_started", "_text", "id", "tail")

    def __init__(self, recording: ExchangeRecording, provider: str,
                 request: ChatRequest, secrets: tuple[str | None, ...]) -> None:
        origin = request.origin
        self.id = new_id("exch_")
        self._recording: ExchangeRecording | None = recording
        self._secrets = tuple(s for s in secrets if s)
        self._started = time.monotonic()
        self._flush_at = self._started + FLUSH_S
        self._head: ExchangeHead | None = ExchangeHead(
            id=self.id, started_at=time.time(), provider=provider,
            provider_id=recording.provider_id, kind=recording.kind, model=request.model,
            session_id=origin.session_id, message_id=origin.message_id,
            chat_request=partial(chat_request_dict, request))  # made on the writer thread
        self._chunks: list[tuple[float, bytes]] = []
        self._first_seq = 0
        self._text: list[str] = []
        self._deltas = 0
        self.tail = ExchangeTail()

    def _now(self) -> float:
        return time.monotonic() - self._started

    # -- the request phase

    def request(self, request: httpx.Request) -> None:
        """The request as it goes out (the last one sent, when retried)."""
        head = self._head
        if head is None:
            return
        head.method = request.method
        head.url = str(request.url)
        head.headers = [(k.decode("latin-1"), v.decode("latin-1"))
                        for k, v in request.headers.raw]
        head.body = request.content if isinstance(request.stream, httpx.ByteStream) else b""

    def on_retry(self, then: Callable[[int, float, str], None] | None
                 ) -> Callable[[int, float, str], None]:
        """``then`` (the provider's retry callback) with the retry recorded first."""
        def record(attempt: int, delay: float, reason: str) -> None:
            self.tail.retries.append(RetryRecord(self._now(), attempt + 1, delay, reason))
            if then is not None:
                then(attempt, delay, reason)
        return record

    def response(self, response: httpx.Response) -> None:
        self.tail.headers_s = self._now()
        self.tail.status = response.status_code
        self.tail.headers = [(k.decode("latin-1"), v.decode("latin-1"))
                             for k, v in response.headers.raw]

    # -- the per-chunk path

    def chunk(self, data: bytes) -> None:
        now = time.monotonic()
        self._chunks.append((now - self._started, data))
        if len(self._chunks) >= FLUSH_CHUNKS or now >= self._flush_at:
            self._flush(now)

    def event(self, event: StreamEvent) -> None:
        kind = event.type
        if kind in CONTENT_EVENTS:
            now = self._now()
            tail = self.tail
            if tail.first_token_s is None:
                tail.first_token_s = now
            tail.last_token_s = now
            self._deltas += 1
            if kind == "text_delta":
                self._text.append(event.text)  # type: ignore[union-attr]
        elif isinstance(event, UsageEvent) and event.usage.output_tokens:
            self.tail.output_tokens = event.usage.output_tokens
        elif isinstance(event, ErrorEvent):
            self.tail.error = event.message

    # -- the end

    def finish(self, error: str | None = None) -> None:
        """Hand everything still held to the writer (once)."""
        if self._recording is None:
            return
        tail = self.tail
        tail.end_s = self._now()
        tail.error = error or tail.error
        tail.answer_text = "".join(self._text)
        if tail.output_tokens is None and self._deltas:
            tail.output_tokens, tail.tokens_estimated = self._deltas, True
        self._flush(time.monotonic(), tail)
        self._recording = None

    def _flush(self, now: float, tail: ExchangeTail | None = None) -> None:
        recording = self._recording
        if recording is None:
            return
        chunks, self._chunks = self._chunks, []
        batch = CaptureBatch(self.id, self._secrets, self._head, self._first_seq, chunks, tail)
        self._head = None
        self._first_seq += len(chunks)
        self._flush_at = now + FLUSH_S
        recording.writer.write(batch)


class _RecordedChunks:
    """An async iterator (not a generator: nothing for the garbage collector to
    finalize when a stream is drained or cancelled) recording each chunk."""

    __slots__ = ("_inner", "_note")

    def __init__(self, inner: AsyncIterator[bytes], note: Callable[[bytes], None]) -> None:
        self._inner = inner
        self._note = note

    def __aiter__(self) -> _RecordedChunks:
        return self

    async def __anext__(self) -> bytes:
        chunk = await self._inner.__anext__()
        self._note(chunk)
        return chunk
