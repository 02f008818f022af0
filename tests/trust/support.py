"""Running the real CLI in a child process and comparing a data folder before/after."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.support import forked_cli

ROOT = Path(__file__).resolve().parents[2]
KEY = {"OPENAI_API_KEY": "sk-trust-test-key-0123456789"}


def assista(*args: str, data_dir: Path, env: dict[str, str] | None = None,
            stdin: str | bytes | None = None, timeout: float = 60,
            preexec: object = None) -> subprocess.CompletedProcess[str]:
    """``python -m desktop ARGS --data-dir DIR`` with no real keys or keyring."""
    environ = {k: v for k, v in os.environ.items()
               if not k.endswith("_API_KEY") and k not in ("OPENAI_BASE_URL",)}
    environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    environ.update(env or {})
    command = [sys.executable, "-m", "desktop", *args, "--data-dir", str(data_dir)]
    data = stdin.encode() if isinstance(stdin, str) else stdin
    done = forked_cli.run(command, capture_output=True, env=environ, cwd=ROOT, input=data,
                          timeout=timeout, check=False,
                          preexec_fn=preexec)  # type: ignore[arg-type]
    return subprocess.CompletedProcess(done.args, done.returncode,
                                       done.stdout.decode("utf-8", "replace"),
                                       done.stderr.decode("utf-8", "replace"))


def state(data_dir: Path) -> tuple[str, str]:
    """(the JSON export of every chat, PRAGMA integrity_check) of a data folder."""
    export = assista("export", "--format", "json", data_dir=data_dir)
    assert export.returncode == 0, export.stderr
    doc = json.loads(export.stdout)
    doc.pop("exported_at", None)  # the one field that changes from run to run
    db = next(data_dir.glob("*.sqlite3"))
    with sqlite3.connect(db) as conn:
        check = conn.execute("PRAGMA integrity_check").fetchone()[0]
    return json.dumps(doc, sort_keys=True), str(check)


def no_traceback(done: subprocess.CompletedProcess[str]) -> bool:
    return "Traceback" not in done.stderr and "Traceback" not in done.stdout
