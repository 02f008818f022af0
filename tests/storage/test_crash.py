"""A writer killed with SIGKILL loses nothing it reported as committed."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from desktop.storage.database import Database
from desktop.storage.sessions import SessionStore

WRITER = Path(__file__).with_name("crash_writer.py")
REPO_ROOT = Path(__file__).resolve().parents[2]
WATCHDOG_S = 120.0


def _run_until_killed(db_path: Path, kill_after: int) -> tuple[str, dict[str, int]]:
    """Start the writer, SIGKILL it after ``kill_after`` commits; return what it reported."""
    pythonpath = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": pythonpath}
    proc = subprocess.Popen(
        [sys.executable, str(WRITER), str(db_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    watchdog = threading.Timer(WATCHDOG_S, proc.kill)  # never hang the test run
    watchdog.start()
    assert proc.stdout is not None
    session_id = ""
    committed: dict[str, int] = {}
    try:
        for line in proc.stdout:
            kind, *rest = line.split()
            if kind == "session":
                session_id = rest[0]
            elif kind == "committed":
                committed[rest[0]] = int(rest[1])
                if len(committed) >= kill_after:
                    proc.kill()  # SIGKILL on POSIX: no cleanup, no atexit, no close()
                    break
        # Lines already written before the kill are committed rows too.
        for line in proc.stdout:
            kind, *rest = line.split()
            if kind == "committed":
                committed[rest[0]] = int(rest[1])
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()
        stderr = proc.stderr.read() if proc.stderr else ""
        if proc.stdout:
            proc.stdout.close()
        if proc.stderr:
            proc.stderr.close()
    assert session_id, f"writer did not start: {stderr}"
    assert len(committed) >= kill_after, f"writer died early: {stderr}"
    if os.name == "posix":
        assert proc.returncode == -9, stderr
    return session_id, committed


@pytest.mark.parametrize("rounds", [(5, 137, 700)])
def test_sigkill_during_writes_loses_no_committed_message(
    tmp_path: Path, rounds: tuple[int, ...]
) -> None:
    db_path = tmp_path / "crash.sqlite3"
    expected: dict[str, dict[str, int]] = {}
    for kill_after in rounds:
        session_id, committed = _run_until_killed(db_path, kill_after)
        expected[session_id] = committed
        # Killed processes leave their WAL behind: reopening must recover from it.
        assert Path(f"{db_path}-wal").exists()

        with Database(db_path) as db:  # reopening recovers the WAL
            assert db.integrity_check() == ["ok"]
            assert db.query_one("PRAGMA foreign_key_check") is None
            store = SessionStore(db)
            for sid, messages in expected.items():
                loaded = {m.id: m for m in store.load_messages(sid)}
                missing = set(messages) - set(loaded)
                assert not missing, f"{len(missing)} committed messages lost"
                for mid, length in messages.items():
                    assert len(loaded[mid].text) >= length
                    assert loaded[mid].status in ("complete", "interrupted")
                seqs = [
                    r[0]
                    for r in db.query(
                        "SELECT seq FROM messages WHERE session_id = ? ORDER BY seq", (sid,)
                    )
                ]
                assert seqs == list(range(1, len(seqs) + 1))
            # The answer being streamed at the kill is still there, partial.
            assert store.mark_interrupted() >= 1
            statuses = {m.status for m in store.load_messages(session_id)}
            assert "streaming" not in statuses
            assert "interrupted" in statuses
