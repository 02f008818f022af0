"""The request inspector's database: ``inspector.sqlite`` next to the chats database.

A file of its own: recorded requests carry whole conversations and every stream
chunk, so they would swell the chats database, its backups and sync. Rows are
redacted before they are written (see :mod:`desktop.core.exchange`); retention
deletes the oldest exchanges by age and by file size, and the freed pages are given
back to the file system (incremental auto-vacuum).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from desktop.core.errors import StorageError
from desktop.core.exchange import (
    CaptureBatch,
    ExchangeHead,
    ExchangeTail,
    redact_headers,
    redact_text,
    redact_url,
    secret_values,
)
from desktop.storage.inspector_records import ExchangeRecord, record_from_row
from desktop.storage.sqlite_files import connect_read_only

__all__ = ["INSPECTOR_FILENAME", "InspectorStore"]

INSPECTOR_FILENAME = "inspector.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS exchanges (
    id TEXT PRIMARY KEY,
    started_at REAL NOT NULL,
    session_id TEXT,
    message_id TEXT,
    provider TEXT NOT NULL,
    provider_id TEXT,
    kind TEXT NOT NULL,
    model TEXT NOT NULL,
    method TEXT NOT NULL,
    url TEXT NOT NULL,
    request_headers TEXT NOT NULL,
    request_body BLOB NOT NULL,
    chat_request TEXT,
    status INTEGER,
    response_headers TEXT NOT NULL DEFAULT '[]',
    retries TEXT NOT NULL DEFAULT '[]',
    headers_s REAL,
    first_token_s REAL,
    last_token_s REAL,
    end_s REAL,
    output_tokens INTEGER,
    tokens_estimated INTEGER NOT NULL DEFAULT 0,
    answer_text TEXT NOT NULL DEFAULT '',
    error TEXT,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS exchanges_by_message ON exchanges(message_id, started_at);
CREATE INDEX IF NOT EXISTS exchanges_by_session ON exchanges(session_id, started_at);
CREATE INDEX IF NOT EXISTS exchanges_by_age ON exchanges(started_at);
CREATE TABLE IF NOT EXISTS chunks (
    exchange_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    at_s REAL NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (exchange_id, seq)
) WITHOUT ROWID;
"""


