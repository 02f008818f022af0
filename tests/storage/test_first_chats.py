"""read_first_chats: the chat list's first rows, read with plain sqlite3 before the app
has loaded, in the order of the full list."""

from __future__ import annotations

from pathlib import Path

from desktop.storage.database import Database
from desktop.storage.first_chats import read_first_chats
from desktop.storage.paths import DataPaths
from desktop.storage.sessions import SessionStore


def test_the_first_chats_are_the_full_lists_first_rows(db: Database, store: SessionStore,
                                                       paths: DataPaths) -> None:
    ids = [store.create_session(f"Chat {n}").id for n in range(12)]
    for n, session_id in enumerate(ids):  # chat 11 is the newest
        db.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (1000.0 + n, session_id))
    store.set_pinned(ids[2], True)
    store.set_archived(ids[11], True)
    store.delete_session(ids[10])  # to the trash
    first = read_first_chats(paths.db_path, limit=5)
    full = store.list_sessions()
    assert [c.id for c in first] == [s.id for s in full[:5]]
    # pinned first, then the newest; archived and trashed chats are not listed
    assert [c.title for c in first] == ["Chat 2", "Chat 9", "Chat 8", "Chat 7", "Chat 6"]
    assert first[0].pinned and not first[1].pinned
    assert first[1].updated_at == 1009.0
    assert len(read_first_chats(paths.db_path)) == 10  # all of them, under the limit
    store.set_pinned(ids[5], True)  # two pinned, the newest first
    assert [c.title for c in read_first_chats(paths.db_path, limit=3)] == [
        "Chat 5", "Chat 2", "Chat 9"]
    assert [c.id for c in read_first_chats(paths.db_path, limit=1)] == [
        store.list_sessions()[0].id]


def test_no_database_or_a_damaged_one_lists_nothing(tmp_path: Path) -> None:
    assert read_first_chats(tmp_path / "missing.sqlite3") == []
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 100)
    assert read_first_chats(junk) == []
    empty = tmp_path / "empty.sqlite3"
    Database(empty).close()
    assert read_first_chats(empty) == []
