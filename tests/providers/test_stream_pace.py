"""A stream nobody watches hands its events over, and has its socket read, four times a
second instead of fifteen; the pace is asked again at each handover and each read, so a
stream that is looked at again goes at the watched pace from then on."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import AsyncIterator

from desktop.core.events import StreamEvent, TextDelta
from desktop.providers.socket_io import _SocketStream
from desktop.providers.stream_pace import UNWATCHED_S, WATCHED_S, StreamPace
from desktop.providers.stream_thread import _Mailbox, relay


class Switch:
    """Whether the stream is watched, as a chat's observers say it (read only)."""

    def __init__(self, watched: bool) -> None:
        self.watched = watched
        self.asked_on: set[str] = set()

    def __call__(self) -> bool:
        self.asked_on.add(threading.current_thread().name)
        return self.watched


async def next_handover_in(pace: StreamPace | None, switched: Switch | None = None
                           ) -> tuple[float, float]:
    """How long after a handover the next is scheduled for a stream at ``pace``; then
    again once ``switched`` says the stream is watched (a second figure, or 0)."""
    loop = asyncio.get_running_loop()
    box = _Mailbox(loop, loop, pace)
    box._put(TextDelta("first"))  # (nothing handed over yet: at once)
    await asyncio.sleep(0)
    assert box.items == [TextDelta("first")]
    delays: list[float] = []
    for text in ("second", "third"):
        box._put(TextDelta(text))
        assert box._timer is not None
        delays.append(box._timer.when() - loop.time())  # type: ignore[attr-defined]
        box._timer.cancel()
        box._timer = None
        if switched is None:
            return delays[0], 0.0
        switched.watched = True  # looked at: the next handover at the watched pace
    return delays[0], delays[1]


async def test_a_stream_nobody_watches_is_handed_over_less_often() -> None:
    switched = Switch(False)
    unwatched, watched = await next_handover_in(StreamPace(switched), switched)
    assert WATCHED_S < unwatched <= UNWATCHED_S
    assert 0 < watched <= WATCHED_S


async def test_with_no_pace_a_stream_goes_at_the_watched_pace() -> None:
    delay, _ = await next_handover_in(None)
    assert 0 < delay <= WATCHED_S


async def test_a_socket_read_for_a_stream_nobody_watches_pauses_longer() -> None:
    """The stream thread's reads take the pause of the stream's pace (the reader caught
    up with the server, the socket is left be for a period)."""
    slept: list[float] = []

    async def sleep(delay: float) -> None:
        slept.append(delay)

    async def pause_at(pace: StreamPace | None) -> float:
        ours, theirs = socket.socketpair()
        ours.setblocking(False)
        stream = _SocketStream(ours, WATCHED_S, sleep, pace)
        try:
            theirs.sendall(b"first")
            assert await stream.read(65536) == b"first"
            reading = asyncio.ensure_future(stream.read(65536, timeout=5.0))
            await asyncio.sleep(0)
            theirs.sendall(b"second")  # a read that had to wait: the pause counts from it
            assert await reading == b"second"
            slept.clear()
            reading = asyncio.ensure_future(stream.read(65536, timeout=5.0))
            await asyncio.sleep(0)
            theirs.sendall(b"third")
            assert await reading == b"third"
            return slept[0]
        finally:
            await stream.aclose()
            theirs.close()

    unwatched = await pause_at(StreamPace(lambda: False))
    assert WATCHED_S < unwatched <= UNWATCHED_S
    assert 0 < await pause_at(StreamPace(lambda: True)) <= WATCHED_S
    assert 0 < await pause_at(None) <= WATCHED_S


async def test_the_pace_goes_with_the_stream_to_the_stream_thread() -> None:
    """The stream thread asks the pace given to :func:`relay` at its handovers."""
    watched = Switch(False)

    async def events() -> AsyncIterator[StreamEvent]:
        for _ in range(3):
            yield TextDelta("x")
            await asyncio.sleep(0)

    text = "".join([e.text async for e in relay(events, StreamPace(watched))
                    if isinstance(e, TextDelta)])
    assert text == "xxx"
    assert "assista-stream" in watched.asked_on
