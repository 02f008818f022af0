"""Numbered schema migrations.

Each migration is ``(version, step)`` where ``step`` is SQL text (one or more
statements) or a callable receiving the open :class:`sqlite3.Connection`.
:class:`desktop.storage.database.Database` applies every missing version in
order, each in its own transaction together with its ``schema_migrations`` row.

Never edit a released migration: append a new one. JSON columns are declared
``TEXT`` on purpose: a declared type ``JSON`` would get NUMERIC affinity and
SQLite would turn a stored ``'5'`` into the integer 5.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import NamedTuple

MigrationStep = str | Callable[[sqlite3.Connection], None]


class Migration(NamedTuple):
    version: int
    step: MigrationStep


SCHEMA_V1 = """
CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,
    title       TEXT NOT NULL DEFAULT 'New chat',
    created_at  REAL NOT NULL,
    updated_at  REAL NOT NULL,
    provider_id TEXT,
    model       TEXT,
    workspace   TEXT,
    extra       TEXT NOT NULL DEFAULT '{}'          -- JSON object
);
CREATE INDEX sessions_by_updated ON sessions (updated_at DESC);

CREATE TABLE messages (
    id            TEXT PRIMARY KEY,
    session_id    TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    role          TEXT NOT NULL,
    status        TEXT NOT NULL,
    created_at    REAL NOT NULL,
    model         TEXT,
    provider      TEXT,
    usage         TEXT,                             -- JSON object or NULL
    error         TEXT,
    finish_reason TEXT,
    parts         TEXT NOT NULL DEFAULT '[]'        -- JSON array of parts
);
CREATE UNIQUE INDEX messages_by_session_seq ON messages (session_id, seq);
CREATE INDEX messages_streaming ON messages (status) WHERE status = 'streaming';

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL                             -- JSON
);

CREATE TABLE providers (
    id       TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    config   TEXT NOT NULL                          -- JSON of ProviderConfig
);
"""

MIGRATIONS: tuple[Migration, ...] = (Migration(1, SCHEMA_V1),)

LATEST_VERSION: int = MIGRATIONS[-1].version


def split_sql(script: str) -> list[str]:
    """Split a script into complete statements (semicolons in strings/triggers are safe)."""
    statements: list[str] = []
    buffer = ""
    for chunk in script.split(";"):
        buffer += chunk + ";"
        if sqlite3.complete_statement(buffer):
            statement = buffer.strip()
            if _has_code(statement):
                statements.append(statement)
            buffer = ""
    if _has_code(buffer.rstrip(";")):
        raise ValueError(f"incomplete SQL statement in migration: {buffer.strip()[:80]!r}")
    return statements


def _has_code(sql: str) -> bool:
    """Whether ``sql`` has anything besides whitespace, ``;`` and ``--`` comments."""
    for line in sql.splitlines():
        code = line.split("--", 1)[0].strip().strip(";").strip()
        if code:
            return True
    return False
