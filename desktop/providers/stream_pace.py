"""How often a stream read on the ``assista-stream`` thread reaches its consumer.

A chat someone watches gets its answer's events 15 times a second (the view paints at
most 15: :data:`WATCHED_S`), and its socket is read at that pace. A chat nobody watches
(answering in the background) draws nothing: its events are only saved and passed on,
so they go over four times a second (:data:`UNWATCHED_S`), in larger batches and
fewer, larger reads. Each handover and each read costs the same whatever it carries: a
wake-up of the app's loop and of the stream thread, the agent loop's pass over the
batch, httpcore's and h11's per-read work. A chat that is looked at again is at the
watched pace from its next handover on (at most :data:`UNWATCHED_S` later).

The pace is the consumer's: a provider is given one when it is made (the turn runner
makes a turn's provider with a pace that asks whether the chat has observers), and
takes it with each stream to the stream thread (``stream_thread.relay``) and to its
sockets there. A provider made without one streams at the watched pace.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["UNWATCHED_S", "WATCHED_S", "StreamPace"]

#: The least time between two handovers of a watched stream (the view paints at most 15
#: times a second), and the pause of its socket reads once caught up with the server.
WATCHED_S = 1 / 15
#: The same for a stream nobody watches.
UNWATCHED_S = 0.25


class StreamPace:
    """A stream's pace, asked at each handover and read: ``watched()`` may change while
    it streams (it is called on the stream thread: it must only read)."""

    __slots__ = ("watched",)

    def __init__(self, watched: Callable[[], bool]) -> None:
        self.watched = watched

    @property
    def interval(self) -> float:
        return WATCHED_S if self.watched() else UNWATCHED_S
