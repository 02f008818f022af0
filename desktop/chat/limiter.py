"""A per-provider limit on requests streaming at once; the rest wait their turn.

Several chats answering together must not flood one provider (rate limits, a local
server with one GPU): each provider gets a number of slots (Settings, default 4), and
a request beyond them waits, first come first served, until one frees. The wait is
part of the request, so Stop cancels it like any other.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable

from desktop.core.events import StreamEvent
from desktop.core.provider import ChatRequest, ModelInfo, Provider

DEFAULT_LIMIT = 4


class ProviderLimiter:
    def __init__(self, limit: Callable[[], int] = lambda: DEFAULT_LIMIT) -> None:
        """``limit()`` is read when a provider's slots are first needed."""
        self._limit = limit
        self._slots: dict[str, asyncio.Semaphore] = {}

    def slots(self, provider_id: str) -> asyncio.Semaphore:
        if provider_id not in self._slots:
            self._slots[provider_id] = asyncio.Semaphore(max(1, self._limit()))
        return self._slots[provider_id]

    def reset(self) -> None:
        """Forget the slots (the limit changed); requests holding old ones finish."""
        self._slots = {}

    def wrap(self, provider: Provider, provider_id: str, *,
             on_wait: Callable[[bool], None] | None = None) -> LimitedProvider:
        return LimitedProvider(provider, self.slots(provider_id), on_wait)


class LimitedProvider:
    """A provider whose streams hold one of its slots while they run."""

    def __init__(self, inner: Provider, slots: asyncio.Semaphore,
                 on_wait: Callable[[bool], None] | None = None) -> None:
        """``on_wait(True)`` when a request has to queue, ``on_wait(False)`` when it
        gets its slot."""
        self.inner = inner
        self.name = inner.name
        self.supports_tools = inner.supports_tools
        self.supports_reasoning = inner.supports_reasoning
        self._slots = slots
        self._on_wait = on_wait

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        """The provider's stream, holding a slot. Closing it (``aclose``: a consumer
        that stops reading, a cancelled turn, the loop's shutdown) closes the
        provider's stream too, on the loop, before the slot is given back: left to the
        garbage collector, that stream was closed without a loop ("async generator
        ignored GeneratorExit") while its slot was already free."""
        queued = self._slots.locked()
        if queued and self._on_wait is not None:
            self._on_wait(True)
        async with self._slots:
            if queued and self._on_wait is not None:
                self._on_wait(False)
            async with contextlib.aclosing(self.inner.stream(request)) as events:
                async for event in events:
                    yield event

    async def list_models(self) -> list[ModelInfo]:
        return await self.inner.list_models()

    async def aclose(self) -> None:
        await self.inner.aclose()
