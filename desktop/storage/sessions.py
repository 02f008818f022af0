"""Chat sessions and their messages.

Messages are stored one row each, ordered by ``seq`` (assigned on first save
and never changed). Parts are stored as the JSON of the pydantic models, so
``Message.model_validate`` gives back an equal message.
"""

from __future__ import annotations

import enum
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from desktop.core.errors import StorageError
from desktop.core.messages import Message, new_id
from desktop.storage.database import Database

log = logging.getLogger(__name__)

DEFAULT_TITLE = "New chat"


class _Unset(enum.Enum):
    UNSET = "UNSET"


UNSET = _Unset.UNSET
"""Marker for "leave this field unchanged" in :meth:`SessionStore.update_session`."""


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    title: str
    created_at: float
    updated_at: float
    provider_id: str | None = None
    model: str | None = None
    workspace: str | None = None
    message_count: int | None = None
    extra: dict[str, Any] = field(default_factory=dict, hash=False)


_SESSION_COLUMNS = "id, title, created_at, updated_at, provider_id, model, workspace, extra"

_UPSERT_MESSAGE = """
INSERT INTO messages (id, session_id, seq, role, status, created_at, model, provider,
                      usage, error, finish_reason, parts)
VALUES (:id, :session_id,
        (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = :session_id),
        :role, :status, :created_at, :model, :provider, :usage, :error, :finish_reason, :parts)
ON CONFLICT (id) DO UPDATE SET
    role = excluded.role, status = excluded.status, created_at = excluded.created_at,
    model = excluded.model, provider = excluded.provider, usage = excluded.usage,
    error = excluded.error, finish_reason = excluded.finish_reason, parts = excluded.parts
WHERE messages.session_id = excluded.session_id
"""

_MESSAGE_COLUMNS = (
    "id, role, status, created_at, model, provider, usage, error, finish_reason, parts"
)


class SessionStore:
    """CRUD for sessions and messages on a :class:`Database`."""

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
    ) -> SessionInfo:
        now = self._now()
        info = SessionInfo(
            id=new_id("ses_"),
            title=_clean_title(title),
            created_at=now,
            updated_at=now,
            provider_id=provider_id,
            model=model,
            workspace=workspace,
            message_count=0,
            extra=dict(extra or {}),
        )
        self._db.execute(
            f"INSERT INTO sessions ({_SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                info.id,
                info.title,
                info.created_at,
                info.updated_at,
                info.provider_id,
                info.model,
                info.workspace,
                _dumps(info.extra),
            ),
        )
        return info

    def get_session(self, session_id: str) -> SessionInfo | None:
        row = self._db.query_one(
            f"SELECT {_SESSION_COLUMNS}, "
            "(SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count "
            "FROM sessions s WHERE id = ?",
            (session_id,),
        )
        return _session_from_row(row) if row is not None else None

    def list_sessions(self) -> list[SessionInfo]:
        """All sessions, most recently updated first."""
        rows = self._db.query(
            f"SELECT {_SESSION_COLUMNS}, "
            "(SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count "
            "FROM sessions s ORDER BY updated_at DESC, created_at DESC, rowid DESC"
        )
        return [_session_from_row(row) for row in rows]

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
    ) -> SessionInfo:
        """Change the given fields (``None`` clears one); raise if the session is gone."""
        changes: dict[str, Any] = {}
        if not isinstance(title, _Unset):
            changes["title"] = _clean_title(title)
        if not isinstance(provider_id, _Unset):
            changes["provider_id"] = provider_id
        if not isinstance(model, _Unset):
            changes["model"] = model
        if not isinstance(workspace, _Unset):
            changes["workspace"] = workspace
        if not isinstance(extra, _Unset):
            changes["extra"] = _dumps(extra)
        changes["updated_at"] = self._now()
        assignments = ", ".join(f"{column} = :{column}" for column in changes)
        with self._db.transaction() as conn:
            cur = conn.execute(
                f"UPDATE sessions SET {assignments} WHERE id = :id", {**changes, "id": session_id}
            )
            if cur.rowcount == 0:
                raise StorageError(f"Chat {session_id} does not exist (it may have been deleted).")
        info = self.get_session(session_id)
        if info is None:  # deleted concurrently
            raise StorageError(f"Chat {session_id} does not exist (it may have been deleted).")
        return info

    def delete_session(self, session_id: str) -> bool:
        """Delete a session and its messages; ``False`` if it did not exist."""
        return self._db.execute("DELETE FROM sessions WHERE id = ?", (session_id,)) > 0

    # -- messages ------------------------------------------------------------------

    def load_messages(self, session_id: str) -> list[Message]:
        """The session's messages in order. Unreadable rows are skipped with a warning."""
        rows = self._db.query(
            f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE session_id = ? ORDER BY seq",
            (session_id,),
        )
        messages: list[Message] = []
        for row in rows:
            try:
                messages.append(_message_from_row(row))
            except (ValueError, ValidationError) as exc:
                log.warning(
                    "Skipping unreadable message %s in chat %s: %s",
                    row["id"],
                    session_id,
                    _short_error(exc),
                )
        return messages

    def save_message(self, session_id: str, message: Message) -> None:
        """Insert or update ``message`` (by id) in one short transaction.

        A new message is appended after the session's last one; an existing one
        keeps its position. The session's ``updated_at`` is bumped.
        """
        values = _message_values(session_id, message)
        now = self._now()
        with self._db.transaction() as conn:
            cur = conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now, session_id))
            if cur.rowcount == 0:
                raise StorageError(f"Cannot save the message: chat {session_id} does not exist.")
            cur = conn.execute(_UPSERT_MESSAGE, values)
            if cur.rowcount == 0:
                raise StorageError(f"Cannot save message {message.id}: it belongs to another chat.")

    def delete_message(self, message_id: str) -> bool:
        """Delete one message; ``False`` if it did not exist."""
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT session_id FROM messages WHERE id = ?", (message_id,)
            ).fetchone()
            if row is None:
                return False
            conn.execute("DELETE FROM messages WHERE id = ?", (message_id,))
            conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (self._now(), row[0]))
            return True

    def mark_interrupted(self) -> int:
        """Turn messages left ``streaming`` by a crashed run into ``interrupted``.

        Call once at startup, before any new stream begins. Returns the count.
        """
        count = self._db.execute(
            "UPDATE messages SET status = 'interrupted' WHERE status = 'streaming'"
        )
        if count:
            log.info(
                "Marked %d message(s) left streaming by the previous run as interrupted", count
            )
        return count

    # -- helpers -------------------------------------------------------------------

    def _now(self) -> float:
        """Wall-clock time, strictly increasing within this store (stable ordering)."""
        with self._clock_lock:
            now = self._clock()
            if now <= self._last_now:
                now = self._last_now + 1e-6
            self._last_now = now
            return now


