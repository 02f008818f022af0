"""``assista ask`` with tools that need approval: non-TTY denial, --approve-all, --allow,
a terminal prompt (a real pseudo-terminal), and --mcp-config with a real stdio server."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import forked_cli
from tests.support.openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]
SERVER = str(Path(__file__).with_name("mcp_test_server.py"))
KEY = {"OPENAI_API_KEY": "sk-cli-test-key-0123456789"}
WRITE = ("write_file", json.dumps({"path": "out.txt", "content": "hello\n"}))


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(models=["gpt-test"]) as fake:
        yield fake


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


def environ() -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "OPENAI_BASE_URL"
    }
    env.update(KEY, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    return env


def ask_args(server: FakeOpenAIServer, data_dir: Path, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "desktop",
        "ask",
        "--data-dir",
        str(data_dir),
        "--base-url",
        server.base_url,
        "--model",
        "gpt-test",
        "--json",
        *args,
    ]


def ask(
    server: FakeOpenAIServer, data_dir: Path, *args: str, stdin: str = "", fresh: bool = False
) -> subprocess.CompletedProcess[str]:
    """``assista ask``; ``fresh``: a new interpreter, not a fork of the warm one (what
    ``/proc/<pid>/environ`` shows is the process's own start-up environment)."""
    return (subprocess.run if fresh else forked_cli.run)(
        ask_args(server, data_dir, *args),
        capture_output=True,
        text=True,
        env=environ(),
        cwd=ROOT,
        input=stdin,
        timeout=120,
        check=False,
    )


def tool_results(stdout: str) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in stdout.splitlines()]
    return [e["result"] for e in events if e["type"] == "tool_run_finished"]


def test_without_a_terminal_the_call_is_denied(
    server: FakeOpenAIServer, tmp_path: Path, workspace: Path
) -> None:
    server.enqueue_tool_calls([WRITE])
    server.enqueue_text("I could not write it.")
    done = ask(
        server, tmp_path, "--workspace", str(workspace), "--tools", "write_file", "Write out.txt"
    )
    assert done.returncode == 0, done.stderr
    [result] = tool_results(done.stdout)
    assert result["status"] == "denied"
    assert not (workspace / "out.txt").exists()
    tool_message = server.chat_requests[1].json["messages"][-1]
    assert tool_message["role"] == "tool" and "denied" in tool_message["content"]


def test_approve_all(server: FakeOpenAIServer, tmp_path: Path, workspace: Path) -> None:
    server.enqueue_tool_calls([WRITE])
    server.enqueue_text("Done.")
    done = ask(
        server,
        tmp_path,
        "--workspace",
        str(workspace),
        "--tools",
        "write_file",
        "--approve-all",
        "Write out.txt",
    )
    assert done.returncode == 0, done.stderr
    assert [r["status"] for r in tool_results(done.stdout)] == ["succeeded"]
    assert (workspace / "out.txt").read_text() == "hello\n"


def test_allow_names_one_tool(server: FakeOpenAIServer, tmp_path: Path, workspace: Path) -> None:
    command = ("run_command", json.dumps({"command": "touch ran.txt"}))
    server.enqueue_tool_calls([WRITE, command])
    server.enqueue_text("Half done.")
    done = ask(
        server,
        tmp_path,
        "--workspace",
        str(workspace),
        "--tools",
        "run_command",
        "--allow",
        "write_file",
        "Go",
    )
    assert done.returncode == 0, done.stderr
    statuses = [r["status"] for r in tool_results(done.stdout)]
    assert sorted(statuses) == ["denied", "succeeded"]
    assert (workspace / "out.txt").exists() and not (workspace / "ran.txt").exists()
    sent = [t["function"]["name"] for t in server.chat_requests[0].json["tools"]]
    assert sent == ["write_file", "run_command"]


def test_a_command_that_exits_non_zero_is_a_failed_call(
    server: FakeOpenAIServer, tmp_path: Path, workspace: Path
) -> None:
    """``ask --json`` reported exit code 2 as "succeeded"; the model still gets it all."""
    command = ("run_command", json.dumps({"command": "echo some output; exit 2"}))
    server.enqueue_tool_calls([command])
    server.enqueue_text("It failed with code 2.")
    done = ask(server, tmp_path, "--workspace", str(workspace), "--tools", "run_command",
               "--approve-all", "Run it")
    assert done.returncode == 0, done.stderr
    [result] = tool_results(done.stdout)
    assert result["status"] == "failed" and result["is_error"] is True
    error = json.loads(result["content"])["error"]
    assert error["exit_code"] == 2 and error["stdout"] == "some output\n"
    sent = json.loads(server.chat_requests[1].json["messages"][-1]["content"])
    assert sent["error"]["exit_code"] == 2 and sent["error"]["stdout"] == "some output\n"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl")
