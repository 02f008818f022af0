"""The real app's life, start to end, in a child process (the real start-up and event
loop, see tests/support/gui_scenarios.py): a question sent at any moment after the
window shows is answered and stored; quitting or a signal while a chat answers keeps
what it wrote, marked stopped, with no error shown and no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from desktop.app import AppContext
from desktop.core.messages import Message
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream

ROOT = Path(__file__).resolve().parents[3]
ANSWER = "One two three four five six seven eight nine ten. " * 8
FAILURES = ("Traceback", "no running event loop", "ignored GeneratorExit", "Exception ignored",
            "shown to user", "Unexpected error")


@dataclass
class Run:
    status: int
    stdout: list[str]
    stderr: str
    log: str


def run_app(tmp_path: Path, server: FakeOpenAIServer, scenario: str, *,
            signal_on: str | None = None, signum: int = signal.SIGTERM) -> Run:
    """Run ``scenario`` in the real app; ``signal_on``: send ``signum`` when the app
    prints that line."""
    environ = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environ.update(OPENAI_API_KEY="sk-lifecycle-test-0123456789",
                   OPENAI_BASE_URL=server.base_url, QT_QPA_PLATFORM="offscreen",
                   PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    data = tmp_path / "data"
    with open(tmp_path / "stderr.txt", "w+") as err:
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.support.gui_scenarios", scenario, str(data)],
            cwd=ROOT, env=environ, stdout=subprocess.PIPE, stderr=err, text=True)
        watchdog = threading.Timer(120, child.kill)  # (a hung app fails the test)
        watchdog.start()
        lines: list[str] = []
        try:
            assert child.stdout is not None
            for line in child.stdout:
                lines.append(line.strip())
                if signal_on is not None and line.strip() == signal_on:
                    child.send_signal(signum)
            status = child.wait()
        finally:
            watchdog.cancel()
            child.kill()
            if child.stdout is not None:
                child.stdout.close()
        err.seek(0)
        stderr = err.read()
    log = "".join(p.read_text() for p in (data / "logs").glob("*.log"))
    return Run(status, lines, stderr, log)


def stored(tmp_path: Path) -> list[Message]:
    ctx = AppContext.open(tmp_path / "data", environ={}, log_to_stderr=False)
    try:
        sessions = ctx.sessions.list_sessions()
        assert len(sessions) == 1
        return list(ctx.sessions.load_active_branch(sessions[0].id).messages)
    finally:
        ctx.close()


def assert_clean(run: Run) -> None:
    for text in FAILURES:
        assert text not in run.stderr, run.stderr
        assert text not in run.log, run.log


def test_a_question_sent_while_the_window_loads_is_answered_and_stored(
        tmp_path: Path, fake_server: FakeOpenAIServer) -> None:
    fake_server.enqueue_text("Answered.")
    fake_server.enqueue_text("A title")  # (the window has the model title a new chat)
    run = run_app(tmp_path, fake_server, "early-send")
    assert run.status == 0 and "EXIT 0" in run.stdout, run
    assert_clean(run)
    messages = stored(tmp_path)
    assert [(m.role, m.text, m.status) for m in messages] == [
        ("user", "first question", "complete"), ("assistant", "Answered.", "complete")]


def held_answer(server: FakeOpenAIServer) -> ScriptedResponse:
    """An answer that stops streaming half-way (until released)."""
    held = ScriptedResponse(chunks=text_stream(ANSWER, chunk_size=8), hold_after=12)
    server.enqueue(held)
    return held


def test_quitting_while_a_chat_answers_keeps_what_it_wrote(
        tmp_path: Path, fake_server: FakeOpenAIServer) -> None:
    held = held_answer(fake_server)
    run = run_app(tmp_path, fake_server, "quit")
    held.release()
    assert run.status == 0 and "EXIT 0" in run.stdout, run
    assert_clean(run)
    user, answer = stored(tmp_path)
    assert user.text == "first question"
    shown = int(next(line for line in run.stdout if line.startswith("STREAMED")).split()[1])
    assert answer.status == "stopped" and len(answer.text) >= shown > 0
    assert ANSWER.startswith(answer.text)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_while_a_chat_answers_saves_it_and_quits_cleanly(
        tmp_path: Path, fake_server: FakeOpenAIServer, signum: int) -> None:
    held = held_answer(fake_server)
    run = run_app(tmp_path, fake_server, "streaming", signal_on="STREAMING", signum=signum)
    held.release()
    assert run.status == 0 and "EXIT 0" in run.stdout, run
    assert_clean(run)
    _user, answer = stored(tmp_path)
    assert answer.status == "stopped" and answer.text and ANSWER.startswith(answer.text)


def test_sigterm_after_an_answer_quits_cleanly(
        tmp_path: Path, fake_server: FakeOpenAIServer) -> None:
    fake_server.enqueue_text(ANSWER)
    fake_server.enqueue_text("A title")
    run = run_app(tmp_path, fake_server, "streaming", signal_on="ANSWERED")
    assert run.status == 0 and "EXIT 0" in run.stdout, run
    assert_clean(run)
    _user, answer = stored(tmp_path)
    assert (answer.text, answer.status) == (ANSWER, "complete")
