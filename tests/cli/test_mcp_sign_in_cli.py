"""Remote MCP sign-in from the terminal, as real processes against the SDK server
guarded by OAuth (tests/tools/mcp_oauth_server.py): without a TTY the command says
how to sign in; ``assista mcp login`` prints the address and waits for the
redirect (the test plays the browser with httpx); ``logout`` forgets it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.cli.test_ask_export import KEY, ROOT, assista
from tests.cli.test_mcp_cli import config_file
from tests.support.openai_server import FakeOpenAIServer
from tests.tools.mcp_servers import HERE, ServerProcess

GUARDED = str(HERE / "mcp_oauth_server.py")
NEEDS = "server guarded needs sign-in: run the app or assista mcp login guarded"


@pytest.fixture(scope="module")
def guarded() -> Iterator[ServerProcess]:
    """One OAuth-guarded server for the module: each test signs in (or not) from a new
    data folder, so what the server remembers of earlier sign-ins does not matter."""
    process = ServerProcess(GUARDED)
    yield process
    process.stop()


def login(tmp_path: Path, config: str) -> tuple[int, str, str]:
    environ = dict(os.environ, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    process = subprocess.Popen(
        [sys.executable, "-m", "desktop", "mcp", "login", "guarded", "--data-dir",
         str(tmp_path), "--mcp-config", config],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
        env=environ, cwd=ROOT)
    assert process.stderr is not None
    seen: list[str] = []
    try:
        for line in process.stderr:
            seen.append(line)
            if line.strip().startswith("http://127.0.0.1"):
                page = httpx.get(line.strip(), follow_redirects=True, trust_env=False)
                assert "Signed in" in page.text
                break
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, out, "".join(seen) + err


def test_sign_in_from_the_terminal(tmp_path: Path, guarded: ServerProcess) -> None:
    config = config_file(tmp_path, {"guarded": {"type": "http", "url": guarded.url()}})
    listing = ("mcp", "list", "--data-dir", str(tmp_path), "--mcp-config", config)

    before = assista(*listing, data_dir=tmp_path)
    assert before.returncode == 1
    assert f"assista: warning: {NEEDS}" in before.stderr
    assert before.stdout == ""
    document = assista(*listing, "--json", data_dir=tmp_path)
    [entry] = json.loads(document.stdout)["servers"]
    assert (entry["state"], entry["needs_sign_in"], entry["error"]) == (
        "failed", True, "needs sign-in")

    code, out, err = login(tmp_path, config)
    assert code == 0, err
    assert "Open this address in your browser to sign in" in err
    assert out == "Signed in to guarded.\n"

    after = assista(*listing, data_dir=tmp_path)
    assert after.returncode == 0, after.stderr
    assert after.stdout.splitlines() == ["guarded\ttool\twhoami", "guarded\ttool\tauth_stats"]

    out_done = assista("mcp", "logout", "guarded", "--data-dir", str(tmp_path),
                       "--mcp-config", config, data_dir=tmp_path)
    assert out_done.returncode == 0 and out_done.stdout == "Signed out of guarded.\n"
    again = assista(*listing, data_dir=tmp_path)
    assert again.returncode == 1 and NEEDS in again.stderr


def test_login_to_a_stdio_server_is_refused(tmp_path: Path) -> None:
    config = config_file(tmp_path, {"local": {"command": "echo"}})
    done = assista("mcp", "login", "local", "--data-dir", str(tmp_path), "--mcp-config",
                   config, data_dir=tmp_path)
    assert done.returncode == 1
    assert "is started as a command: it has no sign-in" in done.stderr


def test_ask_without_a_terminal_says_how_to_sign_in_and_still_answers(
    tmp_path: Path, guarded: ServerProcess,
) -> None:
    config = config_file(tmp_path, {"guarded": {"type": "http", "url": guarded.url()}})
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        server.enqueue_text("Hello without the guarded tools.")
        done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test",
                       "--mcp-config", config, "hi", data_dir=tmp_path, env=KEY)
    assert done.returncode == 0, done.stderr
    assert f"assista: warning: {NEEDS}" in done.stderr
    assert done.stdout.strip() == "Hello without the guarded tools."
