"""Child process for test_kill.py: does real work until the parent kills it with SIGKILL.

Usage: python kill_child.py MODE PATH [N]

Every line it prints is printed *after* the thing it reports is committed, so
the parent knows what must survive the kill. No sleeps anywhere: a step that
must "hang" blocks reading standard input, which the parent never writes.

Modes:
  stream DB      a real turn (orchestrator + SessionRecorder, saving on every
                 delta) whose provider streams forever: ``saved <id> <status> <len>``
  tool DB        a turn whose tool call never returns: ``tool-running <call id>``
  migrate DB     opens an old database; the last migration does slow work, prints
                 ``migrating``, then blocks before finishing
  migrated DB    opens (upgrading) the database, prints ``migrated``, then blocks
  open DB        opens (upgrading) the database, printing ``backed-up`` as soon as
                 the backup before the upgrade is written
  writer DIR N   takes the instance lock if free (``lock yes|no``), then commits N
                 messages in a new chat (``committed <id>``), then ``done``
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from desktop.core.conversation import SessionRecorder
from desktop.core.events import EndEvent, StreamEvent, TextDelta, ToolCallComplete, ToolCallStarted
from desktop.core.messages import Message, ToolCallPart, ToolResultPart
from desktop.core.orchestrator import Orchestrator
from desktop.core.provider import ChatRequest, ModelInfo, ToolSpec
from desktop.storage.database import Database
from desktop.storage.instance_lock import acquire_instance_lock
from desktop.storage.migration_set import Migrations
from desktop.storage.migrations import STORAGE_MIGRATIONS
from desktop.storage.paths import DataPaths
from desktop.storage.sessions import SessionStore


def say(line: str) -> None:
    print(line, flush=True)


def block_forever() -> None:
    sys.stdin.readline()  # the parent never writes: only SIGKILL ends this
    raise SystemExit("stdin closed")


class EndlessProvider:
    name = "endless"
    supports_tools = True
    supports_reasoning = False

    def __init__(self, call_tool: bool) -> None:
        self.call_tool = call_tool

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        if self.call_tool:
            yield ToolCallStarted(index=0, id="call_block", name="block")
            yield ToolCallComplete(index=0, id="call_block", name="block", arguments="{}")
            yield EndEvent("tool_calls")
            return
        i = 0
        while True:
            i += 1
            yield TextDelta(f"tok{i} ")
            await asyncio.sleep(0)

    async def list_models(self) -> list[ModelInfo]:
        return []

    async def aclose(self) -> None:
        return None


class BlockingTools:
    def specs(self) -> list[ToolSpec]:
        return [ToolSpec("block", "Never returns", {"type": "object"})]

    async def run(self, call: ToolCallPart) -> ToolResultPart:
        say(f"tool-running {call.id}")
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


class ReportingStore:
    def __init__(self, store: SessionStore) -> None:
        self.store = store

    def save_message(self, session_id: str, message: Message) -> None:
        self.store.save_message(session_id, message)
        say(f"saved {message.id} {message.status} {len(message.text)}")


async def turn(db_path: str, call_tool: bool) -> None:
    store = SessionStore(Database(db_path))
    session = store.create_session("kill test")
    question = Message.user("please stream forever")
    store.save_message(session.id, question)
    say(f"session {session.id} {question.id}")
    orchestrator = Orchestrator(EndlessProvider(call_tool), BlockingTools())
    recorder = SessionRecorder(ReportingStore(store), session.id, save_interval=0.0)
    await orchestrator.run([question], model="endless-1", sink=recorder)


def slow_last_migration(db_path: str) -> None:
    def slow(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE ballast (x BLOB)")
        conn.executemany(
            "INSERT INTO ballast VALUES (randomblob(4000))", [() for _ in range(10_000)]
        )  # ~40 MB: spills into the WAL
        say("migrating")
        block_forever()

    Database(db_path, migrations=[*STORAGE_MIGRATIONS, Migrations("ballast", [(1, slow)])])


def writer(root: str, count: int) -> None:
    paths = DataPaths.resolve(root)
    lock = acquire_instance_lock(paths)
    say(f"lock {'yes' if lock else 'no'}")
    store = SessionStore(Database(paths.db_path))
    session = store.create_session("writer")
    for i in range(count):
        message = Message.user(f"line {i} from {session.id}")
        store.save_message(session.id, message)
        say(f"committed {message.id}")
    say("done")


def main(mode: str, path: str, *rest: str) -> None:
    if mode in ("stream", "tool"):
        asyncio.run(turn(path, call_tool=mode == "tool"))
    elif mode == "migrate":
        slow_last_migration(path)
    elif mode == "migrated":
        Database(path)
        say("migrated")
        block_forever()
    elif mode == "open":
        import desktop.storage.upgrade as upgrade_module

        make_backup = upgrade_module.make_backup

        def reporting(*args: Any, **kwargs: Any) -> Path:
            made = make_backup(*args, **kwargs)
            say("backed-up")
            return made

        upgrade_module.make_backup = reporting
        Database(path).close()
        say("opened")
    elif mode == "writer":
        writer(path, int(rest[0]))
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main(*sys.argv[1:])
