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
    """Never raises: the caller's clean-up must run."""
    try:
        await recorder.close()
    except asyncio.CancelledError:
        # Shutting down: the turn must end now; the queue's writer keeps saving in the
        # background for as long as the loop runs.
        log.warning("chat %s: stopped while its last saves were running", turn.session_id)
    except SaveError as exc:
        log.error("chat %s: %s", turn.session_id, exc)
        message = f"{exc}. It is shown here but not stored."
        turn.failure = turn.failure or message
        turn.emit(SaveFailed(turn.session_id, message, exc.messages))
    except Exception:
        log.exception("chat %s: saving failed", turn.session_id)
        turn.failure = turn.failure or "The answer could not be saved."
