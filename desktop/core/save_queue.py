"""Saving a turn's messages off the event loop, in order, retried until they are stored.

A save can fail for a while (another process holds the database's write lock for
longer than the busy timeout) or for good (a full disk, a row too big). Saving on
the event loop would freeze the window for the whole busy timeout on every attempt,
and forgetting a failed save would leave a cut answer in the database while the
user saw it whole. So saves go to a worker thread, one at a time and in the order
they were asked for; a newer snapshot of the same message replaces the one still
waiting; every message stays in memory until it is stored; failures are retried
with backoff; and :meth:`SaveQueue.close` tells the caller, at the end of the turn,
what could not be stored (:class:`SaveError`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from desktop.core.errors import StorageError
from desktop.core.messages import Message
from desktop.core.thread_names import name_os_thread
from desktop.core.waits import scaled

#: One plain Python thread for every save, for the life of the process. Not the event
#: loop's default executor: under qasync that is a pool of QThreads belonging to one
#: loop, and a save still running when that loop goes away (a window closed, a test
#: ended) can take the process down; one thread also keeps saves in order.
_SAVER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="assista-save",
                            initializer=name_os_thread)

log = logging.getLogger(__name__)

#: Pauses between attempts while the turn runs (then it waits for the next snapshot).
STREAM_RETRY_DELAYS: tuple[float, ...] = (0.25,)
#: Pauses between the last attempts at the end of the turn, before giving up. Each
#: attempt may itself wait for the database's busy timeout.
FINAL_RETRY_DELAYS: tuple[float, ...] = (1.0,)


class MessageStore(Protocol):
    def save_message(self, session_id: str, message: Message) -> None: ...


class SaveError(StorageError):
    """Messages of a turn could not be stored; ``messages`` holds them, whole."""

    def __init__(self, message: str, messages: Sequence[Message], *, code: str | None = None,
                 params: Mapping[str, Any] | None = None) -> None:
        super().__init__(message, code=code, params=params)
        self.messages = list(messages)


class SaveQueue:
    def __init__(self, store: MessageStore, session_id: str, *,
                 stream_delays: Sequence[float] | None = None,
                 final_delays: Sequence[float] | None = None,
                 on_error: Callable[[Exception], None] | None = None) -> None:
        self.store = store
        self.session_id = session_id
        # (None: the app's pauses, or shorter: desktop.core.waits)
        self.stream_delays = tuple(scaled(d) for d in STREAM_RETRY_DELAYS) \
            if stream_delays is None else tuple(stream_delays)
        self.final_delays = tuple(scaled(d) for d in FINAL_RETRY_DELAYS) \
            if final_delays is None else tuple(final_delays)
        self.on_error = on_error
        self.failures = 0  # attempts that failed
        self.last_error: Exception | None = None
        # By id, in the order first asked for: (version, the message or a function that
        # makes its latest snapshot -- built only when it is saved, not per token).
        self._pending: dict[str, tuple[int, Message | Callable[[], Message]]] = {}
        self._version = 0
        self._writer: asyncio.Task[bool] | None = None

    @property
    def pending(self) -> list[Message]:
        return [_made(item) for _, item in self._pending.values()]

    def put(self, message: Message) -> None:
        """Store ``message`` soon (a waiting older version of it is replaced)."""
        self.put_latest(message.id, message)

    def put_latest(self, message_id: str, item: Message | Callable[[], Message]) -> None:
        """Store message ``message_id`` soon; ``item`` may be a function returning its
        latest snapshot, called when the save happens."""
        self._version += 1
        self._pending[message_id] = (self._version, item)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(
                self._drain(self.stream_delays))

    async def settled(self) -> None:
        """Wait for the saves under way (a failure is kept for :meth:`close`)."""
        if self._writer is not None and not self._writer.done():
            await asyncio.shield(self._writer)

    async def close(self) -> None:
        """Wait until everything is stored; retry what failed; SaveError if it still
        fails (the messages stay in :attr:`pending`). Called again after it was
        interrupted, it goes on with what is left."""
        if self._writer is not None and not self._writer.cancelled():
            await asyncio.shield(self._writer)
        if self._pending and not await self._drain(self.final_delays):
            error = self.last_error
            count = len(self._pending)
            what = "the answer" if count == 1 else f"{count} messages"
            raise SaveError(f"{what} could not be saved: {_describe(error)}", self.pending,
                            code="answer_not_saved" if count == 1 else "messages_not_saved",
                            params={"count": count, "detail": _describe(error)})

    async def _drain(self, delays: tuple[float, ...]) -> bool:
        """Save every waiting message in order; False when one keeps failing."""
        attempt = 0
        while self._pending:
            message_id, (version, item) = next(iter(self._pending.items()))
            message = _made(item)
            try:
                await asyncio.wrap_future(
                    _SAVER.submit(self.store.save_message, self.session_id, message))
            except Exception as exc:  # any failure: retried, then reported at the end
                self.failures += 1
                self.last_error = exc
                log.warning("saving message %s failed (attempt %d): %s", message_id,
                            attempt + 1, exc)
                if self.on_error is not None:
                    self.on_error(exc)
                if attempt >= len(delays):
                    return False
                await asyncio.sleep(delays[attempt])
                attempt += 1
                continue
            attempt = 0
            if self._pending[message_id][0] == version:  # not asked again meanwhile
                del self._pending[message_id]
        return True


def _made(item: Message | Callable[[], Message]) -> Message:
    return item if isinstance(item, Message) else item()


def _describe(error: Exception | None) -> str:
    text = str(error) if error is not None else "unknown error"
    if "locked" in text or "busy" in text:
        return (f"{text} (another program is writing to the database; close it and "
                "try again)")
    return text


__all__ = ["FINAL_RETRY_DELAYS", "STREAM_RETRY_DELAYS", "SaveError", "SaveQueue"]
