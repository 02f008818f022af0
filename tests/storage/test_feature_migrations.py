"""Each feature owns its numbered migrations, recorded under its name (issue 26 item 9).

Files written before (one app-wide counter, versions 1-8) upgrade without running any
step twice: tests/storage/data/legacy_v*.sqlite3 were written by that app (see
make_legacy.py there)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from desktop.app import DATABASE_MIGRATIONS
from desktop.core.errors import StorageError
from desktop.knowledge.schema import KNOWLEDGE_MIGRATIONS
from desktop.knowledge.store import KnowledgeStore
from desktop.storage.backup import list_backups
from desktop.storage.database import Database
from desktop.storage.memories import MemoryStore
from desktop.storage.migration_set import FEATURE_FORMAT, LEGACY_LATEST, Migrations
from desktop.storage.migrations import STORAGE_MIGRATIONS
from desktop.storage.projects import ProjectStore
from desktop.storage.sessions import SessionStore

DATA = Path(__file__).resolve().parent / "data"
LATEST = {feature.name: feature.latest for feature in DATABASE_MIGRATIONS}


def _legacy(tmp_path: Path, version: int) -> Path:
    path = tmp_path / "assista.sqlite3"
    shutil.copyfile(DATA / f"legacy_v{version}.sqlite3", path)
    return path


def _counter(path: Path) -> list[int]:
    with sqlite3.connect(path) as conn:
        return [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY 1")]


def _schema(path: Path) -> dict[str, str]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL "
                            "AND name NOT IN ('_migrations', 'schema_migrations', 'sqlite_stat1')")
        return {name: " ".join(sql.split()) for name, sql in rows}


def _knowledge_plus(step: str) -> Migrations:
    return Migrations("knowledge", [*KNOWLEDGE_MIGRATIONS.steps, (2, step)],
                      legacy=KNOWLEDGE_MIGRATIONS.legacy)


def _chats_are_kept(db: Database) -> None:
    store = SessionStore(db)
    info = store.get_session("s1")
    assert info is not None and info.title == "Old chat about otters"
    assert [m.text for m in store.load_messages("s1")] == [
        "Tell me about otters", "Otters hold hands asleep"]
    assert {h.message_id for h in store.search("otters")} == {None, "m0", "m1"}  # title too


def test_a_file_of_version_8_opens_as_it_is_and_runs_nothing_again(tmp_path: Path) -> None:
    path = _legacy(tmp_path, 8)
    with Database(path, migrations=DATABASE_MIGRATIONS) as db:
        assert db.backup_path is None  # nothing was missing: no upgrade, no backup
        assert db.schema_versions == LATEST
        _chats_are_kept(db)
        assert [b.name for b in KnowledgeStore(db).list()] == ["notes"]
        assert [p.name for p in ProjectStore(db).list_projects()] == ["Otter research"]
        assert [m.text for m in MemoryStore(db).all()] == ["The user likes otters"]
        assert db.query_one("SELECT project_id FROM sessions")[0] == "p1"  # type: ignore[index]
    assert _counter(path) == list(range(1, 9))  # still a file the app of then can open
    with sqlite3.connect(path) as conn:
        assert not conn.execute("SELECT name FROM sqlite_master WHERE name = '_migrations'"
                                ).fetchall()


def test_a_feature_step_added_later_upgrades_a_version_8_file(tmp_path: Path) -> None:
    path = _legacy(tmp_path, 8)
    sets = [*STORAGE_MIGRATIONS, _knowledge_plus("ALTER TABLE knowledge_bases ADD note TEXT")]
    with Database(path, migrations=sets) as db:
        assert db.backup_path is not None and db.backup_path.name.startswith("assista-v8-")
        assert db.schema_versions == {**LATEST, "knowledge": 2}
        rows = db.query("SELECT name, version FROM _migrations")
        assert [tuple(r) for r in rows] == [("knowledge", 2)]  # only the new step ran
        _chats_are_kept(db)
        row = db.query_one("SELECT name, note FROM knowledge_bases")
        assert row is not None and tuple(row) == ("notes", None)
    # The app of then (which knows up to 8) reads the mark as a newer schema: refused.
    assert max(_counter(path)) == FEATURE_FORMAT > LEGACY_LATEST
    with sqlite3.connect(list_backups(path)[0]) as conn:  # the backup: the file as it was
        assert conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] == 8


def test_a_file_of_version_5_gets_the_features_it_lacked(tmp_path: Path) -> None:
    path = _legacy(tmp_path, 5)
    with sqlite3.connect(path) as conn:
        logged = conn.execute("SELECT COUNT(*) FROM sync_log").fetchone()[0]
    with Database(path, migrations=DATABASE_MIGRATIONS) as db:
        assert db.backup_path is not None and db.backup_path.name.startswith("assista-v5-")
        assert db.schema_versions == LATEST
        rows = db.query("SELECT name FROM _migrations ORDER BY rowid")
        assert [r[0] for r in rows] == ["projects", "memory", "knowledge"]  # chats, sync: kept
        _chats_are_kept(db)
        assert db.query_one("SELECT COUNT(*) FROM sync_log")[0] == logged  # type: ignore[index]
        assert KnowledgeStore(db).list() == [] and ProjectStore(db).list_projects() == []
    (tmp_path / "v8").mkdir()
    assert _schema(path) == _schema(_legacy(tmp_path / "v8", 8))


def test_a_feature_registered_later_is_applied_when_it_is(tmp_path: Path) -> None:
    path = _legacy(tmp_path, 5)
    with Database(path) as db:  # storage's own sets only
        assert "knowledge" not in db.schema_versions
        assert db.query_one("SELECT name FROM sqlite_master WHERE name = 'knowledge_bases'"
                            ) is None
    with Database(path, migrations=DATABASE_MIGRATIONS) as db:
        assert db.schema_versions == LATEST
    with Database(path) as db:  # a feature it does not register is left alone
        assert db.backup_path is None


def test_a_new_file_has_the_schema_the_numbered_migrations_made(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    with Database(path, migrations=DATABASE_MIGRATIONS) as db:
        assert db.backup_path is None
        assert db.schema_versions == LATEST
        rows = db.query("SELECT name, version FROM _migrations ORDER BY rowid")
        assert [tuple(r) for r in rows] == [(f.name, m.version) for f in DATABASE_MIGRATIONS
                                            for m in f.steps]
    assert _counter(path) == [FEATURE_FORMAT]
    (tmp_path / "v8").mkdir()
    assert _schema(path) == _schema(_legacy(tmp_path / "v8", 8))


def test_a_file_with_a_newer_feature_step_is_refused_unaltered(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    sets = [*STORAGE_MIGRATIONS, _knowledge_plus("CREATE TABLE future (x)")]
    with Database(path, migrations=sets):
        pass
    before = path.read_bytes()
    with pytest.raises(StorageError, match=r"newer version of Assista \(knowledge schema 2; "
                                           r"this version knows up to 1\).*not modified"):
        Database(path, migrations=DATABASE_MIGRATIONS)
    assert path.read_bytes() == before
    with Database(path) as db:  # an app without the knowledge feature leaves it alone
        assert db.schema_versions["knowledge"] == 2


def test_a_file_of_a_newer_app_wide_migration_is_refused(tmp_path: Path) -> None:
    path = _legacy(tmp_path, 8)
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO schema_migrations VALUES (9, 0)")
    with pytest.raises(StorageError, match=r"\(schema 9; this version knows up to 8\)"):
        Database(path, migrations=DATABASE_MIGRATIONS)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE schema_migrations SET version = ? WHERE version = 9",
                     (FEATURE_FORMAT + 1,))
    with pytest.raises(StorageError, match=rf"\(schema {FEATURE_FORMAT + 1};"):
        Database(path, migrations=DATABASE_MIGRATIONS)
