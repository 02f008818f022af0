"""A database locked by another process (a child holding BEGIN EXCLUSIVE): saves run
off the event loop, are retried, keep the whole answer in memory, and fail clearly
at the end -- `assista ask` exits non-zero instead of reporting a cut answer saved."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.accumulator import MessageBuilder
from desktop.core.agent_events import AssistantFinished, AssistantStarted
from desktop.core.conversation import SessionRecorder
from desktop.core.events import TextDelta
from desktop.core.messages import Message
from desktop.core.save_queue import SaveError, SaveQueue
from desktop.core.waits import WAIT_SCALE_VARIABLE
from desktop.storage.database import Database
from desktop.storage.sessions import SessionStore
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream
from tests.trust.support import KEY, assista, no_traceback, state

#: The app's busy timeout and pauses between save attempts, a fiftieth as long: every
#: attempt still meets the lock and fails, in milliseconds instead of 25 seconds.
SHORT_WAITS = {WAIT_SCALE_VARIABLE: "0.02"}

LOCKER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()  # hold the lock until told
conn.execute("COMMIT")
print("released", flush=True)
sys.stdin.readline()
"""


class Locker:
    """A child process holding the database's write lock until :meth:`release`."""

    def __init__(self, db_path: Path) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", LOCKER, str(db_path)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "locked"

    def release(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("\n")
        self.process.stdin.flush()
        assert self.process.stdout.readline().strip() == "released"

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[tuple[SessionStore, Path]]:
    path = tmp_path / "assista.sqlite3"
    db = Database(path, busy_timeout_ms=100)  # each failed attempt waits 0.1 s, not 5
    yield SessionStore(db), path
    db.close()


def stream_answer(recorder: SessionRecorder, words: int) -> Message:
    builder = MessageBuilder(model="m", provider="p")
    recorder(AssistantStarted(message_id=builder.id, round=1, model="m",
                              snapshot=builder.snapshot))
    for i in range(words):
        event = TextDelta(f"word{i} ")
        builder.feed(event)
        recorder(event)
    message = builder.finish("complete")
    recorder(AssistantFinished(message=message))
    return message


async def ticking(coro: object) -> int:
    """Await ``coro`` while counting how often the event loop turns."""
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0)
            ticks += 1

    task = asyncio.create_task(ticker())
    try:
        await coro  # type: ignore[misc]
    finally:
        task.cancel()
    return ticks


async def test_a_locked_database_fails_clearly_with_the_answer_whole(
        store: tuple[SessionStore, Path]) -> None:
    sessions, path = store
    session = sessions.create_session("locked")
    locker = Locker(path)
    try:
        queue = SaveQueue(sessions, session.id, stream_delays=(), final_delays=(0.0,))
        recorder = SessionRecorder(sessions, session.id, save_interval=0.0, queue=queue)
        answer = stream_answer(recorder, 200)
        with pytest.raises(SaveError, match=r"could not be saved: .*database is locked") as caught:
            assert await ticking(recorder.close()) > 0  # the loop kept turning
        assert [m.text for m in caught.value.messages] == [answer.text]  # whole
        assert answer.text.count("word") == 200
    finally:
        locker.stop()
    assert sessions.load_messages(session.id) == []  # nothing half-stored, and said so


async def test_saves_retried_after_the_lock_goes_store_the_whole_answer(
        store: tuple[SessionStore, Path]) -> None:
    sessions, path = store
    session = sessions.create_session("retried")
    locker = Locker(path)
    try:
        # The first failed attempt releases the lock: the retry must then succeed.
        queue = SaveQueue(sessions, session.id, stream_delays=(0.0,), final_delays=(0.0,),
                          on_error=lambda _exc: locker.process.poll() is None
                          and not released and (release(), None))
        released: list[bool] = []

        def release() -> None:
            released.append(True)
            locker.release()

        recorder = SessionRecorder(sessions, session.id, save_interval=0.0, queue=queue)
        answer = stream_answer(recorder, 50)
        await recorder.close()
        assert queue.failures >= 1 and released
    finally:
        locker.stop()
    stored = sessions.load_messages(session.id)
    assert [m.text for m in stored] == [answer.text] and stored[0].status == "complete"


def test_assista_ask_exits_non_zero_when_the_answer_cannot_be_saved(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()  # (export does not make a folder that is missing)
    seed = assista("export", "--format", "json", data_dir=data)  # creates the database in it
    assert seed.returncode == 0, seed.stderr
    before = state(data)
    db_path = next(data.glob("*.sqlite3"))
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        held = ScriptedResponse(chunks=text_stream("The whole answer, every word.",
                                                   chunk_size=4), hold_after=2)
        server.enqueue(held)
        child = subprocess.Popen(
            [sys.executable, "-m", "desktop", "ask", "--base-url", server.base_url,
             "--model", "gpt-test", "--data-dir", str(data), "hello"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**_env(), **KEY, **SHORT_WAITS})
        try:
            assert held.holding.wait(30)  # the chat and question are stored; answer streams
            locker = Locker(db_path)
            held.release()
            out, err = child.communicate(timeout=90)
        finally:
            child.kill()
        locker.stop()
    assert out == "The whole answer, every word."
    assert child.returncode == 1, err
    assert "answer could not be saved" in err and "database is locked" in err, err
    after = state(data)
    assert after[1] == "ok" and after != before  # the question was stored before the lock
    assert no_traceback(subprocess.CompletedProcess([], 1, out, err))


def _env() -> dict[str, str]:
    import os

    environ = {k: v for k, v in os.environ.items()
               if not k.endswith("_API_KEY") and k != "OPENAI_BASE_URL"}
    environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    return environ
