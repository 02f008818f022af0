"""Merge other devices' operations into this database (inside the caller's transaction).

* A field is written when its stamp is newer than the stamp of the value here
  (last writer wins per field), and not older than a deletion of its entity.
* A message is a tree node: added when missing, never changed; two devices'
  replies to the same message become siblings. A message whose parent was deleted
  is deleted too (deleting a message deletes what follows it).
* A deletion wins over older edits only: a chat or assistant edited after it was
  deleted elsewhere stays.

The writes made here are removed from ``sync_log`` so they are not sent back.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import msgspec

from desktop.storage import tree
from desktop.storage.session_rows import INSERT_MESSAGE
from desktop.sync import fields
from desktop.sync.changes import record_tombstone
from desktop.sync.clock import HybridClock
from desktop.sync.fields import MESSAGE, SESSION, SETTINGS
from desktop.sync.segments import Op


class MergeCounts(msgspec.Struct, weakref=True):
    """What merging other devices' changes did here."""

    messages: int = 0  # messages added
    fields: int = 0  # fields changed
    deleted: int = 0  # chats, messages and assistants deleted
    settings_changed: bool = False
    # Chats whose messages or fields changed: the window reopens the one on screen.
    chats: set[str] = msgspec.field(default_factory=set)

    @property
    def changed(self) -> bool:
        return bool(self.messages or self.fields or self.deleted or self.settings_changed)

    def summary(self) -> str:
        return f"{self.messages} messages added, {self.fields} fields, {self.deleted} deletions"


class Merger:
    """Applies batches of operations; call :meth:`finish` once after the last."""

    def __init__(self, conn: sqlite3.Connection, clock: HybridClock) -> None:
        self._conn = conn
        self._clock = clock
        self._log_start = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM sync_log").fetchone()[0]
        self._chats: dict[str, bool] = {}
        self.counts = MergeCounts()

    def apply(self, ops: list[Op]) -> None:
        field_ops = [op for op in ops if op[0] == "f" and len(op) == 6]
        deletions = [op for op in ops if op[0] == "t" and len(op) == 4]
        for op in field_ops:
            self._clock.observe(op[5])
            self._apply_field(op[1], op[2], op[3], op[4], op[5])
        for op in ops:
            if op[0] == "m" and len(op) == 3 and isinstance(op[2], dict):
                self._apply_message(str(op[1]), op[2])
        for op in deletions:
            self._clock.observe(op[3])
            self._apply_deletion(op[1], op[2], op[3])

    def finish(self) -> MergeCounts:
        tree.repair_leaves(self._conn)
        self._conn.execute("DELETE FROM sync_log WHERE seq > ?", (self._log_start,))
        return self.counts

    # -- fields --------------------------------------------------------------------

    def _apply_field(self, kind: str, entity_id: str, name: str, value: Any, stamp: str) -> None:
        local = self._conn.execute(
            "SELECT stamp FROM sync_fields WHERE kind = ? AND id = ? AND field = ?",
            (kind, entity_id, name),
        ).fetchone()
        if local is not None and local[0] >= stamp:
            return
        deleted = self._tombstone(kind, entity_id)
        if deleted is not None:
            if deleted >= stamp:
                return
            # Edited after it was deleted elsewhere: the edit wins, the entity returns.
            self._conn.execute(
                "DELETE FROM sync_tombstones WHERE kind = ? AND id = ?", (kind, entity_id)
            )
        if not fields.write_field(self._conn, kind, entity_id, name, value):
            return
        if kind == SESSION:
            self._chats[entity_id] = True
            self.counts.chats.add(entity_id)
        if kind == SETTINGS:
            self.counts.settings_changed = True
        now = fields.read_fields(self._conn, kind, [entity_id]).get(entity_id, {})
        self._conn.execute(
            "INSERT INTO sync_fields (kind, id, field, value, stamp) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (kind, id, field) DO UPDATE SET value = excluded.value, "
            "stamp = excluded.stamp",
            (kind, entity_id, name, fields.encode(now.get(name, value)), stamp),
        )
        self.counts.fields += 1

    # -- messages ------------------------------------------------------------------

    def _apply_message(self, chat_id: str, row: dict[str, Any]) -> None:
        message_id = row.get("id")
        if not isinstance(message_id, str) or self._exists(message_id):
            return
        parent = row.get("parent_id")
        deleted = self._tombstone(MESSAGE, message_id)
        parent_deleted = self._tombstone(MESSAGE, parent) if isinstance(parent, str) else None
        if deleted is not None or parent_deleted is not None:
            if parent_deleted is not None:
                record_tombstone(self._conn, MESSAGE, message_id, parent_deleted)
            return
        if not self._chat_exists(chat_id):
            return
        self._conn.execute(INSERT_MESSAGE, {**_message_defaults(), **row, "session_id": chat_id})
        self.counts.messages += 1
        self.counts.chats.add(chat_id)

    def _exists(self, message_id: str) -> bool:
        found = self._conn.execute("SELECT 1 FROM messages WHERE id = ?", (message_id,))
        return found.fetchone() is not None

    def _chat_exists(self, chat_id: str) -> bool:
        known = self._chats.get(chat_id)
        if known is None:
            found = self._conn.execute("SELECT 1 FROM sessions WHERE id = ?", (chat_id,))
            known = self._chats[chat_id] = found.fetchone() is not None
        return known

    # -- deletions -----------------------------------------------------------------

    def _apply_deletion(self, kind: str, entity_id: str, stamp: str) -> None:
        if kind == MESSAGE:
            self._delete_message(entity_id, stamp)
            return
        newest = self._conn.execute(
            "SELECT MAX(stamp) FROM sync_fields WHERE kind = ? AND id = ?", (kind, entity_id)
        ).fetchone()[0]
        if newest is not None and newest > stamp:
            return  # edited after the deletion: the edit wins
        existed = bool(fields.read_fields(self._conn, kind, [entity_id]))
        fields.delete_entity(self._conn, kind, entity_id)
        self._conn.execute(
            "DELETE FROM sync_fields WHERE kind = ? AND id = ?", (kind, entity_id)
        )
        record_tombstone(self._conn, kind, entity_id, stamp)
        if kind == SESSION:
            self._chats[entity_id] = False
            self.counts.chats.add(entity_id)
        self.counts.deleted += int(existed)

    def _delete_message(self, message_id: str, stamp: str) -> None:
        row = self._conn.execute(
            "SELECT session_id FROM messages WHERE id = ?", (message_id,)
        ).fetchone()
        doomed = [message_id]
        if row is not None:
            doomed = tree.subtree_ids(self._conn, str(row[0]), message_id)
            self._conn.executemany(
                "DELETE FROM messages WHERE id = ?", [(mid,) for mid in doomed]
            )
            self.counts.deleted += len(doomed)
            self.counts.chats.add(str(row[0]))
        for mid in doomed:
            record_tombstone(self._conn, MESSAGE, mid, stamp)

    def _tombstone(self, kind: str, entity_id: str) -> str | None:
        row = self._conn.execute(
            "SELECT stamp FROM sync_tombstones WHERE kind = ? AND id = ?", (kind, entity_id)
        ).fetchone()
        return str(row[0]) if row is not None else None


def _message_defaults() -> dict[str, Any]:
    return {
        "parent_id": None, "model": None, "provider": None, "usage": None, "error": None,
        "finish_reason": None, "parts": "[]", "provider_data": "{}", "selected_at": 0.0,
        "status": "complete", "role": "user", "created_at": 0.0,
    }
