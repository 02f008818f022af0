"""The per-provider limit's streams: closing one (a consumer that stops reading, a
cancelled turn, the loop's shutdown) closes the provider's stream on the loop, also
under a loop without asyncgen hooks (qasync's), with no "ignored GeneratorExit"."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncGenerator
from typing import Any

import pytest

from desktop.chat.limiter import ProviderLimiter
from desktop.core.events import EndEvent, StreamEvent, TextDelta
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest, ModelInfo

REQUEST = ChatRequest(model="m", messages=[Message.user("hi")])


class SlowToClose:
    """A provider whose stream, like an HTTP one, has to await to close its response."""

    name = "slow to close"
    supports_tools = False
    supports_reasoning = False

    def __init__(self) -> None:
        self.closed = False

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        try:
            for word in ("one ", "two ", "three"):
                yield TextDelta(word)
            yield EndEvent("stop")
        finally:
            await asyncio.sleep(0)  # (closing the connection)
            self.closed = True

    async def list_models(self) -> list[ModelInfo]:
        return []

    async def aclose(self) -> None:
        pass


@pytest.mark.parametrize("hooks", [True, False], ids=["asyncio hooks", "no hooks (qasync)"])
def test_closing_a_limited_stream_closes_the_providers_stream(
        hooks: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    ignored: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", ignored.append)
    inner = SlowToClose()
    limiter = ProviderLimiter(lambda: 1)

    async def read_one_word() -> tuple[bool, bool]:
        if not hooks:
            sys.set_asyncgen_hooks(firstiter=None, finalizer=None)
        limited = limiter.wrap(inner, "p")
        async with contextlib.aclosing(limited.stream(REQUEST)) as events:
            async for event in events:
                assert event == TextDelta("one ")
                break  # the consumer stops reading
        return inner.closed, limiter.slots("p").locked()

    closed, slot_held = asyncio.run(read_one_word())
    assert closed and not slot_held
    assert not ignored, [str(u.exc_value) for u in ignored]
