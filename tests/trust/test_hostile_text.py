"""A hostile model or server through the real CLI: what reaches the terminal besides
the answer (tool lines, errors) has its escape sequences spelled out, never sent."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

from tests.support.openai_server import FakeOpenAIServer
from tests.trust.support import KEY, ROOT, assista, no_traceback

ESCAPES = "\x1b[2J\x1b]0;pwned\x07\r\x1b[32m✔ Safe: read-only\x1b[0m \u202eevil"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]")


def ask_on_a_terminal(*args: str, data: Path) -> tuple[int, str]:
    """``assista ask ARGS`` with stderr on a pseudo-terminal (tool lines are shown
    only there); returns the exit status and what the terminal got (its own CR LF
    line ends made plain)."""
    environ = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environ.update(KEY, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    master, slave = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "desktop", "ask", *args, "--data-dir",
                               str(data)], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=slave, env=environ, cwd=ROOT,
                              timeout=60, check=False)
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the other side is closed and drained
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(master)
    return done.returncode, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


def test_tool_lines_and_errors_spell_escape_sequences_out(tmp_path: Path) -> None:
    data, ws = tmp_path / "data", tmp_path / "ws"
    ws.mkdir()
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        server.enqueue_tool_calls([("write_file", '{"path": "a' + ESCAPES + '", "content": 1}')])
        server.enqueue_text("done")
        code, terminal = ask_on_a_terminal(
            "--base-url", server.base_url, "--model", "gpt-test", "--workspace", str(ws),
            "--tools", "write_file", "hi", data=data)
        assert code == 0, terminal
        assert "⚙ write_file" in terminal
        assert not RAW.search(terminal.replace("\n", "")), terminal
        assert "\\x1b[2J\\x1b]0;pwned\\x07\\r\\x1b[32m✔ Safe" in terminal
        server.enqueue_error(400, "bad request " + ESCAPES)
        failed = assista("ask", "--base-url", server.base_url, "--model", "gpt-test", "hi",
                         data_dir=data, env=KEY)
    assert failed.returncode == 1 and no_traceback(failed)
    assert not RAW.search(failed.stderr.rstrip("\n")), failed.stderr
    assert "\\u202eevil" in failed.stderr
