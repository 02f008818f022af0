"""Database opening, pragmas, migrations and transactions on real files."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

import pytest

from desktop.core.errors import StorageError
from desktop.storage.backup import list_backups
from desktop.storage.database import Database
from desktop.storage.migration_set import Migrations, MigrationStep
from desktop.storage.migrations import STORAGE_MIGRATIONS
from desktop.storage.sql_script import split_sql
from desktop.storage.sqlite_files import DatabaseCorruptError

NEXT = 1  # the first step of a feature added to storage's own
LATEST = {feature.name: feature.latest for feature in STORAGE_MIGRATIONS}


def plus(*steps: tuple[int, MigrationStep], name: str = "extra") -> list[Migrations]:
    """Storage's migrations and a feature's ``steps``."""
    return [*STORAGE_MIGRATIONS, Migrations(name, steps)]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tables(db: Database) -> set[str]:
    rows = db.query("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {row[0] for row in rows}


def test_migrates_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    with Database.open(path) as db:
        assert {
            "sessions",
            "messages",
            "settings",
            "providers",
            "schema_migrations",
            "assistants",
            "search_fts",
            "search_cjk",
        } <= _tables(db)
        assert db.schema_versions == LATEST == db.latest_versions
        assert db.query_one("PRAGMA journal_mode")[0] == "wal"  # type: ignore[index]
        assert db.query_one("PRAGMA foreign_keys")[0] == 1  # type: ignore[index]
        assert db.query_one("PRAGMA synchronous")[0] == 1  # type: ignore[index]  # NORMAL
        assert db.query_one("PRAGMA busy_timeout")[0] == 5000  # type: ignore[index]
        rows = db.query("SELECT name, version FROM _migrations ORDER BY rowid")
        versions = [tuple(r) for r in rows]
        assert versions == [(f.name, m.version) for f in STORAGE_MIGRATIONS for m in f.steps]
        assert db.integrity_check() == ["ok"]
        indexes = {r[0] for r in db.query("SELECT name FROM sqlite_master WHERE type='index'")}
        assert "messages_by_session_seq" in indexes


def test_reopen_keeps_data_and_does_not_rerun(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    calls: list[int] = []

    def v2(conn: sqlite3.Connection) -> None:
        calls.append(2)
        conn.execute("CREATE TABLE extra_things (x INTEGER)")

    migrations = plus((NEXT, v2))
    with Database(path, migrations=migrations) as db:
        db.execute("INSERT INTO settings (key, value) VALUES ('k', '1')")
        applied = db.query("SELECT name, version, applied_at FROM _migrations ORDER BY 1, 2")
    assert calls == [2]
    with Database(path, migrations=migrations) as db:
        assert db.query_one("SELECT value FROM settings WHERE key='k'")[0] == "1"  # type: ignore[index]
        again = db.query("SELECT name, version, applied_at FROM _migrations ORDER BY 1, 2")
        assert [tuple(r) for r in again] == [tuple(r) for r in applied]
        assert db.schema_versions["extra"] == NEXT
    assert calls == [2]


def test_newer_database_is_refused_and_unaltered(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    chats = STORAGE_MIGRATIONS[0]
    future = [Migrations("chats", [*chats.steps, (chats.latest + 1, "CREATE TABLE future (x)")],
                         legacy=chats.legacy), *STORAGE_MIGRATIONS[1:]]
    with Database(path, migrations=future) as db:
        db.execute("INSERT INTO settings (key, value) VALUES ('k', '\"v\"')")
    before = _digest(path)
    siblings = sorted(p.name for p in tmp_path.iterdir())

    with pytest.raises(StorageError,
                       match=r"newer version of Assista \(chats schema 5; this version knows "
                             r"up to 4\).*not modified"):
        Database(path)

    assert _digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == siblings
    with Database(path, migrations=future) as db:  # still readable by the newer app
        assert db.schema_versions["chats"] == chats.latest + 1


def test_newer_rollback_journal_database_keeps_its_journal_mode(tmp_path: Path) -> None:
    path = tmp_path / "legacy.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at REAL);"
        "INSERT INTO schema_migrations VALUES (99, 0);"
    )
    conn.close()
    before = _digest(path)
    with pytest.raises(StorageError, match="schema 99"):
        Database(path)
    assert _digest(path) == before  # journal mode not switched to WAL


def test_failed_migration_rolls_back_whole_step(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    with Database(path) as db:
        db.execute("INSERT INTO settings (key, value) VALUES ('k', '1')")
    bad = plus((NEXT, "CREATE TABLE half_done (x); INSERT INTO no_such_table VALUES (1);"))
    with pytest.raises(StorageError,
                       match=rf"migration extra {NEXT}\) failed.*restored as it was"):
        Database(path, migrations=bad)
    with Database(path) as db:
        assert "half_done" not in _tables(db)
        assert db.schema_versions == LATEST
        assert db.query_one("SELECT value FROM settings")[0] == "1"  # type: ignore[index]


def test_failed_callable_migration_is_reported_and_rolled_back(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"

    def v2(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("boom")

    with pytest.raises(StorageError, match="boom"):
        Database(path, migrations=plus((NEXT, v2)))
    with Database(path) as db:
        assert "half_done" not in _tables(db)
        assert db.schema_versions == LATEST


def test_all_missing_migrations_run_in_one_transaction(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    with Database(path):
        pass
    steps = plus(
        (NEXT, "CREATE TABLE step_one (x)"),
        (NEXT + 1, "INSERT INTO missing_table VALUES (1)"),
    )
    with pytest.raises(StorageError, match=rf"migration extra {NEXT + 1}"):
        Database(path, migrations=steps)
    with Database(path) as db:  # the first new step was undone with the second
        assert db.schema_versions == LATEST
        assert "step_one" not in _tables(db)


def test_a_step_that_commits_on_its_own_is_undone_from_the_backup(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    with Database(path) as db:
        db.execute("INSERT INTO settings (key, value) VALUES ('k', '\"before\"')")

    def rogue(conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE settings SET value = '\"after\"'")
        conn.execute("COMMIT")  # escapes the migration transaction

    with pytest.raises(StorageError, match=r"ended the transaction.*restored"):
        Database(path, migrations=plus((NEXT, rogue)))
    with Database(path) as db:
        assert db.query_one("SELECT value FROM settings")[0] == '"before"'  # type: ignore[index]
        assert db.schema_versions == LATEST


def test_backup_before_upgrade_is_kept_and_rotated(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    with Database(path) as db:
        assert db.backup_path is None  # a new, empty database needs none
        db.execute("INSERT INTO settings (key, value) VALUES ('k', '1')")
    steps: list[tuple[int, MigrationStep]] = []
    made = []
    for n in range(7):
        steps.append((NEXT + n, f"CREATE TABLE t{n} (x)"))
        with Database(path, migrations=plus(*steps)) as db:
            assert db.backup_path is not None
            made.append(db.backup_path)
        with Database(path, migrations=plus(*steps)) as db:
            assert db.backup_path is None  # nothing to upgrade: no backup
    backups = list_backups(path)
    assert backups == made[::-1][:5]
    assert all(p.parent == tmp_path / "backups" for p in backups)
    with sqlite3.connect(backups[0]) as conn:  # the state just before the last upgrade
        assert conn.execute("SELECT MAX(version) FROM _migrations WHERE name = 'extra'"
                            ).fetchone()[0] == NEXT + 5
        assert conn.execute("SELECT value FROM settings").fetchone()[0] == "1"
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert not list((tmp_path / "backups").glob("*.partial"))


def test_upgrade_is_refused_when_no_backup_can_be_made(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    with Database(path):
        pass
    (tmp_path / "backups").write_text("not a folder")
    with pytest.raises(StorageError, match=r"Cannot back up.*not modified"):
        Database(path, migrations=plus((NEXT, "CREATE TABLE t (x)")))
    with Database(path) as db:
        assert db.schema_versions == LATEST


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "junk.sqlite3"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(DatabaseCorruptError, match="damaged or not an Assista database"):
        Database(path)


def _damaged(tmp_path: Path) -> Path:
    path = tmp_path / "damaged.sqlite3"
    with Database(path) as db:
        with db.transaction() as conn:
            for i in range(400):
                conn.execute(
                    "INSERT INTO settings (key, value) VALUES (?, ?)",
                    (f"k{i}", '"' + "v" * 300 + '"'),
                )
        db.checkpoint()
    data = bytearray(path.read_bytes())
    pages = len(data) // 4096
    # A settings page, not read when opening: the rows were written after every table
    # was made, so the last pages hold them (the middle of the file held a table's root
    # page once the schema grew).
    start = 4096 * (pages - 2)
    data[start : start + 4096] = b"\xa5" * 4096
    path.write_bytes(bytes(data))
    return path


def test_verify_detects_a_damaged_page(tmp_path: Path) -> None:
    path = _damaged(tmp_path)
    with Database(path):  # opening alone does not read that page
        pass
    with pytest.raises(DatabaseCorruptError, match="damaged"):
        Database(path, verify=True)


def test_read_only_reads_but_never_writes(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    with Database(path) as writer:
        writer.execute("INSERT INTO settings (key, value) VALUES ('k', '1')")
        with Database(path, read_only=True) as reader:
            assert reader.read_only
            assert reader.query_one("SELECT value FROM settings")[0] == "1"  # type: ignore[index]
            with pytest.raises(StorageError, match=r"read-only.*not saved"):
                reader.execute("INSERT INTO settings (key, value) VALUES ('x', '2')")
            writer.execute("UPDATE settings SET value = '3'")
            assert reader.query_one("SELECT value FROM settings")[0] == "3"  # type: ignore[index]
    old = tmp_path / "old.sqlite3"
    with Database(old, migrations=STORAGE_MIGRATIONS[:1]):
        pass
    with pytest.raises(StorageError, match=r"needs an upgrade \(to sync 1, projects 1"):
        Database(old, read_only=True)
    with sqlite3.connect(old) as conn:
        assert conn.execute("SELECT MAX(version) FROM _migrations").fetchone()[0] == 4
        assert not conn.execute("SELECT 1 FROM _migrations WHERE name = 'sync'").fetchall()


def test_snapshot_sees_one_state(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    with Database(path) as first, Database(path) as second:
        first.execute("INSERT INTO settings (key, value) VALUES ('k', '1')")
        with second.snapshot() as conn:
            assert conn.execute("SELECT value FROM settings").fetchone()[0] == "1"
            first.execute("UPDATE settings SET value = '2'")
            assert conn.execute("SELECT value FROM settings").fetchone()[0] == "1"
        assert second.query_one("SELECT value FROM settings")[0] == "2"  # type: ignore[index]


def test_bad_migration_list() -> None:
    with pytest.raises(ValueError, match="increasing"):
        Migrations("x", [(2, "SELECT 1"), (1, "SELECT 1")])
    with pytest.raises(ValueError, match="registered twice"):
        Database(":memory:", migrations=[*STORAGE_MIGRATIONS, STORAGE_MIGRATIONS[0]])
    with pytest.raises(ValueError, match=r"'projects' need \['sync'\] registered before"):
        Database(":memory:", migrations=[STORAGE_MIGRATIONS[0], STORAGE_MIGRATIONS[2]])
    with pytest.raises(ValueError, match="claimed by two sets"):
        Database(":memory:", migrations=[*STORAGE_MIGRATIONS, Migrations(
            "again", [(1, "SELECT 1")], legacy={1: 5})])


def test_split_sql_handles_strings_comments_and_triggers() -> None:
    script = """
    -- a comment; with a semicolon
    CREATE TABLE t (x TEXT DEFAULT 'a;b');
    CREATE TRIGGER tr AFTER INSERT ON t BEGIN
        UPDATE t SET x = 'c;d' WHERE rowid = new.rowid;
    END;
    """
    statements = split_sql(script)
    assert len(statements) == 2
    assert statements[1].startswith("CREATE TRIGGER") and statements[1].endswith("END;")
    conn = sqlite3.connect(":memory:")
    for statement in statements:
        conn.execute(statement)
    conn.execute("INSERT INTO t DEFAULT VALUES")
    assert conn.execute("SELECT x FROM t").fetchone()[0] == "c;d"


def test_transaction_rolls_back_and_nests(db: Database) -> None:
    with pytest.raises(ZeroDivisionError), db.transaction() as conn:
        conn.execute("INSERT INTO settings (key, value) VALUES ('a', '1')")
        with db.transaction() as inner:
            inner.execute("INSERT INTO settings (key, value) VALUES ('b', '2')")
        _ = 1 / 0
    assert db.query("SELECT key FROM settings") == []
    with db.transaction() as conn:
        conn.execute("INSERT INTO settings (key, value) VALUES ('a', '1')")
        with db.transaction() as inner:
            inner.execute("INSERT INTO settings (key, value) VALUES ('b', '2')")
    assert sorted(r[0] for r in db.query("SELECT key FROM settings")) == ["a", "b"]


def test_sqlite_errors_become_storage_errors(db: Database) -> None:
    with pytest.raises(StorageError, match="write failed"):
        db.execute("INSERT INTO nowhere VALUES (1)")
    with pytest.raises(StorageError, match="read failed"):
        db.query("SELECT * FROM nowhere")
    db.close()
    db.close()  # idempotent
    assert db.closed
    with pytest.raises(StorageError, match="closed"):
        db.query("SELECT 1")


def test_concurrent_writers_from_threads(db: Database) -> None:
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for i in range(100):
                db.execute("INSERT INTO settings (key, value) VALUES (?, ?)", (f"{n}-{i}", str(i)))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert db.query_one("SELECT COUNT(*) FROM settings")[0] == 400  # type: ignore[index]


def test_second_connection_sees_committed_data(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    with Database(path) as first, Database(path) as second:
        first.execute("INSERT INTO settings (key, value) VALUES ('k', '1')")
        assert second.query_one("SELECT value FROM settings")[0] == "1"  # type: ignore[index]


def test_upgrade_applies_only_missing_versions(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    with Database(path) as db:
        db.execute("INSERT INTO settings (key, value) VALUES ('k', '\"kept\"')")
    step = "ALTER TABLE settings ADD COLUMN note TEXT"
    with Database(path, migrations=plus((NEXT, step))) as db:
        assert db.schema_versions["extra"] == NEXT
        assert db.query_one("SELECT value FROM settings")[0] == '"kept"'  # type: ignore[index]
        columns = {r[1] for r in db.query("PRAGMA table_info(settings)")}
        assert "note" in columns
        versions = [r[0] for r in db.query("SELECT name FROM _migrations ORDER BY rowid")]
        assert versions == [*(f.name for f in STORAGE_MIGRATIONS for _ in f.steps), "extra"]
