"""A damaged database is moved aside, a fresh one is created and readable rows saved."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from desktop.core.errors import StorageError
from desktop.core.messages import Message
from desktop.storage.database import Database
from desktop.storage.migrations import STORAGE_MIGRATIONS
from desktop.storage.paths import DataPaths
from desktop.storage.recovery import open_database, salvage
from desktop.storage.sessions import SessionStore
from desktop.storage.settings_store import SettingsStore
from desktop.storage.sqlite_files import DatabaseCorruptError
from tests.support.legacy_db import legacy_database


def _fill(paths: DataPaths, chats: int = 30, per_chat: int = 20) -> list[str]:
    with Database(paths.db_path) as db:
        store = SessionStore(db)
        ids = []
        for i in range(chats):
            s = store.create_session(f"chat {i}")
            ids.append(s.id)
            for j in range(per_chat):
                store.save_message(s.id, Message.user(f"message {i}-{j} " + "x" * 300))
        SettingsStore(db).set_value("theme", "dark")
        db.checkpoint()
    return ids


def _damage_page(path: Path, page: int) -> None:
    data = bytearray(path.read_bytes())
    data[4096 * page : 4096 * (page + 1)] = b"\xa5" * 4096
    path.write_bytes(bytes(data))


def test_healthy_database_opens_as_is(paths: DataPaths) -> None:
    _fill(paths, 2, 2)
    opened = open_database(paths, verify=True)
    assert (opened.status, opened.notice, opened.damaged_copy) == ("ok", None, None)
    opened.db.close()


def test_not_a_database_is_moved_aside_and_replaced(paths: DataPaths) -> None:
    paths.db_path.write_bytes(b"garbage, not sqlite" * 500)
    opened = open_database(paths)
    try:
        assert opened.status == "recovered"
        assert opened.damaged_copy is not None and opened.damaged_copy.exists()
        assert opened.damaged_copy.read_bytes().startswith(b"garbage")
        assert opened.damaged_copy.parent.parent == paths.root / "backups"
        assert opened.notice is not None and "damaged" in opened.notice
        assert "0 chats" in opened.notice
        assert opened.db.schema_versions == {f.name: f.latest for f in STORAGE_MIGRATIONS}
        assert SessionStore(opened.db).list_sessions() == []
    finally:
        opened.db.close()


def test_damaged_page_keeps_every_readable_chat(paths: DataPaths) -> None:
    ids = _fill(paths)
    pages = paths.db_path.stat().st_size // 4096
    _damage_page(paths.db_path, pages // 2)
    with pytest.raises(DatabaseCorruptError):
        Database(paths.db_path, verify=True)
    opened = open_database(paths, verify=True)
    try:
        assert opened.status == "recovered"
        store = SessionStore(opened.db)
        found = {s.id for s in store.list_sessions()}
        assert found <= set(ids) and len(found) >= len(ids) - 2
        assert opened.salvaged["sessions"] == len(found)
        assert opened.salvaged["messages"] >= 0.8 * len(ids) * 20
        assert f"{len(found)} chats" in (opened.notice or "")
        for sid in found:  # every recovered chat reads as one branch
            messages = store.load_messages(sid)
            assert messages == store.load_all_messages(sid)
        assert opened.db.integrity_check() == ["ok"]
        assert SettingsStore(opened.db).get_value("theme") == "dark"
        assert store.search("message")  # the index was rebuilt from the saved rows
    finally:
        opened.db.close()
    assert opened.damaged_copy is not None
    with pytest.raises(sqlite3.DatabaseError):  # the damaged file is kept as it was
        sqlite3.connect(opened.damaged_copy).execute("PRAGMA integrity_check").fetchall()
        raise sqlite3.DatabaseError("integrity_check returned rows")


def test_salvage_from_a_version_1_file(paths: DataPaths, tmp_path: Path) -> None:
    old = tmp_path / "old.sqlite3"
    with legacy_database(old, upto=1) as db:
        db.execute(
            "INSERT INTO sessions (id, title, created_at, updated_at) VALUES ('s1', 'old', 1, 2)"
        )
        for seq in (1, 2, 3):
            db.execute(
                "INSERT INTO messages (id, session_id, seq, role, status, created_at, "
                "parts) VALUES (?, 's1', ?, 'user', 'complete', ?, ?)",
                (f"m{seq}", seq, seq, f'[{{"type":"text","text":"t{seq}"}}]'),
            )
    with sqlite3.connect(old) as conn:  # a message whose chat row was lost
        conn.execute(
            "INSERT INTO messages (id, session_id, seq, role, status, created_at, "
            "parts) VALUES ('orphan', 'lost_chat', 1, 'user', 'complete', 5, "
            '\'[{"type":"text","text":"alone"}]\')'
        )
    with Database(paths.db_path) as db:
        counts = salvage(old, db)
        assert counts["sessions"] == 1 and counts["messages"] == 4
        store = SessionStore(db)
        assert [m.text for m in store.load_messages("s1")] == ["t1", "t2", "t3"]
        assert [m.parent_id for m in store.load_messages("s1")] == [None, "m1", "m2"]
        placeholder = store.get_session("lost_chat")
        assert placeholder is not None and placeholder.title == "Recovered chat"
        assert [m.text for m in store.load_messages("lost_chat")] == ["alone"]
        assert [h.message_id for h in store.search("t2")] == ["m2"]


def test_read_only_open_never_moves_files(paths: DataPaths) -> None:
    paths.db_path.write_bytes(b"garbage, not sqlite" * 500)
    with pytest.raises(StorageError):
        open_database(paths, read_only=True)
    assert paths.db_path.read_bytes().startswith(b"garbage")
