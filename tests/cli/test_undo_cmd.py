"""assista undo: the files the agent wrote in a chat's last turn are put back (a file
it created is deleted), each path reported; a file changed since refuses the undo."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.openai_server import FakeOpenAIServer
from tests.trust.support import KEY, assista


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(models=["gpt-test"]) as fake:
        yield fake


def agent_writes(server: FakeOpenAIServer, data: Path, workspace: Path,
                 files: dict[str, str], session: str | None = None) -> str:
    """One turn in which the model writes ``files``; returns the chat's id."""
    server.enqueue_tool_calls([("write_file", json.dumps({"path": p, "content": c}))
                               for p, c in files.items()])
    server.enqueue_text("Done.")
    extra = ["--session", session] if session else []
    done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test",
                   "--workspace", str(workspace), "--allow", "write_file", "--json",
                   *extra, "Write the files", data_dir=data, env=KEY)
    assert done.returncode == 0, done.stderr
    export = assista("export", "--format", "json", data_dir=data)
    sessions = json.loads(export.stdout)["sessions"]
    return str(sessions[0]["id"])


def test_undo_restores_and_deletes_then_has_nothing_left(server: FakeOpenAIServer,
                                                          tmp_path: Path) -> None:
    data, ws = tmp_path / "data", tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("old\n")
    sid = agent_writes(server, data, ws, {"a.txt": "new\n", "sub/b.txt": "created\n"})
    assert (ws / "a.txt").read_text() == "new\n" and (ws / "sub/b.txt").exists()
    done = assista("undo", "--session", sid, data_dir=data)
    assert done.returncode == 0, done.stderr
    lines = sorted(done.stdout.splitlines())
    assert lines == [f"deleted\t{ws.resolve() / 'sub/b.txt'}",
                     f"restored\t{ws.resolve() / 'a.txt'}"]
    assert (ws / "a.txt").read_text() == "old\n" and not (ws / "sub/b.txt").exists()
    again = assista("undo", "--session", sid, data_dir=data)
    assert again.returncode == 1 and "nothing to undo" in again.stderr
    assert "Traceback" not in again.stderr


def test_undo_refuses_when_a_file_changed_since(server: FakeOpenAIServer,
                                                tmp_path: Path) -> None:
    data, ws = tmp_path / "data", tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("v1\n")
    sid = agent_writes(server, data, ws, {"a.txt": "v2\n", "c.txt": "new\n"})
    (ws / "a.txt").write_text("edited by the user\n")
    done = assista("undo", "--session", sid, data_dir=data)
    assert done.returncode == 1
    assert "changed since" in done.stderr and "a.txt" in done.stderr
    assert (ws / "a.txt").read_text() == "edited by the user\n"
    assert (ws / "c.txt").read_text() == "new\n"  # nothing was touched


def test_undo_of_an_earlier_turn_by_its_question(server: FakeOpenAIServer,
                                                 tmp_path: Path) -> None:
    data, ws = tmp_path / "data", tmp_path / "ws"
    ws.mkdir()
    sid = agent_writes(server, data, ws, {"one.txt": "1\n"})
    agent_writes(server, data, ws, {"two.txt": "2\n"}, session=sid)
    export = json.loads(assista("export", "--format", "json", data_dir=data).stdout)
    questions = [m["id"] for m in export["sessions"][0]["messages"] if m["role"] == "user"]
    done = assista("undo", "--session", sid, "--turn", questions[0], data_dir=data)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("deleted\t") and "one.txt" in done.stdout
    assert not (ws / "one.txt").exists() and (ws / "two.txt").exists()
    unknown = assista("undo", "--session", sid, "--turn", "nope", data_dir=data)
    assert unknown.returncode == 1 and "no message with id 'nope'" in unknown.stderr
    no_chat = assista("undo", "--session", "nope", data_dir=data)
    assert no_chat.returncode == 1 and "no chat with id 'nope'" in no_chat.stderr


def test_undo_puts_back_what_a_sandboxed_command_created_changed_and_deleted(
        server: FakeOpenAIServer, tmp_path: Path) -> None:
    from desktop.tools.sandbox import bwrap_problem

    assert bwrap_problem() is None, bwrap_problem()  # (.ci/run installs bubblewrap)
    data, ws = tmp_path / "data", tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("old\n")
    (ws / "gone.txt").write_text("mine\n")
    server.enqueue_tool_calls([("run_command", json.dumps(
        {"command": "echo more >> a.txt; rm gone.txt; mkdir sub; echo new > sub/b.txt"}))])
    server.enqueue_text("Done.")
    done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test",
                   "--workspace", str(ws), "--allow", "run_command", "--json",
                   "Change the files", data_dir=data, env=KEY)
    assert done.returncode == 0, done.stderr
    assert (ws / "a.txt").read_text() == "old\nmore\n" and not (ws / "gone.txt").exists()
    sid = str(json.loads(assista("export", "--format", "json",
                                 data_dir=data).stdout)["sessions"][0]["id"])
    (ws / "sub" / "b.txt").write_text("the user's\n")
    refused = assista("undo", "--session", sid, data_dir=data)
    assert refused.returncode == 1 and "changed since" in refused.stderr
    assert str(ws.resolve() / "sub/b.txt") in refused.stderr
    assert (ws / "a.txt").read_text() == "old\nmore\n"  # nothing was touched
    (ws / "sub" / "b.txt").write_text("new\n")  # (as the command left it)
    undone = assista("undo", "--session", sid, data_dir=data)
    assert undone.returncode == 0, undone.stderr
    assert sorted(undone.stdout.splitlines()) == [
        f"deleted\t{ws.resolve() / 'sub/b.txt'}", f"restored\t{ws.resolve() / 'a.txt'}",
        f"restored\t{ws.resolve() / 'gone.txt'}"]
    assert (ws / "a.txt").read_text() == "old\n" and (ws / "gone.txt").read_text() == "mine\n"
    assert sorted(p.name for p in ws.iterdir()) == ["a.txt", "gone.txt"]
