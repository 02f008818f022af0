"""The memory tables: memories, their FTS5 index kept by triggers, and
the triggers that note their changes for sync (kind ``r``). Never change this SQL in
place: a change needs a new migration."""

from __future__ import annotations

from desktop.storage.migration_set import Migrations

# Seconds since the epoch, with a fraction (as in desktop.storage.sync_tables).
_NOW = "((julianday('now') - 2440587.5) * 86400.0)"

MEMORY_TABLES = f"""
CREATE TABLE memories (
    num               INTEGER PRIMARY KEY,           -- row id of the search index
    id                TEXT NOT NULL UNIQUE,          -- uuid hex
    text              TEXT NOT NULL,
    project_id        TEXT,                          -- NULL: global
    created_at        REAL NOT NULL,
    updated_at        REAL NOT NULL,
    source_session_id TEXT,                          -- the chat it was remembered in
    source_message_id TEXT,                          -- the question that led to it
    enabled           INTEGER NOT NULL DEFAULT 1,    -- 0: kept but not sent
    embedding         BLOB,                          -- float32 vector, or NULL
    embedding_model   TEXT                           -- which model made it
);
CREATE INDEX memories_by_project ON memories (project_id);

CREATE VIRTUAL TABLE memories_fts USING fts5 (
    text, content = 'memories', content_rowid = 'num',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, text) VALUES (NEW.num, NEW.text);
END;
CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', OLD.num, OLD.text);
END;
CREATE TRIGGER memories_au AFTER UPDATE OF text ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', OLD.num, OLD.text);
    INSERT INTO memories_fts (rowid, text) VALUES (NEW.num, NEW.text);
END;

-- a vector stands for the text it was made from
CREATE TRIGGER memories_text_changed AFTER UPDATE OF text ON memories
WHEN OLD.text IS NOT NEW.text BEGIN
    UPDATE memories SET embedding = NULL, embedding_model = NULL WHERE num = NEW.num;
END;

CREATE TRIGGER sync_memory_insert AFTER INSERT ON memories BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('r', NEW.id, {_NOW});
END;
CREATE TRIGGER sync_memory_update AFTER UPDATE OF text, project_id, created_at, updated_at,
    source_session_id, source_message_id, enabled ON memories BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('r', NEW.id, {_NOW});
END;
CREATE TRIGGER sync_memory_delete AFTER DELETE ON memories BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('r', OLD.id, {_NOW});
END;
"""

#: This feature's migrations; version 1 was the app-wide migration 8.
MEMORY_MIGRATIONS = Migrations("memory", [(1, MEMORY_TABLES)], legacy={1: 8},
                               requires=("chats", "sync"))
