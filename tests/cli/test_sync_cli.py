"""``assista sync``: a full sync between two data folders through a folder target, and
one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from desktop.core.messages import Message, TextPart
from desktop.storage.database import Database
from desktop.storage.sessions import SessionStore
from tests.support import forked_cli


def _assista(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return forked_cli.run(
        [sys.executable, "-m", "desktop", *args],
        env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=120,
        check=False,
    )


def test_sync_between_two_data_folders(tmp_path: Path) -> None:
    first, second, target = tmp_path / "one", tmp_path / "two", tmp_path / "target"
    first.mkdir()
    with Database(first / "assista.sqlite3") as db:
        store = SessionStore(db)
        chat = store.create_session("Synced chat")
        store.save_message(chat.id, Message(role="user", parts=[TextPart(text="hi there")]))
    env = {"ASSISTA_SYNC_PASSPHRASE": "pass phrase"}
    for data in (first, second):
        done = _assista("sync", "--data-dir", str(data), "--target", target.as_uri(), env=env)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("Synced in ")
    with Database(second / "assista.sqlite3") as db:
        assert [m.text for m in SessionStore(db).load_messages(chat.id)] == ["hi there"]
    wrong = _assista("sync", "--data-dir", str(second), "--target", target.as_uri(),
                     env={"ASSISTA_SYNC_PASSPHRASE": "other"})
    assert wrong.returncode == 1
    assert wrong.stderr.startswith("assista: error: The sync passphrase is wrong")
    assert wrong.stderr.count("\n") == 1


def test_sync_errors_are_one_line(tmp_path: Path) -> None:
    no_pass = _assista("sync", "--data-dir", str(tmp_path), "--target", "file:///tmp/x",
                       env={"ASSISTA_SYNC_PASSPHRASE": ""})
    assert no_pass.returncode == 1
    assert no_pass.stderr == (
        "assista: error: set ASSISTA_SYNC_PASSPHRASE to the passphrase that encrypts your "
        "synced chats\n"
    )
    bad = _assista("sync", "--data-dir", str(tmp_path), "--target", "ftp://host/x",
                   env={"ASSISTA_SYNC_PASSPHRASE": "p"})
    assert bad.returncode == 1 and "Unknown sync target" in bad.stderr
    assert bad.stderr.count("\n") == 1
    unreachable = _assista(
        "sync", "--data-dir", str(tmp_path), "--target", "webdav://u@127.0.0.1:9/dav",
        env={"ASSISTA_SYNC_PASSPHRASE": "p", "ASSISTA_SYNC_PASSWORD": "x"},
    )
    assert unreachable.returncode == 1 and "cannot be reached" in unreachable.stderr
