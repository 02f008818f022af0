"""Which chats' active branch needs repair at start-up (a module of its own, with
nothing but sqlite3: the window's integrity check asks it on its thread before the app
is loaded; :func:`desktop.storage.tree.repair_leaves` repairs them)."""

from __future__ import annotations

import sqlite3


def stale_leaf_sessions(conn: sqlite3.Connection) -> list[tuple[str, str | None]]:
    """Sessions whose active leaf is missing, has children, or is unset while messages
    exist (left so by an edit or regeneration that never saved its first message)."""
    rows = conn.execute(
        """
        SELECT s.id, s.active_leaf_id FROM sessions s
        WHERE (s.active_leaf_id IS NULL
               AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id))
           OR (s.active_leaf_id IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM messages m
                               WHERE m.id = s.active_leaf_id AND m.session_id = s.id))
           OR EXISTS (SELECT 1 FROM messages c
                      WHERE c.session_id = s.id AND c.parent_id = s.active_leaf_id)
        """
    ).fetchall()
    return [(str(r[0]), r[1]) for r in rows]
