"""``assista ask`` as a real process, at its edges: stopped by a signal mid-answer (what
was printed is what is saved), signalled after its answer, a reader that goes away
(``| head -c1``), and two asks in one chat at once."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.app import AppContext
from desktop.core.messages import Message
from tests.support import forked_cli
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream

ROOT = Path(__file__).resolve().parents[2]
KEY = {"OPENAI_API_KEY": "sk-cli-test-key-0123456789"}
ANSWER = "".join(f"Sentence number {n} of a long answer. " for n in range(120))
ERR = Path("stderr.txt")  # (set per test)
TRACES = ("Traceback", "Exception ignored", "ignored GeneratorExit", "no running event loop")


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(models=["gpt-test"]) as fake:
        yield fake


def environ() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and k != "OPENAI_BASE_URL"}
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    return {**env, **KEY}


def ask(server: FakeOpenAIServer, data: Path, *args: str) -> subprocess.Popen[bytes]:
    model = [] if "--compare" in args else ["--model", "gpt-test"]
    return subprocess.Popen(
        [sys.executable, "-m", "desktop", "ask", "--base-url", server.base_url,
         *model, "--data-dir", str(data), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environ(), cwd=ROOT)


def assista(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return forked_cli.run([sys.executable, "-m", "desktop", *args, "--data-dir", str(data)],
                          capture_output=True, text=True, env=environ(), cwd=ROOT,
                          timeout=60, check=False)


def exported(data: Path) -> list[dict[str, object]]:
    """Every stored chat, as ``assista export --format json`` writes it."""
    done = assista(data, "export", "--format", "json")
    assert done.returncode == 0, done.stderr
    sessions: list[dict[str, object]] = json.loads(done.stdout)["sessions"]
    return sessions


def text_of(message: dict[str, object]) -> str:
    parts = message["parts"]
    assert isinstance(parts, list)
    return "".join(str(part.get("text", "")) for part in parts)


def log_text(data: Path) -> str:
    return "".join(p.read_text() for p in (data / "logs").glob("*.log"))


def assert_no_traceback(stderr: str, data: Path) -> None:
    for text in TRACES:
        assert text not in stderr, stderr
        assert text not in log_text(data)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_mid_answer_keeps_everything_that_was_printed(
        server: FakeOpenAIServer, tmp_path: Path, signum: int) -> None:
    data = tmp_path / "data"
    held = ScriptedResponse(chunks=text_stream(ANSWER, chunk_size=16), hold_after=150)
    server.enqueue(held)
    child = ask(server, data, "tell me a long story")
    assert child.stdout is not None
    try:
        first = os.read(child.stdout.fileno(), 1)  # the answer is being printed
        assert held.holding.wait(60)  # (and the server has paused half-way)
        child.send_signal(signum)
        rest, err = child.communicate(timeout=60)
    finally:
        held.release()
        child.kill()
    printed = (first + rest).decode()
    assert 0 < len(printed) < len(ANSWER)
    assert child.returncode == 128 + signum, err
    assert err.decode() == "assista: error: interrupted\n"
    assert_no_traceback(err.decode(), data)
    [chat] = exported(data)
    messages = chat["messages"]
    assert isinstance(messages, list)
    answer = messages[-1]
    assert (answer["role"], answer["status"]) == ("assistant", "stopped")
    assert text_of(answer) == printed  # every character shown was saved


def test_sigterm_after_the_answer_is_printed_leaves_no_traceback(
        server: FakeOpenAIServer, tmp_path: Path) -> None:
    data = tmp_path / "data"
    # Its last words come with the stream's end, in one write: the whole answer printed
    # then means its end was read too (sent apart, the end may still be on its way
    # while the reader leaves the socket be for a moment: then the answer is stopped).
    chunks = text_stream(ANSWER, 64)
    server.enqueue(ScriptedResponse(chunks=[*chunks[:-4], b"".join(chunks[-4:])]))
    child = ask(server, data, "tell me a long story")
    assert child.stdout is not None
    try:
        printed = child.stdout.read(len(ANSWER.encode()))  # the whole answer is printed
        child.send_signal(signal.SIGTERM)  # (while the process ends)
        _rest, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert printed.decode() == ANSWER
    assert child.returncode in (0, 128 + signal.SIGTERM), err
    assert_no_traceback(err.decode(), data)
    [chat] = exported(data)
    messages = chat["messages"]
    assert isinstance(messages, list)
    assert (text_of(messages[-1]), messages[-1]["status"]) == (ANSWER, "complete")


def through_head(command: list[str]) -> tuple[int, str, str]:
    """``COMMAND | head -c1``: (COMMAND's exit status, what head printed, its stderr)."""
    shell = (f"{' '.join(map(shlex.quote, command))} 2>{shlex.quote(str(ERR))} | head -c1; "
             "echo \" ${PIPESTATUS[0]}\"")
    done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True,
                          env=environ(), cwd=ROOT, timeout=120, check=False)
    printed, status = done.stdout.rsplit(" ", 1)
    return int(status), printed, ERR.read_text()


@pytest.mark.parametrize("mode", [[], ["--json"]], ids=["text", "json"])
def test_a_reader_that_goes_away_ends_ask_quietly(
        server: FakeOpenAIServer, tmp_path: Path, mode: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "ERR", tmp_path / "stderr.txt")
    data = tmp_path / "data"
    server.enqueue_text(ANSWER, chunk_size=64)
    status, printed, err = through_head(
        [sys.executable, "-m", "desktop", "ask", *mode, "--base-url", server.base_url,
         "--model", "gpt-test", "--data-dir", str(data), "tell me a long story"])
    assert status in (0, 141) and err == "", err  # 141: as a shell reports SIGPIPE
    assert len(printed) == 1
    assert_no_traceback(err, data)
    [chat] = exported(data)  # the whole answer is kept all the same
    messages = chat["messages"]
    assert isinstance(messages, list)
    assert (text_of(messages[-1]), messages[-1]["status"]) == (ANSWER, "complete")