def test_a_command_cannot_read_the_apps_own_environment(
    server: FakeOpenAIServer, tmp_path: Path, workspace: Path
) -> None:
    """``cat /proc/$PPID/environ`` printed the API keys assista was started with. The
    command's parent and its parent (the supervisor, then the app) are read (as root
    too, which ptrace rules do not stop)."""
    key = KEY["OPENAI_API_KEY"]
    script = (
        "pid=$PPID; for i in 1 2; do "
        "echo \"[$pid $(tr -d '\\n' < /proc/$pid/comm)]\"; "
        "tr '\\0' '\\n' < /proc/$pid/environ; "
        "pid=$(sed 's/.*) //' /proc/$pid/stat | cut -d' ' -f2); done; echo end of list"
    )
    server.enqueue_tool_calls([("run_command", json.dumps({"command": script}))])
    server.enqueue_text("Read.")
    done = ask(server, tmp_path, "--workspace", str(workspace), "--tools", "run_command",
               "--approve-all", "Read the environment", fresh=True)
    assert done.returncode == 0, done.stderr
    [result] = tool_results(done.stdout)
    content = result["content"]
    assert "end of list" in content and "PATH=" in content  # the reads themselves worked
    assert content.count("[") >= 2  # (both the supervisor's and the app's were read)
    assert key not in content and "OPENAI_API_KEY" not in content
    assert key not in json.dumps(server.chat_requests[1].json["messages"])


def test_unknown_allow_name_is_an_error(server: FakeOpenAIServer, tmp_path: Path) -> None:
    done = ask(server, tmp_path, "--allow", "nope", "Hi")
    assert done.returncode == 1
    assert done.stderr.startswith("assista: error: unknown tool(s): nope;")
    assert len(done.stderr.strip().splitlines()) == 1


def test_terminal_prompt(server: FakeOpenAIServer, tmp_path: Path, workspace: Path) -> None:
    """stdin is a pseudo-terminal: the prompt shows the diff; "always" is remembered."""
    server.enqueue_tool_calls([WRITE])
    server.enqueue_text("Written.")
    master, slave = pty.openpty()
    try:
        os.write(master, b"always\n")
        done = subprocess.run(
            ask_args(
                server,
                tmp_path,
                "--workspace",
                str(workspace),
                "--tools",
                "write_file",
                "Write out.txt",
            ),
            stdin=slave,
            capture_output=True,
            text=True,
            env=environ(),
            cwd=ROOT,
            timeout=120,
            check=False,
        )
    finally:
        os.close(slave)
        os.close(master)
    assert done.returncode == 0, done.stderr
    assert "The agent wants to use write_file" in done.stderr
    assert "+hello" in done.stderr  # the diff
    assert "[a]lways allows, in every chat: writes to paths matching out.txt" in done.stderr
    assert (workspace / "out.txt").read_text() == "hello\n"
    grants = json.loads((tmp_path / "tool_grants.json").read_text())
    assert [(g["tool"], g["scope"]) for g in grants["grants"]] == [("write_file", "out.txt")]
    # the next run needs no terminal at all
    (workspace / "out.txt").unlink()
    server.enqueue_tool_calls([WRITE])
    server.enqueue_text("Again.")
    again = ask(server, tmp_path, "--workspace", str(workspace), "--tools", "write_file", "Again")
    assert [r["status"] for r in tool_results(again.stdout)] == ["succeeded"]


def test_mcp_config_file(server: FakeOpenAIServer, tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps({"mcpServers": {"test": {"command": sys.executable, "args": [SERVER, "stdio"]}}})
    )
    server.enqueue_tool_calls(
        [("test__add", '{"a": 20, "b": 22}'), ("test__echo", '{"text": "hi"}')]
    )
    server.enqueue_text("42.")
    done = ask(server, tmp_path, "--mcp-config", str(config), "What is 20+22?")
    assert done.returncode == 0, done.stderr
    results = {r["name"]: r for r in tool_results(done.stdout)}
    assert results["test__add"]["status"] == "succeeded"
    assert '"text":"42"' in results["test__add"]["content"]
    assert results["test__echo"]["status"] == "denied"  # Ask, and no terminal
    sent = {t["function"]["name"] for t in server.chat_requests[0].json["tools"]}
    assert {"test__add", "test__echo", "test__pid"} <= sent


def test_broken_mcp_server_is_a_warning(server: FakeOpenAIServer, tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"gone": {"command": "assista-no-such-cmd"}}}))
    server.enqueue_text("Hello.")
    done = ask(server, tmp_path, "--mcp-config", str(config), "Hi")
    assert done.returncode == 0, done.stderr
    assert "assista: warning: MCP server 'gone' is not available" in done.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    failed = ask(server, tmp_path, "--mcp-config", str(bad), "Hi")
    assert failed.returncode == 1
    assert failed.stderr.strip() == (
        "assista: error: MCP configuration is not valid JSON "
        "(Expecting property name enclosed in double quotes at line 1)"
    )