class InspectorStore:
    """One connection, shared by the writer thread and readers under a lock."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        """``read_only``: the file as it is, never written (none yet reads as empty)."""
        self.path = path
        self._lock = threading.RLock()
        try:
            if read_only and path.is_file():
                self._conn = connect_read_only(path, 5.0)
                return
            self._conn = sqlite3.connect(":memory:" if read_only else path,
                                         check_same_thread=False, timeout=5.0,
                                         isolation_level=None)
            self._conn.execute("PRAGMA auto_vacuum = INCREMENTAL")  # before any table
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open the request inspector's database {path}: "
                               f"{exc}",
                               code="inspector_db_failed",
                               params={"path": str(path), "detail": str(exc)}) from exc

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # -- writing (the writer thread)

    def write(self, batch: CaptureBatch, secrets: Iterable[str] = ()) -> None:
        """Store one batch of a capture, redacted, in one transaction."""
        known = secret_values([*batch.secrets, *secrets])
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            if batch.head is not None:
                self._insert_head(batch.head, known)
            if batch.chunks:
                self._conn.executemany(
                    "INSERT OR REPLACE INTO chunks (exchange_id, seq, at_s, data) "
                    "VALUES (?, ?, ?, ?)",
                    [(batch.exchange_id, batch.first_seq + i, at, _redact_bytes(data, known))
                     for i, (at, data) in enumerate(batch.chunks)])
            if batch.tail is not None:
                self._update_tail(batch.exchange_id, batch.tail, known)

    def _insert_head(self, head: ExchangeHead, known: tuple[str, ...]) -> None:
        chat = head.chat_request() if callable(head.chat_request) else head.chat_request
        self._conn.execute(
            "INSERT OR REPLACE INTO exchanges (id, started_at, session_id, message_id, "
            "provider, provider_id, kind, model, method, url, request_headers, request_body, "
            "chat_request) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (head.id, head.started_at, head.session_id, head.message_id, head.provider,
             head.provider_id, head.kind, head.model, head.method,
             redact_url(head.url, known),
             json.dumps(redact_headers(head.headers, known)),
             _redact_bytes(head.body, known),
             redact_text(json.dumps(chat, ensure_ascii=False), known) if chat else None))

    def _update_tail(self, exchange_id: str, tail: ExchangeTail, known: tuple[str, ...]) -> None:
        retries = [{"at_s": r.at_s, "attempt": r.attempt, "delay_s": r.delay_s,
                    "reason": redact_text(r.reason, known)} for r in tail.retries]
        self._conn.execute(
            "UPDATE exchanges SET status = ?, response_headers = ?, retries = ?, headers_s = ?, "
            "first_token_s = ?, last_token_s = ?, end_s = ?, output_tokens = ?, "
            "tokens_estimated = ?, answer_text = ?, error = ?, finished = 1 WHERE id = ?",
            (tail.status, json.dumps(redact_headers(tail.headers, known)), json.dumps(retries),
             tail.headers_s, tail.first_token_s, tail.last_token_s, tail.end_s,
             tail.output_tokens, int(tail.tokens_estimated),
             redact_text(tail.answer_text, known),
             redact_text(tail.error, known) if tail.error else None, exchange_id))

    # -- retention

    def size_bytes(self) -> int:
        """The bytes the data takes (pages in use), what the MB limit counts."""
        with self._lock:
            pages = self._conn.execute("PRAGMA page_count").fetchone()[0]
            free = self._conn.execute("PRAGMA freelist_count").fetchone()[0]
            size = self._conn.execute("PRAGMA page_size").fetchone()[0]
        return int((pages - free) * size)

    def enforce_retention(self, max_days: float, max_bytes: int,
                          now: float | None = None) -> int:
        """Delete exchanges older than ``max_days`` and then the oldest until the data
        fits ``max_bytes``; the number deleted."""
        cutoff = (time.time() if now is None else now) - max_days * 86400
        with self._lock:
            deleted = self._delete("SELECT id FROM exchanges WHERE started_at < ?", (cutoff,))
            while self.size_bytes() > max_bytes:
                # A tenth of what is left at a time (at least one): few rounds, no overshoot.
                count = self._conn.execute("SELECT COUNT(*) FROM exchanges").fetchone()[0]
                if not count:
                    break
                deleted += self._delete(
                    "SELECT id FROM exchanges ORDER BY started_at LIMIT ?",
                    (max(1, count // 10),))
            if deleted:
                self._conn.execute("PRAGMA incremental_vacuum")
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return deleted

    def _delete(self, select: str, params: Sequence[Any]) -> int:
        with self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            ids = [row[0] for row in self._conn.execute(select, params)]
            self._conn.executemany("DELETE FROM chunks WHERE exchange_id = ?",
                                   [(i,) for i in ids])
            self._conn.executemany("DELETE FROM exchanges WHERE id = ?", [(i,) for i in ids])
        return len(ids)

    # -- reading

    def for_messages(self, message_ids: Sequence[str]) -> list[ExchangeRecord]:
        """The exchanges that produced these answers, oldest first (chunks included)."""
        if not message_ids:
            return []
        marks = ",".join("?" * len(message_ids))
        return self._records(f"SELECT * FROM exchanges WHERE message_id IN ({marks}) "
                             "ORDER BY started_at", message_ids)

    def for_session(self, session_id: str) -> list[ExchangeRecord]:
        return self._records("SELECT * FROM exchanges WHERE session_id = ? "
                             "ORDER BY started_at", (session_id,))

    def get(self, exchange_id: str) -> ExchangeRecord | None:
        found = self._records("SELECT * FROM exchanges WHERE id = ?", (exchange_id,))
        return found[0] if found else None

    def count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM exchanges").fetchone()[0])

    def _records(self, sql: str, params: Sequence[Any]) -> list[ExchangeRecord]:
        with self._lock:
            cursor = self._conn.execute(sql, params)
            names = [d[0] for d in cursor.description]
            rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
            chunks = {row["id"]: self._conn.execute(
                "SELECT at_s, data FROM chunks WHERE exchange_id = ? ORDER BY seq",
                (row["id"],)).fetchall() for row in rows}
        return [record_from_row(row, chunks[row["id"]]) for row in rows]


def _redact_bytes(data: bytes, secrets: tuple[str, ...]) -> bytes:
    """``data`` unchanged unless a secret is in it (then as UTF-8 text, redacted)."""
    if not any(s and len(s) >= 4 and s.encode() in data for s in secrets):
        return bytes(data)
    return redact_text(data.decode("utf-8", "replace"), secrets).encode()