def into_closed_pipe(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``assista ARGS`` writing into a pipe whose reader has gone already."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return forked_cli.run([sys.executable, "-m", "desktop", *args, "--data-dir", str(data)],
                              stdout=write_end, stderr=subprocess.PIPE, text=True,
                              env=environ(), cwd=ROOT, timeout=60, check=False)
    finally:
        os.close(write_end)


def test_a_reader_that_goes_away_ends_every_command_quietly(
        server: FakeOpenAIServer, tmp_path: Path) -> None:
    data = tmp_path / "data"
    ctx = AppContext.open(data, environ={}, log_to_stderr=False)
    try:  # a few chats to list and export
        for n in range(3):
            chat = ctx.sessions.create_session(title=f"Chat {n}")
            ctx.sessions.save_message(chat.id, Message.user(ANSWER))
    finally:
        ctx.close()
    export = tmp_path / "export.json"
    export.write_text(assista(data, "export", "--format", "json").stdout)
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text(ANSWER)
    assert assista(data, "knowledge", "add", "notes", str(folder)).returncode == 0
    for _answer in range(4):
        server.enqueue_text(ANSWER, chunk_size=64)
    url = ["--base-url", server.base_url]
    commands = [
        ["export", "--format", "json"], ["export", "--format", "markdown"],
        ["import", str(export)], ["knowledge", "list"], ["knowledge", "search", "notes", "answer"],
        ["ask", *url, "--model", "gpt-test", "a question"],
        ["ask", "--json", *url, "--model", "gpt-test", "a question"],
        ["ask", *url, "--compare", "gpt-test,gpt-test", "a question"],
        ["inspect"], ["--version"],
    ]
    for command in commands:
        done = into_closed_pipe(data, *command)
        assert (done.returncode, done.stderr) == (141, ""), (command, done.stderr)
    done = into_closed_pipe(data, "--help")  # (argparse itself ignores a closed output)
    assert (done.returncode, done.stderr) == (0, "")
    assert_no_traceback("", data)


def test_a_second_ask_in_a_chat_that_is_answering_is_refused(
        server: FakeOpenAIServer, tmp_path: Path) -> None:
    data = tmp_path / "data"
    server.enqueue_text("First answer.")
    first = assista(data, "ask", "--base-url", server.base_url, "--model", "gpt-test", "one")
    assert first.returncode == 0, first.stderr
    [chat] = exported(data)
    session = str(chat["id"])
    held = ScriptedResponse(chunks=text_stream(ANSWER, chunk_size=16), hold_after=20)
    server.enqueue(held)
    server.enqueue_text("Third answer.")
    answering = ask(server, data, "--session", session, "two")
    try:
        assert held.holding.wait(60)  # the second question is being answered
        second = assista(data, "ask", "--base-url", server.base_url, "--model", "gpt-test",
                         "--session", session, "three")
        held.release()
        out, err = answering.communicate(timeout=60)
    finally:
        held.release()
        answering.kill()
    assert second.returncode == 1 and second.stdout == ""
    assert second.stderr == ("assista: error: This chat is answering in another Assista "
                             "process (the window or assista ask); wait until it has "
                             "finished.\n")
    assert answering.returncode == 0 and out.decode() == ANSWER, err
    assert len(server.chat_requests) == 2  # the refused question was never sent
    # The chat is as if the asks had come one after the other; the next one goes on it.
    third = assista(data, "ask", "--base-url", server.base_url, "--model", "gpt-test",
                    "--session", session, "three")
    assert third.returncode == 0, third.stderr
    sent = server.last_chat_body["messages"]
    assert [m["content"] for m in sent if m["role"] != "system"] == [
        "one", "First answer.", "two", ANSWER, "three"]
    [chat] = exported(data)
    messages = chat["messages"]
    assert isinstance(messages, list)
    assert [(m["role"], text_of(m), m["status"]) for m in messages] == [
        ("user", "one", "complete"), ("assistant", "First answer.", "complete"),
        ("user", "two", "complete"), ("assistant", ANSWER, "complete"),
        ("user", "three", "complete"), ("assistant", "Third answer.", "complete")]


def test_sigterm_mid_compare_keeps_every_answer_so_far(
        server: FakeOpenAIServer, tmp_path: Path) -> None:
    data = tmp_path / "data"
    answers = [ScriptedResponse(chunks=text_stream(ANSWER, chunk_size=16), hold_after=10)
               for _column in range(2)]
    server.enqueue(*answers)
    child = ask(server, data, "--compare", "gpt-test,gpt-test", "tell me a long story")
    try:
        assert all(answer.holding.wait(60) for answer in answers)
        child.send_signal(signal.SIGTERM)
        _out, err = child.communicate(timeout=60)
    finally:
        for answer in answers:
            answer.release()
        child.kill()
    assert child.returncode == 128 + signal.SIGTERM, err
    assert err.decode() == "assista: error: interrupted\n"
    assert_no_traceback(err.decode(), data)
    [chat] = exported(data)
    messages = chat["messages"]
    assert isinstance(messages, list)
    stopped = [m for m in messages if m["role"] == "assistant"]
    assert len(stopped) == 2
    assert all(m["status"] == "stopped" and ANSWER.startswith(text_of(m)) for m in stopped)
