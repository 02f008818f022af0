"""The real CLI against bad input: a prompt that is not UTF-8, a reader that goes away
(`assista ask | head`), an export to a full disk. One clear line, never a traceback,
and nothing lost."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import forked_cli
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream
from tests.trust.support import KEY, ROOT, assista, no_traceback, state

ANSWER = "One two three four five six seven eight nine ten."


def env() -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items()
               if not k.endswith("_API_KEY") and k != "OPENAI_BASE_URL"}
    environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    return {**environ, **KEY}


def stored_answers(data: Path) -> list[str]:
    doc = json.loads(state(data)[0])
    return [m_text(m) for s in doc["sessions"] for m in s["messages"]
            if m["role"] == "assistant"]


def m_text(message: dict[str, object]) -> str:
    parts = message.get("parts") or []
    return "".join(str(p.get("text", "")) for p in parts if isinstance(p, dict))  # type: ignore[union-attr]


def test_a_prompt_that_is_not_utf8_is_sent_with_replacements(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        server.enqueue_text("ok")
        done = subprocess.run(
            [sys.executable.encode(), b"-m", b"desktop", b"ask", b"--base-url",
             server.base_url.encode(), b"--model", b"gpt-test", b"--data-dir",
             str(data).encode(), b"caf\xe9 \xff"],
            capture_output=True, env=env(), cwd=ROOT, timeout=60, check=False)
        sent = server.last_chat_body["messages"][-1]["content"]
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "not valid UTF-8" in err and "Traceback" not in err
    assert sent == "caf\ufffd \ufffd"
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        server.enqueue_text("ok")
        piped = forked_cli.run(
            [sys.executable, "-m", "desktop", "ask", "--base-url", server.base_url,
             "--model", "gpt-test", "--data-dir", str(data), "-"],
            input=b"bad \xc3( bytes", capture_output=True, env=env(), cwd=ROOT, timeout=60,
            check=False)
    assert piped.returncode == 0 and "not valid UTF-8" in piped.stderr.decode()


def test_a_reader_that_goes_away_keeps_the_whole_answer(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        held = ScriptedResponse(chunks=text_stream(ANSWER, chunk_size=4), hold_after=2)
        server.enqueue(held)
        child = subprocess.Popen(
            [sys.executable, "-m", "desktop", "ask", "--base-url", server.base_url,
             "--model", "gpt-test", "--data-dir", str(data), "count"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(), cwd=ROOT)
        assert child.stdout is not None and child.stderr is not None
        try:
            assert child.stdout.read(3) == b"One"  # like `| head -c 3`
            child.stdout.close()
            held.release()
            err = child.stderr.read().decode()
            child.wait(60)
        finally:
            child.kill()
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert child.returncode in (0, 141), err  # 141: ended by SIGPIPE, as `head` expects
    assert stored_answers(data) == [ANSWER]


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_an_export_to_a_full_disk_fails_cleanly(tmp_path: Path, fmt: str) -> None:
    data = tmp_path / "data"
    sample = ROOT / "tests" / "storage" / "data" / "chatgpt_conversations.json"
    assert assista("import", str(sample), data_dir=data).returncode == 0
    before = state(data)
    target = tmp_path / "export.out"
    target.write_text("an older export\n")

    def small_files() -> None:  # a disk with 1 KB left, for this child only
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    done = assista("export", "--format", fmt, "-o", str(target), data_dir=data,
                   preexec=small_files)
    assert done.returncode == 1 and no_traceback(done), done.stderr
    assert "cannot write" in done.stderr and done.stderr.count("\n") == 1
    assert target.read_text() == "an older export\n"  # not replaced by a cut one
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".export.out*"))
    with open("/dev/full", "w") as full:
        to_stdout = forked_cli.run(
            [sys.executable, "-m", "desktop", "export", "--format", fmt, "--data-dir",
             str(data)], stdout=full, stderr=subprocess.PIPE, text=True, env=env(),
            cwd=ROOT, timeout=60, check=False)
    assert to_stdout.returncode == 1 and "Traceback" not in to_stdout.stderr
    assert "cannot write" in to_stdout.stderr
    assert state(data) == before
