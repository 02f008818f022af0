"""Chat sessions and their messages, stored as trees (see :mod:`desktop.storage.tree`).

Nothing is overwritten: editing a user message or regenerating an answer adds a
sibling branch (:meth:`SessionStore.start_branch`, then save the new message);
:meth:`SessionStore.load_messages` gives the active branch, which is what the
model is sent. Deleting a chat moves it to the trash (:meth:`SessionStore.restore_session`
undoes it; :meth:`SessionStore.purge_deleted` empties the trash).
"""

from __future__ import annotations

import enum
import threading
import time
from collections.abc import Callable
from typing import Any

from desktop.core.errors import StorageError
from desktop.core.messages import new_id
from desktop.core.records import SessionInfo
from desktop.storage.branches import ActiveBranch, MessageTree
from desktop.storage.chat_order import LIST_ORDER, first_listed
from desktop.storage.database import Database
from desktop.storage.records import SessionRecord, read_record, with_new_ids, write_record
from desktop.storage.search import SearchHit, search_messages
from desktop.storage.session_rows import (
    DEFAULT_TITLE,
    INSERT_SESSION,
    SESSION_SELECT,
    clean_title,
    dumps,
    session_from_row,
    session_values,
)
from desktop.storage.tree import BranchPosition

__all__ = [
    "DEFAULT_TITLE",
    "UNSET",
    "ActiveBranch",
    "BranchPosition",
    "SessionInfo",
    "SessionStore",
]


class _Unset(enum.Enum):
    UNSET = "UNSET"


UNSET = _Unset.UNSET
"""Marker for "leave this field unchanged" in :meth:`SessionStore.update_session`."""


def _missing(session_id: str) -> StorageError:
    return StorageError(f"Chat {session_id} does not exist (it may have been deleted).",
                        code="chat_gone", params={"chat": session_id})


