"""Conversation trees: the SQL behind branches (used inside the stores' transactions).

Every message has a ``parent_id`` (``None`` for a first message) and never
changes parent, so the messages of a session form a forest. Siblings (same
parent) are alternative branches, ordered by creation (``seq``). Each session
records its active leaf; the active branch is the path from the root to it.
At every fork the child with the greatest ``selected_at`` (set when a message
is created and when the user switches to it) is the one to follow when the
active branch must continue below a message: this is how a fork remembers the
branch last shown there.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

import msgspec

from desktop.storage.stale_leaves import stale_leaf_sessions

MAX_DEPTH = 1_000_000  # guards the recursive queries against a (corrupt) cycle


class BranchPosition(msgspec.Struct, frozen=True):
    """Where a message stands among its siblings: ``index`` of ``count`` (1-based)."""

    index: int
    count: int
    sibling_ids: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"{self.index}/{self.count}"

    @property
    def previous_id(self) -> str | None:
        return self.sibling_ids[self.index - 2] if self.index > 1 else None

    @property
    def next_id(self) -> str | None:
        return self.sibling_ids[self.index] if self.index < self.count else None


_PATH_SQL = f"""
WITH RECURSIVE up (id, parent_id, depth) AS (
    SELECT id, parent_id, 0 FROM messages WHERE id = :leaf AND session_id = :sid
    UNION ALL
    SELECT m.id, m.parent_id, up.depth + 1 FROM messages m JOIN up ON m.id = up.parent_id
    WHERE up.depth < {MAX_DEPTH}
)
SELECT id FROM up ORDER BY depth DESC
"""

_DESCEND_SQL = f"""
WITH RECURSIVE down (id, depth) AS (
    SELECT :start, 0
    UNION ALL
    SELECT (SELECT c.id FROM messages c WHERE c.session_id = :sid AND c.parent_id = down.id
            ORDER BY c.selected_at DESC, c.seq DESC LIMIT 1), down.depth + 1
    FROM down WHERE down.id IS NOT NULL AND down.depth < {MAX_DEPTH}
)
SELECT id FROM down WHERE id IS NOT NULL ORDER BY depth DESC LIMIT 1
"""

_SUBTREE_SQL = f"""
WITH RECURSIVE sub (id, depth) AS (
    SELECT id, 0 FROM messages WHERE id = :id AND session_id = :sid
    UNION ALL
    SELECT m.id, sub.depth + 1 FROM messages m JOIN sub ON m.parent_id = sub.id
    WHERE m.session_id = :sid AND sub.depth < {MAX_DEPTH}
)
SELECT id FROM sub
"""


def path_ids(conn: sqlite3.Connection, session_id: str, leaf_id: str | None) -> list[str]:
    """Ids from the root down to ``leaf_id`` (empty for ``None`` or an unknown id)."""
    if leaf_id is None:
        return []
    rows = conn.execute(_PATH_SQL, {"leaf": leaf_id, "sid": session_id}).fetchall()
    return [str(r[0]) for r in rows]


def first_root(conn: sqlite3.Connection, session_id: str) -> str | None:
    """The first message to follow at the top level (the most recently selected root)."""
    row = conn.execute(
        "SELECT id FROM messages WHERE session_id = ? AND parent_id IS NULL "
        "ORDER BY selected_at DESC, seq DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    return str(row[0]) if row else None


def descend(conn: sqlite3.Connection, session_id: str, start_id: str | None) -> str | None:
    """The leaf reached from ``start_id`` by following each fork's selected child.

    ``None`` starts at the top level; the result is ``None`` only for an empty session.
    """
    if start_id is None:
        start_id = first_root(conn, session_id)
        if start_id is None:
            return None
    row = conn.execute(_DESCEND_SQL, {"start": start_id, "sid": session_id}).fetchone()
    return str(row[0]) if row else start_id


def children_ids(conn: sqlite3.Connection, session_id: str, parent_id: str | None) -> list[str]:
    """The children of ``parent_id`` (roots for ``None``), oldest first."""
    if parent_id is None:
        rows = conn.execute(
            "SELECT id FROM messages WHERE session_id = ? AND parent_id IS NULL ORDER BY seq",
            (session_id,),
        ).fetchall()
    else:
        rows = conn.execute(
            "SELECT id FROM messages WHERE session_id = ? AND parent_id = ? ORDER BY seq",
            (session_id, parent_id),
        ).fetchall()
    return [str(r[0]) for r in rows]


def subtree_ids(conn: sqlite3.Connection, session_id: str, message_id: str) -> list[str]:
    """``message_id`` and all its descendants."""
    rows = conn.execute(_SUBTREE_SQL, {"id": message_id, "sid": session_id}).fetchall()
    return [str(r[0]) for r in rows]


def positions(
    conn: sqlite3.Connection, session_id: str, message_ids: Iterable[str]
) -> dict[str, BranchPosition]:
    """Branch positions of the given messages that have siblings."""
    wanted = set(message_ids)
    if not wanted:
        return {}
    groups: dict[str | None, list[str]] = {}
    for row in conn.execute(
        "SELECT id, parent_id FROM messages WHERE session_id = ? ORDER BY seq", (session_id,)
    ):
        groups.setdefault(row[1], []).append(str(row[0]))
    result: dict[str, BranchPosition] = {}
    for ids in groups.values():
        if len(ids) < 2:
            continue
        for i, mid in enumerate(ids):
            if mid in wanted:
                result[mid] = BranchPosition(index=i + 1, count=len(ids), sibling_ids=tuple(ids))
    return result


def mark_selected(conn: sqlite3.Connection, session_id: str, message_id: str, now: float) -> None:
    """Make ``message_id`` and its ancestors the selected child at each of their forks."""
    conn.execute(
        f"UPDATE messages SET selected_at = :now WHERE id IN ({_PATH_SQL})",
        {"now": now, "leaf": message_id, "sid": session_id},
    )


def set_leaf(conn: sqlite3.Connection, session_id: str, leaf_id: str | None) -> None:
    conn.execute("UPDATE sessions SET active_leaf_id = ? WHERE id = ?", (leaf_id, session_id))


def repair_leaves(conn: sqlite3.Connection,
                  stale: list[tuple[str, str | None]] | None = None) -> int:
    """Point every stale active leaf at a real leaf (see :func:`stale_leaf_sessions`;
    ``stale``: what it returned, when already asked on another connection)."""
    if stale is None:
        stale = stale_leaf_sessions(conn)
    for session_id, leaf in stale:
        exists = (
            leaf is not None
            and conn.execute(
                "SELECT 1 FROM messages WHERE id = ? AND session_id = ?", (leaf, session_id)
            ).fetchone()
        )
        set_leaf(conn, session_id, descend(conn, session_id, leaf if exists else None))
    return len(stale)
