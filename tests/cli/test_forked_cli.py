"""The tests' way of running ``python -m desktop`` (tests/support/forked_cli.py): a fork
of a warm interpreter behaves as a fresh ``python -m desktop`` does, for what the
tests look at (output, errors, exit status, stdin, environment, working directory)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import forked_cli
from tests.support.openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "desktop"]


def both(*args: str, **kwargs: Any) -> tuple[subprocess.CompletedProcess[Any],
                                               subprocess.CompletedProcess[Any]]:
    """The command run fresh, then forked (checked to be forked)."""
    fresh = subprocess.run([*CLI, *args], check=False, **kwargs)
    before = forked_cli.started["forked"]
    forked = forked_cli.run([*CLI, *args], **kwargs)
    assert forked_cli.started["forked"] == before + 1
    return fresh, forked


@pytest.mark.parametrize("args", [
    ["--version"],
    ["--help"],
    ["no-such-command"],                      # argparse: exit 2, usage on stderr
    ["export", "--format", "json"],           # the data folder is missing: exit 1
    ["sync", "--target", "ftp://host/x"],     # the passphrase variable is empty: exit 1
])
def test_output_and_exit_status_are_a_fresh_processes(tmp_path: Path, args: list[str]) -> None:
    args = [*args, "--data-dir", str(tmp_path / "missing")] if args[0] in (
        "export", "sync") else args
    env = {**os.environ, "ASSISTA_SYNC_PASSPHRASE": ""}
    fresh, forked = both(*args, capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        fresh.returncode, fresh.stdout, fresh.stderr)


def test_environment_working_directory_and_stdin_reach_the_command(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
           "OPENAI_API_KEY": "sk-forked-cli-test"}
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        for name in ("fresh", "forked"):
            server.enqueue_text(f"answer for {name}")
            run = subprocess.run if name == "fresh" else forked_cli.run
            done = run([*CLI, "ask", "--base-url", server.base_url, "--model", "gpt-test",
                        "--data-dir", name, "-"], input=f"question from {name} on stdin",
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60,
                       check=False)
            assert (done.returncode, done.stdout) == (0, f"answer for {name}"), done.stderr
            request = server.chat_requests[-1]
            assert request.json["messages"][-1]["content"] == f"question from {name} on stdin"
            assert request.headers["authorization"] == "Bearer sk-forked-cli-test"
    assert (tmp_path / "forked").is_dir() and (tmp_path / "fresh").is_dir()


def test_a_timeout_kills_the_command(tmp_path: Path) -> None:
    """A server that takes the connection and never answers: the command is killed."""
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
           "OPENAI_API_KEY": "sk-forked-cli-test"}
    with socket.create_server(("127.0.0.1", 0)) as silent:
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        command = [*CLI, "ask", "--no-save", "--base-url", url, "--model", "m",
                   "--data-dir", str(tmp_path / "data"), "hi"]
        try:
            done = forked_cli.run(command, capture_output=True, text=True, env=env,
                                  timeout=1)  # (the app's own request timeout is minutes)
        except subprocess.TimeoutExpired:
            return
    pytest.fail(f"the command ended by itself (exit {done.returncode}): {done.stderr}")


def test_what_a_fork_cannot_carry_starts_fresh() -> None:
    before = dict(forked_cli.started)
    env = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    done = forked_cli.run([*CLI, "--version"], capture_output=True, text=True, env=env,
                          timeout=60)
    assert done.returncode == 0
    forked_cli.run([*CLI, "--version"], capture_output=True, preexec_fn=os.getpid, timeout=60)
    forked_cli.run([sys.executable, "-c", "pass"], timeout=60)
    assert forked_cli.started["fresh"] == before["fresh"] + 3
    assert forked_cli.started["forked"] == before["forked"]
