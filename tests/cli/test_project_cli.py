"""``assista project ...`` and ``assista ask --project``: a project's instructions and
files reach its chats and no others (a loopback server records the requests), and
deleting a project keeps its chats and says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desktop.app import AppContext
from desktop.storage.secrets import SecretStore
from tests.chat.conftest import add_provider
from tests.cli.test_ask_export import assista
from tests.support.openai_server import FakeOpenAIServer

INSTRUCTIONS = "Answer as the head gardener of Kew."
NOTE = "The greenhouse code is 4417."


def _system(body: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")


def _data(tmp_path: Path, server: FakeOpenAIServer) -> Path:
    data = tmp_path / "data"
    ctx = AppContext.open(data, environ={}, log_to_stderr=False)
    ctx.secrets = SecretStore(ctx.paths.secrets_path, force_file=True)
    try:
        add_provider(ctx, server)
    finally:
        ctx.close()
    return data


def _project(*args: str, data: Path) -> Any:
    return assista("project", *args, "--data-dir", str(data), data_dir=data)


def _session_ids(data: Path) -> dict[str, str | None]:
    ctx = AppContext.open(data, environ={}, log_to_stderr=False)
    try:
        return {s.id: s.project_id for s in ctx.sessions.list_sessions()}
    finally:
        ctx.close()


def test_project_commands_and_ask_in_a_project(tmp_path: Path) -> None:
    notes = tmp_path / "greenhouse.md"
    notes.write_text(NOTE + "\n", encoding="utf-8")
    guide = tmp_path / "guide.txt"
    guide.write_text(INSTRUCTIONS, encoding="utf-8")
    with FakeOpenAIServer(models=["gpt-test", "gpt-garden"]) as server:
        data = _data(tmp_path, server)
        made = _project("create", "Garden", "--instructions-file", str(guide),
                        "--file", str(notes), "--model", "gpt-garden", data=data)
        assert made.returncode == 0, made.stderr
        assert "created project Garden" in made.stdout
        for answer in ("one", "two", "three"):
            server.enqueue_text(answer)
        asked = assista("ask", "--project", "Garden", "What is the code?", data_dir=data)
        assert asked.returncode == 0, asked.stderr
        (in_project,) = _session_ids(data)
        other = assista("ask", "What is the code?", data_dir=data)
        assert other.returncode == 0, other.stderr
        again = assista("ask", "--project", "garden", "--session", in_project, "More?",
                        data_dir=data)
        assert again.returncode == 0, again.stderr
        first, second, third = (r.json for r in server.chat_requests)

        listed = _project("list", data=data)
        shown = _project("show", "Garden", data=data)
        deleted = _project("delete", "Garden", data=data)
        after = _project("list", data=data)
        sessions = _session_ids(data)

    assert INSTRUCTIONS in _system(first) and NOTE in _system(first)
    assert first["model"] == "gpt-garden"
    assert INSTRUCTIONS not in _system(second) and NOTE not in _system(second)
    assert INSTRUCTIONS in _system(third) and NOTE in _system(third)
    assert [m["content"] for m in third["messages"] if m["role"] != "system"] == [
        "What is the code?", "one", "More?"]
    name, chats, files, project_id = listed.stdout.strip().split("\t")
    assert (name, chats, files) == ("Garden", "1", "1") and len(project_id) == 32
    assert "greenhouse.md" in shown.stdout and "in context" in shown.stdout
    assert in_project in shown.stdout and INSTRUCTIONS in shown.stdout
    assert deleted.returncode == 0, deleted.stderr
    assert "its 1 chat is kept, now in no project" in deleted.stdout
    assert after.stdout == ""
    assert len(sessions) == 2 and sessions[in_project] is None  # kept, in no project


def test_bad_project_input_says_what_and_changes_nothing(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        data = _data(tmp_path, server)
        missing = _project("create", "Garden", "--file", str(tmp_path / "nope.md"), data=data)
        unknown = assista("ask", "--project", "Nowhere", "hi", data_dir=data)
        kb = _project("create", "Garden", "--knowledge", "No such base", data=data)
        assert _project("create", "Garden", data=data).returncode == 0
        twice = _project("create", "garden", data=data)
        show = _project("show", "Nowhere", data=data)
        listed = _project("list", data=data)
        assert server.chat_requests == []
    assert missing.returncode == 1 and "no such file" in missing.stderr
    assert unknown.returncode == 1 and "no project named 'Nowhere'" in unknown.stderr
    assert kb.returncode == 1 and "no knowledge base named" in kb.stderr
    assert twice.returncode == 1 and "already a project named" in twice.stderr
    assert show.returncode == 1 and "there are: Garden" in show.stderr
    assert [line.split("\t")[0] for line in listed.stdout.splitlines()] == ["Garden"]
    assert json.dumps(_session_ids(data)) == "{}"
