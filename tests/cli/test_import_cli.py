"""``assista import`` as a real process: our export round-trips, ChatGPT exports import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from desktop.core.messages import Message, TextPart
from desktop.storage.database import Database
from desktop.storage.paths import DataPaths
from desktop.storage.sessions import SessionStore
from tests.support import forked_cli

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "storage" / "data" / "chatgpt_conversations.json"


def assista(*args: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    return forked_cli.run(
        [sys.executable, "-m", "desktop", *args],
        capture_output=True,
        text=True,
        env=environ,
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def _seed(root: Path) -> None:
    with Database(DataPaths.resolve(root).db_path) as db:
        store = SessionStore(db)
        s = store.create_session("Seeded", model="m", system_prompt="Be terse.")
        question = Message.user("Question ünïcode 東京")
        store.save_message(s.id, question)
        first = Message(role="assistant", parts=[TextPart(text="first")])
        store.save_message(s.id, first)
        store.start_branch(s.id, first.id)
        store.save_message(s.id, Message(role="assistant", parts=[TextPart(text="second")]))
        store.set_pinned(s.id, True)


def _doc(text: str) -> dict[str, object]:
    doc = json.loads(text)
    doc.pop("exported_at")
    return doc  # type: ignore[no-any-return]


def test_export_import_export_is_identical(tmp_path: Path) -> None:
    source, target, exported = tmp_path / "a", tmp_path / "b", tmp_path / "chats.json"
    _seed(source)
    done = assista("export", "--data-dir", str(source), "--format", "json", "-o", str(exported))
    assert done.returncode == 0, done.stderr
    done = assista("import", "--data-dir", str(target), str(exported))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Imported 1 chat (3 messages) from the Assista export."
    again = assista("export", "--data-dir", str(target), "--format", "json")
    assert again.returncode == 0, again.stderr
    assert _doc(again.stdout) == _doc(exported.read_text(encoding="utf-8"))
    twice = assista("import", "--data-dir", str(target), str(exported))
    assert twice.returncode == 0
    assert "Imported 0 chats" in twice.stdout and "Seeded (already imported)" in twice.stdout


def test_chatgpt_import(tmp_path: Path) -> None:
    done = assista("import", "--data-dir", str(tmp_path), str(SAMPLE))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Imported 2 chats (10 messages) from the ChatGPT export."
    md = assista("export", "--data-dir", str(tmp_path), "--format", "markdown")
    assert "# Trip to Tokyo" in md.stdout and "### Other branch" in md.stdout


def test_import_errors_are_one_line(tmp_path: Path) -> None:
    missing = assista("import", "--data-dir", str(tmp_path), str(tmp_path / "nope.json"))
    assert missing.returncode == 1
    assert missing.stderr.startswith("assista: error: Cannot read")
    assert missing.stderr.count("\n") == 1
    other = tmp_path / "other.json"
    other.write_text('{"hello": "world"}')
    wrong = assista("import", "--data-dir", str(tmp_path), str(other))
    assert wrong.returncode == 1
    assert "neither an Assista export nor a ChatGPT" in wrong.stderr
    usage = assista("import")
    assert usage.returncode == 2 and "FILE" in usage.stderr
