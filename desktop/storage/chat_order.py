"""The chat list's order, and the SQL that reads its first chats without sorting all.

The list shows pinned chats first, then the most recently changed (ties: the newest
made, then the last inserted). Sorting every chat for a page of them was 7-15 ms at
10,000 chats, at each listing (the window lists them at start and again when a
question is sent). :func:`first_listed` reads the pinned ones (few: a scan without a
sort) and the newest of the others along the ``sessions_by_updated`` index, stopping
after the page: ~1.5 ms. Plain SQL (no models): the window's first list uses it
before the app has loaded (:mod:`desktop.storage.first_chats`).
"""

from __future__ import annotations

__all__ = ["LIST_ORDER", "NEWEST_FIRST", "first_listed"]

#: Among chats pinned alike (columns of ``sessions`` under the alias ``s``)
NEWEST_FIRST = "s.updated_at DESC, s.created_at DESC, s.num DESC"

#: The chat list's order
LIST_ORDER = f"ORDER BY s.pinned DESC, {NEWEST_FIRST}"


def first_listed(where: str) -> str:
    """A query of the rowids of the first chats matching ``where`` (SQL on ``sessions s``)
    in the list's order, as many as its two ``?`` say (give the same number twice):
    the pinned ones, then the others, each part already in order and limited, so it
    reads no more than that many of each (ordering them together is the caller's)."""
    return (f"SELECT rowid FROM (SELECT s.rowid FROM sessions s WHERE ({where}) "
            f"AND s.pinned != 0 {LIST_ORDER} LIMIT ?) UNION ALL "
            f"SELECT rowid FROM (SELECT s.rowid FROM sessions s WHERE ({where}) "
            f"AND s.pinned = 0 ORDER BY {NEWEST_FIRST} LIMIT ?)")
