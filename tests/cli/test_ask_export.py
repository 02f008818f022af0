"""``assista ask`` and ``assista export`` run as real processes against a loopback server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.waits import WAIT_SCALE_VARIABLE
from tests.support import forked_cli
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(models=["gpt-test"]) as fake:
        yield fake


def assista(*args: str, data_dir: Path, env: dict[str, str] | None = None,
            stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items()
               if not k.endswith("_API_KEY") and k not in ("OPENAI_BASE_URL",)}
    environ.update({"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"})
    environ.update(env or {})
    command = [sys.executable, "-m", "desktop", *args]
    if args and args[0] in ("ask", "export"):
        command += ["--data-dir", str(data_dir)]
    return forked_cli.run(command, capture_output=True, text=True, env=environ, cwd=ROOT,
                          input=stdin, timeout=60, check=False)


KEY = {"OPENAI_API_KEY": "sk-cli-test-key-0123456789"}


def test_ask_streams_plain_text_exactly(server: FakeOpenAIServer, tmp_path: Path) -> None:
    server.enqueue_text("Hello, *world*!\nSecond line", chunk_size=2)
    done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test", "Say hi",
                   data_dir=tmp_path, env=KEY)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello, *world*!\nSecond line"
    body = server.last_chat_body
    assert body["model"] == "gpt-test" and body["stream"] is True
    assert body["messages"][-1] == {"role": "user", "content": "Say hi"}
    # The window's rule: without a workspace only the tools that need no folder (and
    # remember: memory is on).
    assert [t["function"]["name"] for t in body["tools"]] == ["fetch_url", "remember"]
    headers = server.chat_requests[0].headers
    assert headers["authorization"] == "Bearer sk-cli-test-key-0123456789"


def test_ask_json_events_and_tool_use(server: FakeOpenAIServer, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    server.enqueue_tool_calls([("read_file", json.dumps({"files": [{"path": "notes.txt"}]}))])
    server.enqueue_text("It says alpha and beta.")
    done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test",
                   "--workspace", str(workspace), "--tools", "read_file", "--json",
                   "What is in notes.txt?", data_dir=tmp_path, env=KEY)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    types = [e["type"] for e in events]
    assert "tool_call_started" in types and "tool_call_complete" in types
    assert "tool_run_started" in types and "tool_run_finished" in types
    finished = next(e for e in events if e["type"] == "tool_run_finished")
    assert finished["result"]["status"] == "succeeded"
    assert "alpha" in finished["result"]["content"]
    text = "".join(e["text"] for e in events if e["type"] == "text_delta")
    assert text == "It says alpha and beta."
    assert events[-2]["type"] == "run_finished" and events[-2]["status"] == "complete"
    final = events[-1]
    assert final["type"] == "messages"
    assert [m["role"] for m in final["messages"]] == ["user", "assistant", "tool", "assistant"]
    tools_sent = server.chat_requests[0].json["tools"]
    assert [t["function"]["name"] for t in tools_sent] == ["read_file"]


def test_ask_error_is_one_line_on_stderr(server: FakeOpenAIServer, tmp_path: Path) -> None:
    server.enqueue(ScriptedResponse.error(401, "Incorrect API key provided: sk-cli-t***"))
    done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test", "hi",
                   data_dir=tmp_path, env=KEY)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("assista: error:") and "401" in lines[0]
    assert "Traceback" not in done.stderr
    assert "sk-cli-test-key-0123456789" not in done.stderr


def test_ask_without_provider_says_what_to_do(tmp_path: Path) -> None:
    done = assista("ask", "hi", data_dir=tmp_path)
    assert done.returncode != 0
    assert "no provider configured" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_ask_unreachable_server(tmp_path: Path) -> None:
    from tests.support.openai_server import unused_port

    url = f"http://127.0.0.1:{unused_port()}/v1"
    # (every retry of the refused connection, with the backoff a hundredth as long)
    done = assista("ask", "--base-url", url, "--model", "m", "hi", data_dir=tmp_path,
                   env={**KEY, WAIT_SCALE_VARIABLE: "0.01"})
    assert done.returncode != 0
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_export_after_ask(server: FakeOpenAIServer, tmp_path: Path) -> None:
    server.enqueue_text("Exported answer")
    assert assista("ask", "--base-url", server.base_url, "--model", "gpt-test", "Question one",
                   data_dir=tmp_path, env=KEY).returncode == 0
    as_json = assista("export", "--format", "json", data_dir=tmp_path)
    assert as_json.returncode == 0, as_json.stderr
    data = json.loads(as_json.stdout)
    assert len(data["sessions"]) == 1
    session = data["sessions"][0]
    assert session["title"] == "Question one"
    assert [m["role"] for m in session["messages"]] == ["user", "assistant"]
    assert session["messages"][1]["parts"][0] == {
        "type": "text", "text": "Exported answer", "provider_data": {}}
    as_md = assista("export", "--format", "markdown", "--session", session["id"],
                    data_dir=tmp_path)
    assert as_md.returncode == 0
    assert "Question one" in as_md.stdout and "Exported answer" in as_md.stdout
    assert "sk-cli-test-key" not in as_md.stdout + as_json.stdout
    missing = assista("export", "--format", "json", "--session", "nope", data_dir=tmp_path)
    assert missing.returncode != 0 and "nope" in missing.stderr


def test_version() -> None:
    done = subprocess.run([sys.executable, "-m", "desktop", "--version"], capture_output=True,
                          text=True, cwd=ROOT, check=False)
    assert done.returncode == 0 and done.stdout.startswith("assista ")
