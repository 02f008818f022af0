"""The knowledge tables: bases, their files, and the files' chunks with
an FTS5 index (BM25) kept by triggers. Embeddings are float32 blobs on the chunks.

Machine-local on purpose: paths name this computer's files, so sync leaves them out.
"""

from __future__ import annotations

from desktop.storage.migration_set import Migrations

KNOWLEDGE_TABLES = """
CREATE TABLE knowledge_bases (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    paths       TEXT NOT NULL DEFAULT '[]',         -- JSON array of folders and files
    embedding   TEXT,                               -- JSON EmbeddingConfig or NULL
    created_at  REAL NOT NULL,
    indexed_at  REAL
);

CREATE TABLE knowledge_files (
    id       INTEGER PRIMARY KEY,
    base_id  INTEGER NOT NULL REFERENCES knowledge_bases (id) ON DELETE CASCADE,
    path     TEXT NOT NULL,
    mtime    REAL NOT NULL,
    size     INTEGER NOT NULL,
    hash     TEXT NOT NULL,
    error    TEXT,                                  -- why it has no chunks, if it failed
    UNIQUE (base_id, path)
);

CREATE TABLE knowledge_chunks (
    id          INTEGER PRIMARY KEY,
    base_id     INTEGER NOT NULL,
    file_id     INTEGER NOT NULL REFERENCES knowledge_files (id) ON DELETE CASCADE,
    page        INTEGER,                            -- page/slide/sheet; NULL for text
    line_start  INTEGER NOT NULL,
    line_end    INTEGER NOT NULL,
    text        TEXT NOT NULL,
    embedding   BLOB                                -- float32 vector or NULL
);
CREATE INDEX knowledge_chunks_by_file ON knowledge_chunks (file_id);
CREATE INDEX knowledge_chunks_by_base ON knowledge_chunks (base_id);

CREATE VIRTUAL TABLE knowledge_fts USING fts5 (
    text, content = 'knowledge_chunks', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER knowledge_chunks_ai AFTER INSERT ON knowledge_chunks BEGIN
    INSERT INTO knowledge_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER knowledge_chunks_ad AFTER DELETE ON knowledge_chunks BEGIN
    INSERT INTO knowledge_fts (knowledge_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
"""

#: This feature's migrations; version 1 was the app-wide migration 6.
KNOWLEDGE_MIGRATIONS = Migrations("knowledge", [(1, KNOWLEDGE_TABLES)], legacy={1: 6})