class SessionStore(MessageTree):
    """Sessions and their message trees on a :class:`Database`."""

    def __init__(self, db: Database, *, clock: Callable[[], float] = time.time) -> None:
        self._db = db
        self._clock = clock
        self._clock_lock = threading.Lock()
        self._last_now = 0.0

    @property
    def db(self) -> Database:
        return self._db

    # -- sessions ------------------------------------------------------------------

    def create_session(
        self,
        title: str = DEFAULT_TITLE,
        provider_id: str | None = None,
        model: str | None = None,
        workspace: str | None = None,
        *,
        extra: dict[str, Any] | None = None,
        system_prompt: str | None = None,
        assistant_id: str | None = None,
        project_id: str | None = None,
    ) -> SessionInfo:
        now = self._now()
        info = SessionInfo(
            id=new_id("ses_"),
            title=clean_title(title),
            created_at=now,
            updated_at=now,
            provider_id=provider_id,
            model=model,
            workspace=workspace,
            message_count=0,
            extra=dict(extra or {}),
            system_prompt=system_prompt,
            assistant_id=assistant_id,
            project_id=project_id,
        )
        self._db.execute(INSERT_SESSION, session_values(info))
        return info

    def get_session(self, session_id: str, *, include_deleted: bool = False) -> SessionInfo | None:
        """The session, or ``None`` if unknown (or in the trash, unless ``include_deleted``)."""
        row = self._db.query_one(f"{SESSION_SELECT} WHERE s.id = ?", (session_id,))
        if row is None or (row["deleted_at"] is not None and not include_deleted):
            return None
        return session_from_row(row)

    def list_sessions(self, *, archived: bool | None = False,
                      limit: int | None = None) -> list[SessionInfo]:
        """Sessions not in the trash: pinned first, then most recently updated.

        ``archived``: ``False`` (default) hides archived chats, ``True`` lists only
        them, ``None`` lists both. ``limit``: only the first so many (the chat list
        shows a page at a time: each message's count is read for those only).
        """
        where = "s.deleted_at IS NULL"
        if archived is not None:
            where += f" AND s.archived = {int(archived)}"
        if limit is None:
            rows = self._db.query(f"{SESSION_SELECT} WHERE {where} {LIST_ORDER}")
        else:  # the page's chats: the pinned ones, then the newest of the others
            rows = self._db.query(
                f"{SESSION_SELECT} WHERE s.rowid IN ({first_listed(where)}) {LIST_ORDER} LIMIT ?",
                (max(0, limit),) * 3)
        return [session_from_row(row) for row in rows]

    def has_sessions(self) -> bool:
        """Whether any chat is listed (not archived, not in the trash): one row read,
        where :meth:`list_sessions` reads and counts them all."""
        return self._db.query_one(
            "SELECT 1 FROM sessions WHERE deleted_at IS NULL AND archived = 0 LIMIT 1"
        ) is not None

    def list_deleted(self) -> list[SessionInfo]:
        """Sessions in the trash, most recently deleted first."""
        rows = self._db.query(
            f"{SESSION_SELECT} WHERE s.deleted_at IS NOT NULL ORDER BY s.deleted_at DESC"
        )
        return [session_from_row(row) for row in rows]

    def rename_session(self, session_id: str, title: str) -> SessionInfo:
        return self.update_session(session_id, title=title)

    def update_session(
        self,
        session_id: str,
        *,
        title: str | _Unset = UNSET,
        provider_id: str | _Unset | None = UNSET,
        model: str | _Unset | None = UNSET,
        workspace: str | _Unset | None = UNSET,
        extra: dict[str, Any] | _Unset = UNSET,
        system_prompt: str | _Unset | None = UNSET,
        assistant_id: str | _Unset | None = UNSET,
        project_id: str | _Unset | None = UNSET,
    ) -> SessionInfo:
        """Change the given fields (``None`` clears one) and bump ``updated_at``."""
        given: dict[str, object] = {
            "title": clean_title(title) if isinstance(title, str) else title,
            "provider_id": provider_id,
            "model": model,
            "workspace": workspace,
            "extra": dumps(extra) if isinstance(extra, dict) else extra,
            "system_prompt": system_prompt,
            "assistant_id": assistant_id,
            "project_id": project_id,
        }
        changes: dict[str, Any] = {k: v for k, v in given.items() if not isinstance(v, _Unset)}
        changes["updated_at"] = self._now()
        return self._set(session_id, changes)

    def set_pinned(self, session_id: str, pinned: bool) -> SessionInfo:
        """Pin or unpin (does not change the chat's place in "recent")."""
        return self._set(session_id, {"pinned": int(pinned)})

    def set_archived(self, session_id: str, archived: bool) -> SessionInfo:
        """Archive (hide from the main list) or bring back; ``updated_at`` is kept."""
        return self._set(session_id, {"archived": int(archived)})

    def delete_session(self, session_id: str) -> bool:
        """Move a chat to the trash; ``False`` if it does not exist or is already there."""
        return (
            self._db.execute(
                "UPDATE sessions SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL",
                (self._now(), session_id),
            )
            > 0
        )

    def restore_session(self, session_id: str) -> bool:
        """Undo :meth:`delete_session`; ``False`` if the chat is not in the trash."""
        return (
            self._db.execute(
                "UPDATE sessions SET deleted_at = NULL WHERE id = ? AND deleted_at IS NOT NULL",
                (session_id,),
            )
            > 0
        )

    def purge_deleted(self, *, older_than_s: float = 0.0, session_id: str | None = None) -> int:
        """Erase chats that have been in the trash longer than ``older_than_s`` seconds
        (only ``session_id`` when given). Returns how many were erased."""
        cutoff = self._now() - older_than_s
        sql = "DELETE FROM sessions WHERE deleted_at IS NOT NULL AND deleted_at <= ?"
        params: list[Any] = [cutoff]
        if session_id is not None:
            sql += " AND id = ?"
            params.append(session_id)
        return self._db.execute(sql, params)

    def duplicate_session(self, session_id: str, *, title: str | None = None) -> SessionInfo:
        """A copy of the chat with every branch (new ids), placed first in "recent"."""
        now = self._now()
        with self._db.transaction() as conn:
            record = read_record(conn, session_id)
            if record is None:
                raise _missing(session_id)
            copy = with_new_ids(
                record,
                title=clean_title(title or f"{record.info.title} (copy)"),
                created_at=now,
                updated_at=now,
                pinned=False,
                archived=False,
                deleted_at=None,
            )
            write_record(conn, copy)
        info = self.get_session(copy.info.id)
        if info is None:  # pragma: no cover - just written
            raise _missing(copy.info.id)
        return info

    # -- whole records (export / import) --------------------------------------------

    def export_record(self, session_id: str) -> SessionRecord:
        with self._db.snapshot() as conn:
            record = read_record(conn, session_id)
        if record is None:
            raise _missing(session_id)
        return record

    def import_record(self, record: SessionRecord) -> SessionInfo:
        """Store a record exactly as it is (raises if its ids are taken)."""
        with self._db.transaction() as conn:
            write_record(conn, record)
        info = self.get_session(record.info.id, include_deleted=True)
        if info is None:  # pragma: no cover - just written
            raise _missing(record.info.id)
        return info

    # -- search --------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        limit: int = 50,
        include_archived: bool = True,
        session_id: str | None = None,
    ) -> list[SearchHit]:
        """Full-text search over every branch of every chat not in the trash."""
        return search_messages(
            self._db, query, limit=limit, include_archived=include_archived, session_id=session_id
        )

    # -- helpers -------------------------------------------------------------------

    def _set(self, session_id: str, changes: dict[str, Any]) -> SessionInfo:
        assignments = ", ".join(f"{column} = :{column}" for column in changes)
        with self._db.transaction() as conn:
            cur = conn.execute(
                f"UPDATE sessions SET {assignments} WHERE id = :id", {**changes, "id": session_id}
            )
            if cur.rowcount == 0:
                raise _missing(session_id)
        info = self.get_session(session_id, include_deleted=True)
        if info is None:  # deleted concurrently
            raise _missing(session_id)
        return info

    def _now(self) -> float:
        """Wall-clock time, strictly increasing within this store (stable ordering)."""
        with self._clock_lock:
            now = self._clock()
            if now <= self._last_now:
                now = self._last_now + 1e-6
            self._last_now = now
            return now
