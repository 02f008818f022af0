"""Saving a turn of a stored conversation as it streams.

:class:`SessionRecorder` is the sink the chat's turn runner
(:mod:`desktop.chat.turn_runner`) gives the agent loop: the user message is saved first, each
assistant message is saved when it starts, at most every ``save_interval`` seconds
while it streams (so a crash loses at most about a second), and when it completes;
each round of tool results is saved as soon as it is complete. Saves run off the
event loop and are retried (see :mod:`desktop.core.save_queue`); a save that finally
fails is reported when the turn ends, never forgotten.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from desktop.core.agent_events import (
    AgentEvent,
    AssistantFinished,
    AssistantStarted,
    RunFinished,
    ToolResultsMessage,
)
from desktop.core.events import ReasoningDelta, TextDelta, ToolCallComplete
from desktop.core.messages import Message
from desktop.core.orchestrator import Sink
from desktop.core.save_queue import MessageStore, SaveQueue

log = logging.getLogger(__name__)

#: What streams into the open message (checked per token: a tuple, not a new union).
_STREAMED = (ReasoningDelta, ToolCallComplete)


class SessionRecorder:
    """A sink that persists a running turn; wraps the caller's own sink.

    Saves run off the event loop, in order, retried (:class:`SaveQueue`); await
    :meth:`close` when the turn ends: it raises :class:`SaveError` when something
    could not be stored, while the messages are still whole in memory."""

    def __init__(
        self,
        store: MessageStore,
        session_id: str,
        downstream: Sink | None = None,
        *,
        save_interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        queue: SaveQueue | None = None,
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.downstream = downstream
        self.save_interval = save_interval
        self._clock = clock
        self._snapshot: Callable[[], Message] | None = None
        self._last_save = 0.0
        self.queue = queue or SaveQueue(store, session_id)
        self._held: list[AgentEvent] = []
        self._streaming_id = ""

    @property
    def save_errors(self) -> int:
        return self.queue.failures

    def _save(self, message: Message) -> None:
        self.queue.put(message)

    async def settled(self) -> None:
        """Wait until what was asked so far is stored or its retries are used up."""
        await self.queue.settled()

    async def close(self) -> None:
        """Wait for every save, then pass on the run's end; SaveError when a save
        finally failed."""
        try:
            await self.queue.close()
        finally:
            held, self._held = self._held, []
            if self.downstream is not None:
                for event in held:
                    self.downstream(event)


    def __call__(self, event: AgentEvent) -> None:
        if type(event) is TextDelta or isinstance(event, _STREAMED):
            if self._snapshot is not None and self._clock() - self._last_save >= self.save_interval:
                # The snapshot is made when the save runs, not for every token.
                self.queue.put_latest(self._streaming_id, self._snapshot)
                self._last_save = self._clock()
        elif isinstance(event, AssistantStarted):
            self._snapshot = event.snapshot
            self._streaming_id = event.message_id
            if event.snapshot is not None:
                self._save(event.snapshot())
            self._last_save = self._clock()
        elif isinstance(event, AssistantFinished):
            self._snapshot = None
            self._save(event.message)
        elif isinstance(event, ToolResultsMessage):
            self._save(event.message)
        elif isinstance(event, RunFinished):  # told after the saves: "finished" = stored
            self._held.append(event)
            return
        if self.downstream is not None:
            self.downstream(event)


def auto_title(text: str, limit: int = 60) -> str:
    """A short session title from the first user message."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "New chat")
    line = line.lstrip("#>*- ").strip() or "New chat"
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
