"""The end of a saved turn: wait for its saves, and say so when they failed.

A save that still fails after the recorder's retries makes the turn failed (the
CLI exits non-zero with the message) and emits :class:`SaveFailed` with the whole
messages, which the window can show with a way to try again.
"""

from __future__ import annotations

import asyncio
import logging

from desktop.chat.events import SaveFailed
from desktop.chat.running import RunningTurn
from desktop.core.conversation import SessionRecorder
from desktop.core.save_queue import SaveError

log = logging.getLogger(__name__)


async def finish_saving(turn: RunningTurn, recorder: SessionRecorder) -> None:
    """Wait for the turn's last saves; a failure is told, not raised.

    Stopping the turn again while its last saves run (Quit or a signal just as the
    answer ends, a second Stop) does not abandon them: the app would end with what
    was shown not stored. They finish first (the queue's own retries bound them). A
    stop that comes when nothing is left to store is raised (CancelledError)."""
    try:
        while True:
            try:
                await recorder.close()
                break
            except asyncio.CancelledError:
                if not recorder.queue.pending:
                    raise
                log.info("chat %s: stopped while its last saves run; they finish first",
                         turn.session_id)
                task = asyncio.current_task()
                if task is not None:
                    task.uncancel()
    except SaveError as exc:
        log.error("chat %s: %s", turn.session_id, exc)
        message = f"{exc}. It is shown here but not stored."
        turn.failure = turn.failure or message
        turn.emit(SaveFailed(turn.session_id, message, exc.messages))
    except Exception:
        log.exception("chat %s: saving failed", turn.session_id)
        turn.failure = turn.failure or "The answer could not be saved."
