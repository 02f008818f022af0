"""Recording model requests for the request inspector: a wrapper around a provider.

:func:`recorded` wraps an HTTP provider when recording is on. Each streamed request
gets an :class:`ExchangeCapture`, filed under the chat and answer the request carries
(:attr:`ChatRequest.origin <desktop.core.provider.ChatRequest.origin>`). The wrapper
notes the events (token times, the answer text, the error); what goes over the wire
(the request as sent, retries, the response's status, headers and every raw chunk
with its arrival time) is told to the capture by the HTTP client's transport
wrapper (:mod:`desktop.providers.wire_tap`), which finds it in the request's httpx
extensions. The template (:mod:`desktop.providers.http_base`) knows none of this.

On the per-chunk path a capture only appends ``(time, bytes)`` to a list; every
:data:`FLUSH_CHUNKS` chunks or :data:`FLUSH_S` seconds the list goes to the writer,
which stores (and redacts) it on its own thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator
from functools import partial
from typing import TYPE_CHECKING, Any, Self

import httpx
import msgspec

from desktop.core.events import ErrorEvent, StreamEvent, UsageEvent
from desktop.core.exchange import (
    CaptureBatch,
    ExchangeHead,
    ExchangeRecording,
    ExchangeTail,
    RetryRecord,
)
from desktop.core.messages import new_id
from desktop.core.provider import ChatRequest, ModelInfo
from desktop.providers.http_endpoint import Sending
from desktop.providers.wire_tap import WIRE_TAP

if TYPE_CHECKING:
    from desktop.providers.http_base import HttpProvider

__all__ = ["FLUSH_CHUNKS", "FLUSH_S", "ExchangeCapture", "RecordingProvider",
           "chat_request_dict", "recorded"]

FLUSH_CHUNKS = 256
FLUSH_S = 1.0
#: Events that are the model writing (their times are first/last token).
CONTENT_EVENTS = frozenset({"text_delta", "reasoning_delta", "tool_call_started",
                            "tool_call_complete"})


def recorded(provider: HttpProvider, recording: ExchangeRecording | None
             ) -> HttpProvider | RecordingProvider:
    """``provider``, its streamed requests recorded when there is a ``recording``.
    (What goes over the wire is told by the clients the provider makes; a client
    given to it records only if its transport is a
    :class:`~desktop.providers.wire_tap.WireTap`.)"""
    return provider if recording is None else RecordingProvider(provider, recording)


class RecordingProvider:
    """An HTTP provider whose every streamed request is captured; everything else
    (model lists, its options, ``retry``, closing) is the provider's own."""

    def __init__(self, inner: HttpProvider, recording: ExchangeRecording) -> None:
        self.inner = inner
        self.recording = recording
        self.name = inner.name
        self.supports_tools = inner.supports_tools
        self.supports_reasoning = inner.supports_reasoning

    def __getattr__(self, name: str) -> Any:  # the provider's attributes and methods
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return f"recorded({self.inner!r})"

    async def list_models(self) -> list[ModelInfo]:
        return await self.inner.list_models()

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        """The provider's events; recorded where it reads them (its stream thread
        when it reads there), before they are batched for the caller."""
        events = self.inner.read(partial(self._recorded, request))
        async with contextlib.aclosing(events):
            async for event in events:
                yield event

    async def _recorded(self, request: ChatRequest, sending: Sending
                        ) -> AsyncGenerator[StreamEvent, None]:
        inner = self.inner
        capture = ExchangeCapture(self.recording, inner.name, request, inner.secrets)
        tapped = Sending({**(sending.extensions or {}), WIRE_TAP: capture}, sending.on_retry)
        try:  # closed here: a stream the consumer stops must not be left to the GC
            async with contextlib.aclosing(inner.events(request, tapped)) as events:
                record = capture.event
                async for event in events:
                    record(event)
                    yield event
        except (asyncio.CancelledError, GeneratorExit):
            capture.finish("stopped")
            raise
        finally:
            capture.finish()


def chat_request_dict(request: ChatRequest) -> dict[str, Any]:
    """The provider-neutral request, as JSON-ready data (for Replay)."""
    return {
        "model": request.model,
        "system": request.system,
        "messages": [m.model_dump(mode="json") for m in request.messages],
        "tools": [msgspec.to_builtins(t) for t in request.tools],
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
        "reasoning": request.reasoning,
        "reasoning_budget": request.reasoning_budget,
        "reasoning_effort": request.reasoning_effort,
        "extra": request.extra,
    }


class ExchangeCapture:
    """One request's record while it runs; :meth:`finish` hands over the rest."""

    __slots__ = ("_attempts", "_chunks", "_deltas", "_first_seq", "_flush_at", "_head",
                 "_last_end", "_last_outcome", "_recording", "_secrets", "_started", "_text",
                 "id", "tail")

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
        self._attempts = 0
        self._last_end = 0.0  # when the last attempt got its answer (or failed)
        self._last_outcome = ""
        self.tail = ExchangeTail()

    def _now(self) -> float:
        return time.monotonic() - self._started

    # -- the request phase (told by the HTTP client's wire tap)

    def sending(self, request: httpx.Request) -> None:
        """The request as it goes out (the last one sent, when retried): a second
        attempt is recorded as a retry of the first, with why and how long after."""
        now = self._now()
        if self._attempts:
            self.tail.retries.append(RetryRecord(self._last_end, self._attempts,
                                                 now - self._last_end, self._last_outcome))
        self._attempts += 1
        head = self._head
        if head is None:
            return
        head.method = request.method
        head.url = str(request.url)
        head.headers = [(k.decode("latin-1"), v.decode("latin-1"))
                        for k, v in request.headers.raw]
        head.body = request.content if isinstance(request.stream, httpx.ByteStream) else b""

    def failed(self, reason: str) -> None:
        self._last_end, self._last_outcome = self._now(), reason

    def response(self, response: httpx.Response) -> None:
        self._last_end = self.tail.headers_s = self._now()
        self._last_outcome = f"HTTP {response.status_code}"
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
