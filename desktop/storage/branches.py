"""Messages and branches of a session: the half of :class:`SessionStore` that edits trees.

See :mod:`desktop.storage.tree` for the model (parents, active leaf, remembered
forks) and :mod:`desktop.storage.sessions` for the store as a whole.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

import msgspec
from pydantic import ValidationError

from desktop.core.errors import StorageError
from desktop.core.messages import Message
from desktop.storage import tree
from desktop.storage.database import Database
from desktop.storage.session_rows import (
    INSERT_MESSAGE,
    MESSAGE_COLUMNS,
    UPDATE_MESSAGE,
    dumps,
    message_from_row,
    message_values,
    short_error,
)
from desktop.storage.tree import BranchPosition

log = logging.getLogger(__name__)


class ActiveBranch(msgspec.Struct, frozen=True):
    """The active branch of a session and the ‹ n/m › position of its forked messages."""

    messages: list[Message]
    positions: dict[str, BranchPosition]

    def position(self, message_id: str) -> BranchPosition | None:
        """``None`` when the message has no siblings."""
        return self.positions.get(message_id)


class MessageTree:
    """Message and branch operations; :class:`SessionStore` provides ``_db`` and ``_now``."""

    _db: Database

    def _now(self) -> float:  # pragma: no cover - provided by SessionStore
        raise NotImplementedError

    def load_messages(self, session_id: str) -> list[Message]:
        """The active branch, root first: what the model is sent."""
        return self.load_active_branch(session_id).messages

    def load_active_branch(self, session_id: str) -> ActiveBranch:
        with self._db.snapshot() as conn:
            row = conn.execute(
                "SELECT active_leaf_id FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            if row is None:
                return ActiveBranch([], {})
            ids = tree.path_ids(conn, session_id, row[0])
            forks = tree.positions(conn, session_id, ids)
            by_id = {
                m.id: m
                for m in self._messages_where(
                    "id IN (SELECT value FROM json_each(?))", (dumps(ids),), session_id
                )
            }
        return ActiveBranch([by_id[i] for i in ids if i in by_id], forks)

    def load_all_messages(self, session_id: str) -> list[Message]:
        """Every message of every branch, in creation order."""
        return self._messages_where("session_id = ?", (session_id,), session_id)

    def siblings(self, message_id: str) -> BranchPosition:
        """The message's place among its siblings (``1/1`` when it has none)."""
        row = self._db.query_one(
            "SELECT session_id, parent_id FROM messages WHERE id = ?", (message_id,)
        )
        if row is None:
            raise StorageError(f"Message {message_id} does not exist.",
                               code="message_gone", params={"message": message_id})
        with self._db.snapshot() as conn:
            ids = tree.children_ids(conn, row[0], row[1])
        return BranchPosition(ids.index(message_id) + 1, len(ids), tuple(ids))

    def save_message(self, session_id: str, message: Message) -> None:
        """Insert or update ``message`` (by id) in one short transaction.

        A new message is added after ``message.parent_id`` when set, else after the
        end of the active branch, and becomes the active leaf; ``message.parent_id``
        is filled in. An existing message keeps its place (its parent never changes).
        The session's ``updated_at`` is bumped.
        """
        with self._db.transaction() as conn:
            now = self._touch(conn, session_id)
            row = conn.execute(
                "SELECT session_id, parent_id FROM messages WHERE id = ?", (message.id,)
            ).fetchone()
            if row is None:
                parent = message.parent_id
                if parent is None:
                    parent = conn.execute(
                        "SELECT active_leaf_id FROM sessions WHERE id = ?", (session_id,)
                    ).fetchone()[0]
                self._insert(conn, session_id, message, parent, now)
                return
            if row[0] != session_id:
                raise StorageError(f"Cannot save message {message.id}: it belongs to another chat.",
                                   code="message_other_chat", params={"message": message.id})
            conn.execute(UPDATE_MESSAGE, message_values(session_id, message))
            message.parent_id = row[1]

    def add_message(self, session_id: str, message: Message, parent_id: str | None) -> None:
        """Add a new message as a child of ``parent_id`` (``None``: a first message)
        and make it the active leaf."""
        with self._db.transaction() as conn:
            now = self._touch(conn, session_id)
            if conn.execute("SELECT 1 FROM messages WHERE id = ?", (message.id,)).fetchone():
                raise StorageError(f"Message {message.id} already exists.",
                                   code="message_exists", params={"message": message.id})
            self._insert(conn, session_id, message, parent_id, now)

    def start_branch(self, session_id: str, message_id: str) -> list[Message]:
        """Prepare an edit or a regeneration of ``message_id``: the next new message
        saved in this chat becomes its sibling. Returns the history before it (the
        active branch up to its parent), to hand to the orchestrator."""
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT parent_id FROM messages WHERE id = ? AND session_id = ?",
                (message_id, session_id),
            ).fetchone()
            if row is None:
                raise StorageError(f"Message {message_id} is not in chat {session_id}.",
                                   code="message_not_in_chat",
                                   params={"message": message_id, "chat": session_id})
            tree.set_leaf(conn, session_id, row[0])
        return self.load_messages(session_id)

    def switch_branch(self, session_id: str, message_id: str) -> ActiveBranch:
        """Show the branch through ``message_id`` (a sibling picked in ‹ n/m ›, or a
        search hit): below it, each fork's remembered branch is followed."""
        with self._db.transaction() as conn:
            if not conn.execute(
                "SELECT 1 FROM messages WHERE id = ? AND session_id = ?", (message_id, session_id)
            ).fetchone():
                raise StorageError(f"Message {message_id} is not in chat {session_id}.",
                                   code="message_not_in_chat",
                                   params={"message": message_id, "chat": session_id})
            tree.mark_selected(conn, session_id, message_id, self._now())
            tree.set_leaf(conn, session_id, tree.descend(conn, session_id, message_id))
        return self.load_active_branch(session_id)

    def step_branch(self, session_id: str, message_id: str, step: int) -> ActiveBranch:
        """Switch to the sibling ``step`` places away (‹ is -1, › is +1), clamped."""
        position = self.siblings(message_id)
        index = min(max(position.index - 1 + step, 0), position.count - 1)
        return self.switch_branch(session_id, position.sibling_ids[index])

    def delete_message(self, message_id: str) -> bool:
        """Delete a message and everything that follows it (its branch)."""
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT session_id, parent_id FROM messages WHERE id = ?", (message_id,)
            ).fetchone()
            if row is None:
                return False
            session_id, parent_id = row[0], row[1]
            doomed = tree.subtree_ids(conn, session_id, message_id)
            conn.execute(
                "DELETE FROM messages WHERE id IN (SELECT value FROM json_each(?))",
                (dumps(doomed),),
            )
            leaf = conn.execute(
                "SELECT active_leaf_id FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()[0]
            if leaf is None or leaf in doomed:
                tree.set_leaf(conn, session_id, tree.descend(conn, session_id, parent_id))
            self._touch(conn, session_id)
            return True

    def mark_interrupted(self, stale_leaves: list[tuple[str, str | None]] | None = None,
                         ) -> int:
        """Startup recovery, once, by the instance holding the instance lock, before any
        new stream begins: messages left ``streaming`` by a crashed run become
        ``interrupted``, and a branch left half-started (an edit or regeneration whose
        first message was never saved) falls back to the branch it came from.
        ``stale_leaves``: those branches, when the window's integrity check already
        found them on its thread (the search reads every chat: ~40-170 ms at 10,000
        chats). Returns how many messages were marked."""
        with self._db.transaction() as conn:
            count = conn.execute(
                "UPDATE messages SET status = 'interrupted' WHERE status = 'streaming'"
            ).rowcount
            repaired = tree.repair_leaves(conn, stale_leaves)
        if count:
            log.info(
                "Marked %d message(s) left streaming by the previous run as interrupted", count
            )
        if repaired:
            log.info("Restored the active branch of %d chat(s)", repaired)
        return count

    # -- helpers -------------------------------------------------------------------

    def _touch(self, conn: sqlite3.Connection, session_id: str) -> float:
        now = self._now()
        cur = conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now, session_id))
        if cur.rowcount == 0:
            raise StorageError(f"Cannot save the message: chat {session_id} does not exist.",
                               code="chat_gone", params={"chat": session_id})
        return now

    @staticmethod
    def _insert(
        conn: sqlite3.Connection, session_id: str, message: Message, parent: str | None, now: float
    ) -> None:
        if (
            parent is not None
            and not conn.execute(
                "SELECT 1 FROM messages WHERE id = ? AND session_id = ?", (parent, session_id)
            ).fetchone()
        ):
            raise StorageError(
                f"Cannot add message {message.id}: its parent {parent} is not in chat "
                f"{session_id}.",
                code="message_parent_missing",
                params={"message": message.id, "parent": parent, "chat": session_id}
            )
        message.parent_id = parent
        values = message_values(session_id, message)
        values["selected_at"] = now
        conn.execute(INSERT_MESSAGE, values)
        tree.set_leaf(conn, session_id, message.id)

    def _messages_where(
        self, where: str, params: tuple[Any, ...], session_id: str
    ) -> list[Message]:
        rows = self._db.query(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE {where} ORDER BY seq", params
        )
        messages: list[Message] = []
        for row in rows:
            try:
                messages.append(message_from_row(row))
            except (ValueError, ValidationError) as exc:
                log.warning(
                    "Skipping unreadable message %s in chat %s: %s",
                    row["id"],
                    session_id,
                    short_error(exc),
                )
        return messages
