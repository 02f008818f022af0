"""The newest chats, read before the app has loaded, for the window's first list.

:func:`read_first_chats` reads one screenful of the chat list straight from the
database file with ``sqlite3`` (read-only, one indexed query, no models, no
migrations), in the order the full list uses (pinned first, then the most recently
changed), so the window lists the user's chats while the rest of the app is still
being imported. Anything missing or unreadable gives no chats (the real open that
follows reports a damaged file); the full list replaces this one once it is loaded.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from desktop.core.first_frame import FirstChat
from desktop.storage.chat_order import LIST_ORDER, first_listed

__all__ = ["FIRST_CHATS", "FirstChat", "read_first_chats"]

#: Enough rows to fill the chat list of a tall window
FIRST_CHATS = 60

#: The chats the list shows (not archived, not in the trash)
LISTED = "s.deleted_at IS NULL AND s.archived = 0"


def read_first_chats(db_path: Path, limit: int = FIRST_CHATS) -> list[FirstChat]:
    """The first ``limit`` chats of the chat list (not archived, not in the trash)."""
    if not db_path.is_file():
        return []
    try:
        con = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True, timeout=0.5)
        try:
            rows = con.execute(
                "SELECT s.id, s.title, s.pinned, s.created_at, s.updated_at FROM sessions s "
                f"WHERE s.rowid IN ({first_listed(LISTED)}) {LIST_ORDER} LIMIT ?",
                (limit,) * 3).fetchall()
        finally:
            con.close()
    except sqlite3.Error as exc:  # (an old or damaged file: the real open says what)
        logging.getLogger(__name__).info("first chats not read before start (%s)", exc)
        return []
    return [FirstChat(str(id_), str(title), bool(pinned), float(created), float(updated))
            for id_, title, pinned, created, updated in rows]
