"""``kill -9`` at the worst moments, with real processes and real database files.

Each child (tests/storage/kill_child.py) reports on stdout what it has committed;
the test kills it with SIGKILL at a chosen point, reopens the database like the
app does at startup, and checks that everything reported is there.
"""

from __future__ import annotations

import os
import queue
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.context_budget import repair_tool_pairs
from desktop.core.messages import ToolResultPart
from desktop.storage.backup import list_backups
from desktop.storage.database import Database
from desktop.storage.instance_lock import acquire_instance_lock
from desktop.storage.migration_set import FEATURE_FORMAT
from desktop.storage.migrations import STORAGE_MIGRATIONS
from desktop.storage.paths import DataPaths
from desktop.storage.sessions import SessionStore
from tests.support.legacy_db import legacy_database

from .test_upgrade import _v1_database

LATEST = {feature.name: feature.latest for feature in STORAGE_MIGRATIONS}

CHILD = Path(__file__).with_name("kill_child.py")
REPO_ROOT = Path(__file__).resolve().parents[2]
WATCHDOG_S = 120.0

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGKILL semantics")


class Child:
    """A child process whose stdout lines arrive on a queue (read by a thread)."""

    def __init__(self, *args: str) -> None:
        pythonpath = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
        self.proc = subprocess.Popen(
            [sys.executable, str(CHILD), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": pythonpath},
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._watchdog = threading.Timer(WATCHDOG_S, self.proc.kill)  # never hang the run
        self._watchdog.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def expect(self, prefix: str, count: int = 1) -> list[str]:
        """Wait for ``count`` lines starting with ``prefix``; return them."""
        found: list[str] = []
        while len(found) < count:
            line = self.lines.get(timeout=WATCHDOG_S)
            if line is None:
                raise AssertionError(f"child exited before {prefix!r}: {self.stderr()}")
            self.seen.append(line)
            if line.startswith(prefix):
                found.append(line)
        return found

    def kill(self) -> None:
        """SIGKILL, then collect the lines it printed before dying."""
        self.proc.kill()
        self.finish()
        assert self.proc.returncode == -9, self.stderr()

    def finish(self) -> int:
        self.proc.wait(timeout=WATCHDOG_S)
        self._reader.join(timeout=WATCHDOG_S)
        while (line := self.lines.get_nowait() if not self.lines.empty() else None) is not None:
            self.seen.append(line)
        self._watchdog.cancel()
        return self.proc.returncode

    def stderr(self) -> str:
        return self.proc.stderr.read() if self.proc.stderr and self.proc.poll() is not None else ""

    def close(self) -> None:
        self._watchdog.cancel()
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()


@pytest.fixture
def children() -> Iterator[list[Child]]:
    started: list[Child] = []
    yield started
    for child in started:
        child.close()


def _start(children: list[Child], *args: str) -> Child:
    child = Child(*args)
    children.append(child)
    return child


def test_kill_during_streaming_keeps_the_partial_answer(
    tmp_path: Path, children: list[Child]
) -> None:
    db_path = tmp_path / "assista.sqlite3"
    child = _start(children, "stream", str(db_path))
    session_id, question_id = child.expect("session")[0].split()[1:]
    saves = child.expect("saved", 150)
    child.kill()  # SIGKILL in the middle of the stream
    reported = [line.split() for line in child.seen if line.startswith("saved")]
    answer_id = reported[-1][1]
    longest = max(int(r[3]) for r in reported)
    assert len(saves) >= 150 and {r[2] for r in reported} == {"streaming"}

    with Database(db_path) as db:  # what the app does at startup
        assert db.integrity_check() == ["ok"]
        store = SessionStore(db)
        assert store.mark_interrupted() == 1
        branch = store.load_messages(session_id)
        assert [m.id for m in branch] == [question_id, answer_id]
        answer = branch[1]
        assert answer.status == "interrupted"
        assert len(answer.text) >= longest  # everything reported as saved is there
        assert answer.text.startswith("tok1 tok2 tok3 ")
        assert [h.message_id for h in store.search("tok1")] == [answer_id]


def test_kill_during_a_tool_call_keeps_the_call(tmp_path: Path, children: list[Child]) -> None:
    db_path = tmp_path / "assista.sqlite3"
    child = _start(children, "tool", str(db_path))
    session_id, question_id = child.expect("session")[0].split()[1:]
    child.expect("tool-running")
    child.kill()

    with Database(db_path) as db:
        store = SessionStore(db)
        assert store.mark_interrupted() == 0  # the answer asking for the tool was complete
        branch = store.load_messages(session_id)
        assert [m.role for m in branch] == ["user", "assistant"]
        assert branch[0].id == question_id
        assert [c.name for c in branch[1].tool_calls] == ["block"]
        # Sending this history again is safe: the call gets an "interrupted" result.
        repaired = repair_tool_pairs(branch)
        assert [m.role for m in repaired] == ["user", "assistant", "tool"]
        result = repaired[2].parts[0]
        assert isinstance(result, ToolResultPart) and result.tool_call_id == "call_block"
        assert result.status == "cancelled"


def test_kill_during_a_migration_leaves_the_old_schema(
    tmp_path: Path, children: list[Child]
) -> None:
    db_path = tmp_path / "assista.sqlite3"
    chats = _v1_database(db_path)
    child = _start(children, "migrate", str(db_path))
    child.expect("migrating")  # migrations 2..N-1 done and the last one half done
    child.kill()
    assert Path(f"{db_path}-wal").exists()  # the killed transaction's pages are in the WAL

    with sqlite3.connect(db_path) as conn:  # the file as an old app would see it
        assert conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] == 1
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert {
            "sessions_v2",
            "messages_v2",
            "ballast",
            "assistants",
            "search_fts",
        } & tables == set()
        columns = {r[1] for r in conn.execute("PRAGMA table_info(messages)")}
        assert "parent_id" not in columns
        assert conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 5
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    backups = list_backups(db_path)
    assert len(backups) == 1  # made before the upgrade began

    with Database(db_path) as db:  # the next start upgrades for real
        assert db.schema_versions == LATEST
        store = SessionStore(db)
        for sid, messages in chats.items():
            assert [m.id for m in store.load_messages(sid)] == [m.id for m in messages]
        assert store.search("version one")


def test_kill_right_after_a_migration_keeps_the_new_schema(
    tmp_path: Path, children: list[Child]
) -> None:
    db_path = tmp_path / "assista.sqlite3"
    chats = _v1_database(db_path)
    child = _start(children, "migrated", str(db_path))
    child.expect("migrated")
    child.kill()
    with Database(db_path) as db:
        assert db.schema_versions == LATEST
        assert db.backup_path is None  # nothing left to do: no second upgrade
        store = SessionStore(db)
        assert [m.id for m in store.load_messages("ses_a")] == [m.id for m in chats["ses_a"]]
    assert len(list_backups(db_path)) == 1


def test_kill_at_any_point_of_an_upgrade_is_all_or_nothing(
    tmp_path: Path, children: list[Child]
) -> None:
    db_path = tmp_path / "assista.sqlite3"
    chats = _v1_database(db_path)
    with legacy_database(db_path, upto=1) as conn:
        conn.executemany(  # a bigger file: the upgrade takes a while
            "INSERT INTO messages (id, session_id, seq, role, status, created_at, parts) "
            "VALUES (?, 'ses_b', ?, 'user', 'complete', 0, ?)",
            [
                (f"bulk{i}", i + 10, '[{"type":"text","text":"' + "w " * 200 + '"}]')
                for i in range(20_000)
            ],
        )
    child = _start(children, "open", str(db_path))
    child.expect("backed-up")
    child.kill()  # somewhere in the upgrade transaction, or just after it
    with sqlite3.connect(db_path) as conn:
        version = conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0]
        assert version in (1, FEATURE_FORMAT)
        assert conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 20_005
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert len(list_backups(db_path)) == 1
    with Database(db_path) as db:
        store = SessionStore(db)
        assert [m.id for m in store.load_messages("ses_a")] == [m.id for m in chats["ses_a"]]
        assert len(store.load_all_messages("ses_b")) == 20_001


def test_two_instances_one_lock_and_no_damage(tmp_path: Path, children: list[Child]) -> None:
    root = tmp_path / "data"
    first = _start(children, "writer", str(root), "1000000")
    assert first.expect("lock") == ["lock yes"]
    first.expect("committed", 50)
    second = _start(children, "writer", str(root), "300")
    assert second.expect("lock") == ["lock no"]  # the app would focus the first window
    second.expect("committed", 300)  # both write at once (like `assista ask` does)
    second.expect("done")
    assert second.finish() == 0
    first.expect("committed", 50)
    first.kill()  # the first instance dies mid-write

    paths = DataPaths.resolve(root)
    lock = acquire_instance_lock(paths)  # the OS released the dead process's lock
    assert lock is not None and lock.previous_unclean
    with lock, Database(paths.db_path) as db:
        assert db.integrity_check() == ["ok"]
        committed = [
            line.split()[1]
            for child in (first, second)
            for line in child.seen
            if line.startswith("committed")
        ]
        rows = {r[0] for r in db.query("SELECT id FROM messages")}
        assert set(committed) <= rows
        assert len(committed) >= 400
    again = acquire_instance_lock(paths)
    assert again is not None and not again.previous_unclean  # released cleanly above
    again.release()
