"""Runs one user turn of a stored conversation and saves it as it streams.

Used by both the window and ``assista ask``: the user message is saved first, each
assistant message is saved when it starts, at most every ``save_interval`` seconds
while it streams (so a crash loses at most about a second), and when it completes;
each round of tool results is saved as soon as it is complete.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Protocol

from desktop.core.agent_events import (
    AgentEvent,
    AssistantFinished,
    AssistantStarted,
    ToolResultsMessage,
)
from desktop.core.events import ReasoningDelta, TextDelta, ToolCallComplete
from desktop.core.messages import Message
from desktop.core.orchestrator import Orchestrator, RunResult, Sink

log = logging.getLogger(__name__)


class MessageStore(Protocol):
    def save_message(self, session_id: str, message: Message) -> None: ...


class SessionRecorder:
    """A sink that persists a running turn; wraps the caller's own sink."""

    def __init__(
        self,
        store: MessageStore,
        session_id: str,
        downstream: Sink | None = None,
        *,
        save_interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.downstream = downstream
        self.save_interval = save_interval
        self._clock = clock
        self._snapshot: Callable[[], Message] | None = None
        self._last_save = 0.0
        self.save_errors = 0

    def _save(self, message: Message) -> None:
        try:
            self.store.save_message(self.session_id, message)
        except Exception:  # keep streaming; the next save will try again
            self.save_errors += 1
            log.exception("could not save message %s", message.id)

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, TextDelta | ReasoningDelta | ToolCallComplete):
            if self._snapshot is not None and self._clock() - self._last_save >= self.save_interval:
                self._save(self._snapshot())
                self._last_save = self._clock()
        elif isinstance(event, AssistantStarted):
            self._snapshot = event.snapshot
            if event.snapshot is not None:
                self._save(event.snapshot())
            self._last_save = self._clock()
        elif isinstance(event, AssistantFinished):
            self._snapshot = None
            self._save(event.message)
        elif isinstance(event, ToolResultsMessage):
            self._save(event.message)
        if self.downstream is not None:
            self.downstream(event)


async def run_turn(
    orchestrator: Orchestrator,
    store: MessageStore,
    session_id: str,
    history: list[Message],
    user_message: Message | None,
    *,
    model: str,
    system: str | None = None,
    sink: Sink | None = None,
    temperature: float | None = None,
) -> RunResult:
    """Append and save ``user_message``, then run the agent loop with persistence.

    ``user_message=None`` answers ``history`` as it is (regenerating an answer)."""
    if user_message is not None:
        history.append(user_message)
        store.save_message(session_id, user_message)
    recorder = SessionRecorder(store, session_id, sink)
    return await orchestrator.run(history, model=model, system=system, sink=recorder,
                                  temperature=temperature)


def auto_title(text: str, limit: int = 60) -> str:
    """A short session title from the first user message."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "New chat")
    line = line.lstrip("#>*- ").strip() or "New chat"
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
