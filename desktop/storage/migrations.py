"""The storage layer's own numbered schema migrations (chats, assistants, search).

Each feature owns its migrations (:class:`desktop.storage.migration_set.Migrations`):
the chats' tables here, the sync log, projects and memories beside their stores, the
knowledge bases in :mod:`desktop.knowledge.schema`. The composition root hands the
database every set; :class:`desktop.storage.database.Database` applies every missing
step in one transaction, with its ``_migrations`` row, after a backup of the file (see
:mod:`desktop.storage.upgrade`).

Never edit a released migration: append a new one. JSON columns are declared
``TEXT`` on purpose: a declared type ``JSON`` would get NUMERIC affinity and
SQLite would turn a stored ``'5'`` into the integer 5.
"""

from __future__ import annotations

from desktop.storage.fts import create_search_index
from desktop.storage.memory_schema import MEMORY_MIGRATIONS
from desktop.storage.migration_set import Migration, Migrations, MigrationStep
from desktop.storage.project_schema import PROJECT_MIGRATIONS
from desktop.storage.sync_tables import SYNC_MIGRATIONS

__all__ = ["STORAGE_MIGRATIONS", "Migration", "MigrationStep", "Migrations"]

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

# Version 2: conversations become trees, sessions gain chat-management fields, and
# both tables get an INTEGER PRIMARY KEY (``num``) that the search index uses as its
# row id (implicit rowids may change on VACUUM). Tables are rebuilt the SQLite way:
# create new, copy, drop old, rename. Existing linear chats become chains (each
# message's parent is the one before it) whose active leaf is the last message.
SCHEMA_V2 = """
CREATE TABLE sessions_v2 (
    num            INTEGER PRIMARY KEY,
    id             TEXT NOT NULL UNIQUE,
    title          TEXT NOT NULL DEFAULT 'New chat',
    created_at     REAL NOT NULL,
    updated_at     REAL NOT NULL,
    provider_id    TEXT,
    model          TEXT,
    workspace      TEXT,
    extra          TEXT NOT NULL DEFAULT '{}',      -- JSON object
    system_prompt  TEXT,                            -- NULL: the assistant's / the default
    assistant_id   TEXT,
    pinned         INTEGER NOT NULL DEFAULT 0,
    archived       INTEGER NOT NULL DEFAULT 0,
    deleted_at     REAL,                            -- soft delete (undo); purged later
    active_leaf_id TEXT                             -- end of the active branch
);
INSERT INTO sessions_v2 (num, id, title, created_at, updated_at, provider_id, model,
                         workspace, extra, active_leaf_id)
    SELECT s.rowid, s.id, s.title, s.created_at, s.updated_at, s.provider_id, s.model,
           s.workspace, s.extra,
           (SELECT m.id FROM messages m WHERE m.session_id = s.id ORDER BY m.seq DESC LIMIT 1)
    FROM sessions s;

CREATE TABLE messages_v2 (
    num           INTEGER PRIMARY KEY,
    id            TEXT NOT NULL UNIQUE,
    session_id    TEXT NOT NULL REFERENCES sessions_v2 (id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    parent_id     TEXT,                             -- the message this one follows
    selected_at   REAL NOT NULL DEFAULT 0,          -- last created/chosen: the fork's pick
    role          TEXT NOT NULL,
    status        TEXT NOT NULL,
    created_at    REAL NOT NULL,
    model         TEXT,
    provider      TEXT,
    usage         TEXT,                             -- JSON object or NULL
    error         TEXT,
    finish_reason TEXT,
    parts         TEXT NOT NULL DEFAULT '[]',       -- JSON array of parts
    provider_data TEXT NOT NULL DEFAULT '{}'        -- JSON object
);
INSERT INTO messages_v2 (num, id, session_id, seq, parent_id, selected_at, role, status,
                         created_at, model, provider, usage, error, finish_reason, parts)
    SELECT rowid, id, session_id, seq,
           LAG(id) OVER (PARTITION BY session_id ORDER BY seq), created_at,
           role, status, created_at, model, provider, usage, error, finish_reason, parts
    FROM messages;

DROP TABLE messages;
DROP TABLE sessions;
ALTER TABLE sessions_v2 RENAME TO sessions;
ALTER TABLE messages_v2 RENAME TO messages;

CREATE INDEX sessions_by_updated ON sessions (updated_at DESC);
CREATE UNIQUE INDEX messages_by_session_seq ON messages (session_id, seq);
CREATE INDEX messages_streaming ON messages (status) WHERE status = 'streaming';
CREATE INDEX messages_by_parent ON messages (session_id, parent_id, selected_at);
"""

# Version 3: assistants (named system prompts with default provider, model, etc.).
SCHEMA_V3 = """
CREATE TABLE assistants (
    id            TEXT PRIMARY KEY,
    position      INTEGER NOT NULL,
    name          TEXT NOT NULL,
    description   TEXT NOT NULL DEFAULT '',
    system_prompt TEXT NOT NULL DEFAULT '',
    provider_id   TEXT,
    model         TEXT,
    temperature   REAL,
    enabled_tools TEXT,                             -- JSON array, NULL: the app's default
    created_at    REAL NOT NULL,
    updated_at    REAL NOT NULL,
    extra         TEXT NOT NULL DEFAULT '{}'        -- JSON object
);
"""

#: The chats' own tables. Versions 1-4 were the app-wide migrations 1-4.
CHATS_MIGRATIONS = Migrations(
    "chats",
    [
        (1, SCHEMA_V1),
        (2, SCHEMA_V2),
        (3, SCHEMA_V3),
        (4, create_search_index),  # FTS5 tables + triggers (desktop.storage.fts)
    ],
    legacy={1: 1, 2: 2, 3: 3, 4: 4},
)

#: Every set whose store lives in desktop.storage, in the order they build on each other.
#: The composition root (desktop.app) adds the features' own sets after these.
STORAGE_MIGRATIONS: tuple[Migrations, ...] = (
    CHATS_MIGRATIONS,
    SYNC_MIGRATIONS,  # change log and merge state of sync (desktop.sync)
    PROJECT_MIGRATIONS,  # projects, their files, sessions.project_id
    MEMORY_MIGRATIONS,  # memories, their search index, sync triggers
)
