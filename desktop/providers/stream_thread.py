"""Reading a provider's stream off the app's event loop.

In the app the event loop is Qt's (qasync): every socket read there costs a socket
notifier and timers, many times what decoding the bytes costs. So a provider that
owns its HTTP client reads its stream on one shared thread, ``assista-stream``,
running a plain asyncio loop: the same code (request, retries, decoding, parsing,
the request inspector's capture), only on that loop with a client made there, whose
sockets are read straight from the loop (:mod:`~desktop.providers.socket_io`). The
caller's loop gets the events in batches, at most 15 times a second (the view paints
at most 15; four times for a chat nobody watches: :mod:`~desktop.providers.stream_pace`),
with each run of text deltas joined into one; the body is read in a few large reads,
not one per event: once the reader has caught up with the server, the socket is left be
until :data:`READ_PAUSE_S` (or the stream's pace) after the last read that had to wait.

Stopping (the consumer closes or is cancelled) cancels the stream on its thread and
waits until it has closed (response closed, capture finished).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from desktop.core.events import ReasoningDelta, StreamEvent, TextDelta
from desktop.core.thread_names import name_os_thread
from desktop.providers.stream_pace import WATCHED_S, StreamPace

if TYPE_CHECKING:
    from httpx import AsyncClient

__all__ = ["HANDOVER_S", "READ_PAUSE_S", "call_on_loop", "close_on_stream_thread", "joined",
           "on_stream_thread", "relay"]

#: The least time between two handovers to the caller's loop (a stream with no pace).
HANDOVER_S = WATCHED_S
#: How long a stream's socket is left be once the reader has caught up with the server
#: (see :class:`~desktop.providers.socket_io.LoopBackend`).
READ_PAUSE_S = HANDOVER_S
#: How long stopping waits for the stream's thread to close the stream.
CLOSE_WAIT_S = 5.0

_lock = threading.Lock()
_closing: set[asyncio.Task[None]] = set()  # closes under way (kept from the GC)
_worker: _StreamThread | None = None


class _StreamThread:
    """One daemon thread running a plain asyncio loop for every provider's stream."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="assista-stream", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        name_os_thread()
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()


def _stream_thread() -> _StreamThread:
    global _worker
    with _lock:
        if _worker is None:
            _worker = _StreamThread()
        return _worker


def on_stream_thread() -> bool:
    worker = _worker
    return worker is not None and threading.current_thread() is worker.thread


def call_on_loop(loop: asyncio.AbstractEventLoop, callback: Callable[..., None],
                 *args: Any) -> None:
    """``callback(*args)`` on ``loop`` (the caller's, from code on the stream thread);
    at once when that is this thread's loop."""
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        callback(*args)
        return
    with contextlib.suppress(RuntimeError):  # the caller's loop is closed
        loop.call_soon_threadsafe(callback, *args)


def close_on_stream_thread(client: AsyncClient) -> None:
    """Close ``client`` (made on the stream thread) there, without waiting for it:
    whoever closes a provider goes on at once (a chat's next turn must not wait)."""
    loop = _stream_thread().loop

    def close() -> None:
        task = loop.create_task(client.aclose())
        _closing.add(task)
        task.add_done_callback(_closing.discard)

    loop.call_soon_threadsafe(close)


async def relay(source: Callable[[], AsyncIterator[StreamEvent]],
                pace: StreamPace | None = None) -> AsyncGenerator[StreamEvent, None]:
    """The events of ``source()``, run on the stream thread, yielded on this loop (handed
    over at ``pace``; none: 15 times a second)."""
    worker = _stream_thread()
    home = asyncio.get_running_loop()
    box = _Mailbox(home, worker.loop, pace)
    # (in a context of its own: nothing reaches the stream thread but what ``source``
    # was given)
    worker.loop.call_soon_threadsafe(box.start, source)
    try:
        while True:
            batch, done = await box.take()
            for event in joined(batch):
                yield event
            if done:
                break
        if box.error is not None:
            raise box.error
    finally:
        if not box.finished.done():
            worker.loop.call_soon_threadsafe(box.cancel)
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait({box.finished}, timeout=CLOSE_WAIT_S)


def joined(batch: list[StreamEvent]) -> list[StreamEvent]:
    """``batch`` with each run of text (or reasoning) deltas joined into one."""
    out: list[StreamEvent] = []
    run: list[str] = []
    kind: type[TextDelta] | type[ReasoningDelta] | None = None
    for event in batch:
        if type(event) is kind:
            run.append(event.text)
            continue
        if kind is not None:
            out.append(kind("".join(run)))
            kind = None
        if type(event) is TextDelta or type(event) is ReasoningDelta:
            kind, run = type(event), [event.text]
        else:
            out.append(event)
    if kind is not None:
        out.append(kind("".join(run)))
    return out


class _Mailbox:
    """What the stream thread has decoded and the caller's loop has not taken yet."""

    def __init__(self, home: asyncio.AbstractEventLoop,
                 worker: asyncio.AbstractEventLoop, pace: StreamPace | None = None) -> None:
        self.home = home
        self.worker = worker
        self.pace = pace
        self.lock = threading.Lock()
        self.items: list[StreamEvent] = []  # handed over, not taken yet
        self.done = False
        self.woken = False  # the caller's loop was told of items it has not taken
        self.error: BaseException | None = None
        self.finished: asyncio.Future[None] = home.create_future()
        self._waiter: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._decoded: list[StreamEvent] = []  # on the stream thread, not handed over yet
        self._last = 0.0
        self._timer: asyncio.Handle | None = None

    # -- on the stream thread

    def start(self, source: Callable[[], AsyncIterator[StreamEvent]]) -> None:
        self._task = self.worker.create_task(self._pump(source),
                                             context=contextvars.Context())
        self._task.add_done_callback(lambda _task: self._close())

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _pump(self, source: Callable[[], AsyncIterator[StreamEvent]]) -> None:
        events = source()
        try:
            async for event in events:
                self._put(event)
        except asyncio.CancelledError:
            pass  # the consumer stopped
        except BaseException as exc:  # a bug: the consumer sees it
            self.error = exc
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()

    def _put(self, event: StreamEvent) -> None:
        self._decoded.append(event)
        if self._timer is not None:
            return
        # Handed over once the stream waits for more (a callback of this loop runs only
        # then): everything one read brought goes over together, never a part of it.
        interval = HANDOVER_S if self.pace is None else self.pace.interval
        wait = self._last + interval - time.monotonic()
        if wait > 0:
            self._timer = self.worker.call_later(wait, self._hand_over)
        else:
            self._timer = self.worker.call_soon(self._hand_over)

    def _hand_over(self, done: bool = False) -> None:
        self._timer = None
        self._last = time.monotonic()
        decoded, self._decoded = self._decoded, []
        with self.lock:
            self.items += decoded
            self.done = self.done or done
            if self.woken and not done:
                return
            self.woken = True
        with contextlib.suppress(RuntimeError):  # the caller's loop is closed
            self.home.call_soon_threadsafe(self._wake)

    def _close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._hand_over(done=True)

    # -- on the caller's loop

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        with self.lock:
            done = self.done
        if done and not self.finished.done():
            self.finished.set_result(None)

    async def take(self) -> tuple[list[StreamEvent], bool]:
        while True:
            with self.lock:
                if self.items or self.done:
                    items, self.items = self.items, []
                    self.woken = False
                    return items, self.done
                self._waiter = self.home.create_future()
            await self._waiter
            self._waiter = None
