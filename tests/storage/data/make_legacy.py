"""Writes the legacy database files next to this script, with the app as it was before
feature-owned migrations (one app-wide counter, versions 1-8; commit 145a731):

    git worktree add /tmp/old 145a731
    PYTHONPATH=/tmp/old python tests/storage/data/make_legacy.py

``legacy_v8.sqlite3`` has every table of then, ``legacy_v5.sqlite3`` stops at the sync
tables (knowledge, projects and memories come later). Each holds one chat with two
messages, a setting, and (v8) a knowledge base with a file, a project and a memory.
Not run by the tests: they open the files it wrote.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path

from desktop.storage.database import Database
from desktop.storage.migrations import MIGRATIONS  # type: ignore[attr-defined]

HERE = Path(__file__).resolve().parent


def _write(name: str, upto: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / name
        with Database(path, migrations=MIGRATIONS[:upto]) as db, db.transaction() as conn:
            conn.execute("INSERT INTO sessions (id, title, created_at, updated_at) "
                         "VALUES ('s1', 'Old chat about otters', 1.0, 2.0)")
            for seq, (role, text) in enumerate([("user", "Tell me about otters"),
                                                ("assistant", "Otters hold hands asleep")]):
                conn.execute(
                    "INSERT INTO messages (id, session_id, seq, parent_id, role, status,"
                    " created_at, parts) VALUES (?, 's1', ?, ?, ?, 'complete', ?, ?)",
                    (f"m{seq}", seq, f"m{seq - 1}" if seq else None, role, 1.0 + seq,
                     f'[{{"type": "text", "text": "{text}"}}]'))
            conn.execute("UPDATE sessions SET active_leaf_id = 'm1' WHERE id = 's1'")
            conn.execute("INSERT INTO settings (key, value) VALUES ('theme', '\"dark\"')")
            if upto >= 8:
                conn.execute("INSERT INTO knowledge_bases (name, paths, created_at) "
                             "VALUES ('notes', '[\"/tmp/notes\"]', 3.0)")
                conn.execute("INSERT INTO knowledge_files (base_id, path, mtime, size, hash) "
                             "VALUES (1, '/tmp/notes/a.md', 3.0, 10, 'abc')")
                conn.execute("INSERT INTO projects (id, position, name, created_at, updated_at)"
                             " VALUES ('p1', 0, 'Otter research', 4.0, 4.0)")
                conn.execute("UPDATE sessions SET project_id = 'p1' WHERE id = 's1'")
                conn.execute("INSERT INTO memories (id, text, created_at, updated_at) "
                             "VALUES ('r1', 'The user likes otters', 5.0, 5.0)")
        with sqlite3.connect(path) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
            conn.execute("VACUUM")
        conn.close()
        shutil.copyfile(path, HERE / name)


if __name__ == "__main__":
    _write("legacy_v8.sqlite3", 8)
    _write("legacy_v5.sqlite3", 5)