def _clean_title(title: str) -> str:
    cleaned = " ".join(title.split())
    return cleaned or DEFAULT_TITLE


def _dumps(value: Any) -> str:
    # ASCII escapes keep lone surrogates (broken streams) storable and lossless.
    return json.dumps(value, separators=(",", ":"))


def _short_error(exc: Exception) -> str:
    text = str(exc).splitlines()
    return text[0] if text else type(exc).__name__


def _session_from_row(row: sqlite3.Row) -> SessionInfo:
    try:
        extra = json.loads(row["extra"]) if row["extra"] else {}
    except ValueError:
        extra = {}
    if not isinstance(extra, dict):
        extra = {}
    return SessionInfo(
        id=row["id"],
        title=row["title"],
        created_at=float(row["created_at"]),
        updated_at=float(row["updated_at"]),
        provider_id=row["provider_id"],
        model=row["model"],
        workspace=row["workspace"],
        message_count=int(row["message_count"]),
        extra=extra,
    )


def _message_values(session_id: str, message: Message) -> dict[str, Any]:
    data = message.model_dump(mode="json")
    return {
        "id": message.id,
        "session_id": session_id,
        "role": message.role,
        "status": message.status,
        "created_at": message.created_at,
        "model": message.model,
        "provider": message.provider,
        "usage": _dumps(data["usage"]) if data["usage"] is not None else None,
        "error": message.error,
        "finish_reason": message.finish_reason,
        "parts": _dumps(data["parts"]),
    }


def _message_from_row(row: sqlite3.Row) -> Message:
    return Message.model_validate(
        {
            "id": row["id"],
            "role": row["role"],
            "status": row["status"],
            "created_at": row["created_at"],
            "model": row["model"],
            "provider": row["provider"],
            "usage": json.loads(row["usage"]) if row["usage"] else None,
            "error": row["error"],
            "finish_reason": row["finish_reason"],
            "parts": json.loads(row["parts"]) if row["parts"] else [],
        }
    )
