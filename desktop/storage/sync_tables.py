"""Tables and triggers that sync (:mod:`desktop.sync`) keeps in the database (its
migrations, once the app-wide migration 5).

Triggers note every change to what is synced (chats, messages, assistants, the app
settings) in ``sync_log``, whichever code made it, so the sync engine never has to
be called by the stores. The engine diffs the noted entities against the values it
last synced (``sync_fields``) to find which fields changed. A merge of other
devices' changes deletes the log rows its own writes caused, in the same transaction.

Never change this SQL in place: a change needs a new migration.
"""

from __future__ import annotations

from desktop.storage.migration_set import Migrations

# Seconds since the epoch, with a fraction (unixepoch('subsec') needs SQLite 3.42).
_NOW = "((julianday('now') - 2440587.5) * 86400.0)"

_SESSION_FIELDS_CHANGED = " OR ".join(
    f"OLD.{column} IS NOT NEW.{column}"
    for column in (
        "title", "created_at", "updated_at", "model", "extra", "system_prompt",
        "assistant_id", "pinned", "archived", "deleted_at", "active_leaf_id",
    )
)

SYNC_TABLES = f"""
CREATE TABLE sync_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE sync_log (
    seq   INTEGER PRIMARY KEY,
    kind  TEXT NOT NULL,                            -- s chat, m message, a assistant, g settings
    id    TEXT NOT NULL,
    owner TEXT,                                     -- a message's chat
    at    REAL NOT NULL                             -- when the change was made (epoch seconds)
);

CREATE TABLE sync_fields (
    kind  TEXT NOT NULL,
    id    TEXT NOT NULL,
    field TEXT NOT NULL,
    value TEXT,                                     -- JSON of the value last synced
    stamp TEXT NOT NULL,                            -- hybrid logical clock stamp of that value
    PRIMARY KEY (kind, id, field)
) WITHOUT ROWID;

CREATE TABLE sync_tombstones (
    kind  TEXT NOT NULL,
    id    TEXT NOT NULL,
    stamp TEXT NOT NULL,
    PRIMARY KEY (kind, id)
) WITHOUT ROWID;

CREATE TABLE sync_cursors (
    device TEXT PRIMARY KEY,                        -- another device's id
    seq    INTEGER NOT NULL                         -- its last segment merged here
);

CREATE TABLE sync_outbox (
    num  INTEGER PRIMARY KEY,
    body BLOB NOT NULL,                             -- compressed plaintext segment
    ops  INTEGER NOT NULL
);

CREATE TRIGGER sync_session_insert AFTER INSERT ON sessions BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('s', NEW.id, {_NOW});
END;
CREATE TRIGGER sync_session_update AFTER UPDATE ON sessions
WHEN {_SESSION_FIELDS_CHANGED} BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('s', NEW.id, {_NOW});
END;
CREATE TRIGGER sync_session_delete AFTER DELETE ON sessions BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('s', OLD.id, {_NOW});
END;

CREATE TRIGGER sync_message_insert AFTER INSERT ON messages
WHEN NEW.status <> 'streaming' BEGIN
    INSERT INTO sync_log (kind, id, owner, at) VALUES ('m', NEW.id, NEW.session_id, {_NOW});
END;
CREATE TRIGGER sync_message_finish AFTER UPDATE OF status ON messages
WHEN OLD.status IS NOT NEW.status AND NEW.status <> 'streaming' BEGIN
    INSERT INTO sync_log (kind, id, owner, at) VALUES ('m', NEW.id, NEW.session_id, {_NOW});
END;
CREATE TRIGGER sync_message_delete AFTER DELETE ON messages BEGIN
    INSERT INTO sync_log (kind, id, owner, at) VALUES ('m', OLD.id, OLD.session_id, {_NOW});
END;

CREATE TRIGGER sync_assistant_insert AFTER INSERT ON assistants BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('a', NEW.id, {_NOW});
END;
CREATE TRIGGER sync_assistant_update AFTER UPDATE ON assistants BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('a', NEW.id, {_NOW});
END;
CREATE TRIGGER sync_assistant_delete AFTER DELETE ON assistants BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('a', OLD.id, {_NOW});
END;

CREATE TRIGGER sync_settings_insert AFTER INSERT ON settings WHEN NEW.key = 'app' BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('g', 'app', {_NOW});
END;
CREATE TRIGGER sync_settings_update AFTER UPDATE ON settings WHEN NEW.key = 'app' BEGIN
    INSERT INTO sync_log (kind, id, at) VALUES ('g', 'app', {_NOW});
END;
"""

#: This feature's migrations; version 1 was the app-wide migration 5.
SYNC_MIGRATIONS = Migrations("sync", [(1, SYNC_TABLES)], legacy={1: 5}, requires=("chats",))
