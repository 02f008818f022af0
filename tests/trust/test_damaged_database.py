"""A damaged database through the real CLI: the repair is never silent. The command
that finds it says on stderr that the file was moved aside (naming it) and replaced;
an export of it exits 1, saying it holds only what could be salvaged; the next
command works as usual."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.openai_server import FakeOpenAIServer
from tests.trust.support import KEY, assista, no_traceback

MOVED = re.compile(r"moved aside to (\S+damaged\S*) and a new one was created")


def _make_chat(data: Path) -> Path:
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        server.enqueue_text("kept")
        done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test", "hi",
                       data_dir=data, env=KEY)
        assert done.returncode == 0, done.stderr
    return next(data.glob("*.sqlite3"))


def test_export_of_a_damaged_database_says_so_and_fails(tmp_path: Path) -> None:
    data = tmp_path / "data"
    db = _make_chat(data)
    db.write_bytes(b"not a database any more " * 400)
    for leftover in data.glob("*.sqlite3-*"):
        leftover.unlink()
    done = assista("export", "--format", "json", data_dir=data)
    assert done.returncode == 1 and no_traceback(done)
    found = MOVED.search(done.stderr)
    assert found, done.stderr
    moved = Path(found.group(1).rstrip(";."))
    assert moved.exists() and moved.read_bytes().startswith(b"not a database")
    assert "only what could be copied from the damaged database" in done.stderr
    again = assista("export", "--format", "json", data_dir=data)
    assert again.returncode == 0 and again.stderr == ""


def test_other_commands_warn_too(tmp_path: Path) -> None:
    data = tmp_path / "data"
    db = _make_chat(data)
    db.write_bytes(b"\x00" * 8192)
    for leftover in data.glob("*.sqlite3-*"):
        leftover.unlink()
    done = assista("undo", "--session", "x", data_dir=data)
    assert "assista: warning: The database was damaged" in done.stderr
    assert MOVED.search(done.stderr) and no_traceback(done)
