"""Tables of projects: a project, the files added to it, and the
project of each chat (``sessions.project_id``, NULL: in no project).

A project's own columns that name local things (``workspace``, ``provider_id``,
``files_base``: the knowledge base made on this machine for its larger files) are
not synced; see :mod:`desktop.sync.fields`. The triggers note changes for sync like
those of :mod:`desktop.storage.sync_tables` do for chats.

Never change this SQL in place: a change needs a new migration.
"""

from __future__ import annotations

from desktop.storage.migration_set import Migrations

_NOW = "((julianday('now') - 2440587.5) * 86400.0)"

PROJECT_TABLES = f"""
CREATE TABLE projects (
    id           TEXT PRIMARY KEY,                  -- uuid hex
    position     INTEGER NOT NULL DEFAULT 0,
    name         TEXT NOT NULL,
    instructions TEXT NOT NULL DEFAULT '',          -- added after the assistant's prompt
    knowledge    TEXT NOT NULL DEFAULT '[]',        -- JSON array of knowledge base names
    workspace    TEXT,                              -- this machine's folder (not synced)
    provider_id  TEXT,                              -- this machine's provider (not synced)
    model        TEXT,                              -- default model of its new chats
    tools        TEXT,                              -- JSON array; NULL: the app's tools
    files_base   TEXT,                              -- knowledge base of its larger files
    created_at   REAL NOT NULL,
    updated_at   REAL NOT NULL,
    extra        TEXT NOT NULL DEFAULT '{{}}'         -- JSON object
);

CREATE TABLE project_files (
    id         TEXT PRIMARY KEY,                    -- uuid hex
    project_id TEXT NOT NULL,
    name       TEXT NOT NULL,
    content    TEXT,                                -- the text; NULL: in the files base
    path       TEXT,                                -- where it was added from
    size       INTEGER NOT NULL DEFAULT 0,          -- bytes of the file
    created_at REAL NOT NULL
);
CREATE INDEX project_files_by_project ON project_files (project_id, created_at);

ALTER TABLE sessions ADD COLUMN project_id TEXT;
CREATE INDEX sessions_by_project ON sessions (project_id) WHERE project_id IS NOT NULL;

CREATE TRIGGER sync_session_project AFTER UPDATE OF project_id ON sessions
WHEN OLD.project_id IS NOT NEW.project_id BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('s', NEW.id, {_NOW});
END;

CREATE TRIGGER sync_project_insert AFTER INSERT ON projects BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('p', NEW.id, {_NOW});
END;
CREATE TRIGGER sync_project_update AFTER UPDATE ON projects BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('p', NEW.id, {_NOW});
END;
CREATE TRIGGER sync_project_delete AFTER DELETE ON projects BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('p', OLD.id, {_NOW});
END;

CREATE TRIGGER sync_project_file_insert AFTER INSERT ON project_files BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('pf', NEW.id, {_NOW});
END;
CREATE TRIGGER sync_project_file_update AFTER UPDATE ON project_files BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('pf', NEW.id, {_NOW});
END;
CREATE TRIGGER sync_project_file_delete AFTER DELETE ON project_files BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('pf', OLD.id, {_NOW});
END;
"""

#: This feature's migrations; version 1 was the app-wide migration 7.
PROJECT_MIGRATIONS = Migrations("projects", [(1, PROJECT_TABLES)], legacy={1: 7},
                                requires=("chats", "sync"))
