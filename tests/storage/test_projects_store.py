"""The projects tables (migration 7) and their store."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.core.errors import StorageError
from desktop.core.records import Project
from desktop.storage.database import Database
from desktop.storage.migrations import STORAGE_MIGRATIONS
from desktop.storage.projects import ProjectStore
from desktop.storage.sessions import SessionStore
from tests.support.legacy_db import legacy_database


def test_a_file_of_schema_6_upgrades_with_its_chats_in_no_project(tmp_path: Path) -> None:
    path = tmp_path / "assista.sqlite3"
    chat = "ses_before"
    with legacy_database(path, upto=6) as old:  # (as the app of then wrote it)
        old.execute("INSERT INTO sessions (id, title, created_at, updated_at) "
                    "VALUES (?, 'Before projects', 1, 1)", (chat,))
    with Database(path) as db:
        assert db.schema_versions == {f.name: f.latest for f in STORAGE_MIGRATIONS}
        info = SessionStore(db).get_session(chat)
        assert info is not None and info.project_id is None
        assert ProjectStore(db).list_projects() == []


def test_names_are_unique_and_a_deletion_keeps_the_chats(tmp_path: Path) -> None:
    with Database(tmp_path / "assista.sqlite3") as db:
        store, sessions = ProjectStore(db), SessionStore(db)
        garden = store.save(Project(name="  Garden  "))
        assert garden.name == "Garden" and len(garden.id) == 32
        with pytest.raises(StorageError, match="already a project named 'Garden'"):
            store.save(Project(name="garden"))
        with pytest.raises(StorageError, match="needs a name"):
            store.save(Project(name="   "))
        chat = sessions.create_session("Roses").id
        store.move_chat(chat, garden.id)
        with pytest.raises(StorageError, match="does not exist"):
            store.move_chat(chat, "0" * 32)
        assert store.chat_ids(garden.id) == [chat] and store.find("GARDEN") == garden
        assert store.delete(garden.id) == [chat]
        info = sessions.get_session(chat)
        assert info is not None and info.project_id is None and info.title == "Roses"
        assert store.list_projects() == []
