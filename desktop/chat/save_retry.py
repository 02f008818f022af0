"""Saving again the messages of a turn whose saves failed (the window's Retry).

The messages are whole (the recorder kept them in memory, see
:class:`desktop.chat.events.SaveFailed`); they are stored in order, off the event
loop, each replacing what an earlier attempt may have stored of it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from desktop.core.messages import Message
from desktop.storage.sessions import SessionStore


async def store_messages(sessions: SessionStore, session_id: str,
                         messages: Sequence[Message]) -> None:
    """Store ``messages`` of ``session_id``; raises what the store raises (nothing
    stored is lost: a retry stores the same messages again)."""
    batch = list(messages)

    def save_all() -> None:
        for message in batch:
            sessions.save_message(session_id, message)

    await asyncio.to_thread(save_all)
