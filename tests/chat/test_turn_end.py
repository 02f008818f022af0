"""Where a turn may run and how it ends: a chat answers in one process at a time;
stopping a turn again while its last saves wait (Quit or a signal just as an answer
ends) does not abandon them, the turn ends once they are stored."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import pytest

from desktop.app import AppContext
from desktop.chat.compare_run import CompareTarget
from desktop.chat.events import ChatEvent, TurnEnded
from desktop.chat.profile import NewChat
from desktop.chat.service import ChatService
from desktop.chat.turn_locks import ChatBusy
from desktop.core.agent_events import AssistantFinished
from desktop.core.messages import Message
from desktop.storage.chat_lock import lock_chat
from desktop.storage.database import Database
from desktop.storage.sessions import SessionStore
from tests.chat.conftest import add_provider
from tests.chat.test_chat_service import until
from tests.support.openai_server import FakeOpenAIServer

ANSWER = "The whole answer, every word of it."


def awaiting(task: asyncio.Task[None]) -> list[str]:
    """The coroutines ``task`` is suspended in, outermost first."""
    names: list[str] = []
    coro: Any = task.get_coro()
    while hasattr(coro, "cr_code"):
        names.append(coro.cr_code.co_name)
        coro = coro.cr_await
    return names


async def test_a_stop_while_the_last_saves_wait_still_stores_the_answer(
        ctx: AppContext, server: FakeOpenAIServer) -> None:
    add_provider(ctx, server)
    server.enqueue_text(ANSWER)
    service = ChatService(ctx)
    # Another program writing to the database: the answer's last save has to wait.
    other = sqlite3.connect(ctx.paths.db_path, isolation_level=None, timeout=30)
    stored_at_end: list[Message] = []

    def watch(event: ChatEvent) -> None:
        if isinstance(event, AssistantFinished):
            other.execute("BEGIN IMMEDIATE")  # (before that save can run)
        elif isinstance(event, TurnEnded):
            reader = Database.open(ctx.paths.db_path)
            try:
                stored_at_end.extend(SessionStore(reader).load_messages(event.session_id))
            finally:
                reader.close()

    turn = service.start(NewChat(), "question")
    service.observe(turn.session_id, watch)
    task = turn.task
    assert task is not None
    await until(lambda: "finish_saving" in awaiting(task))
    service.stop(turn.session_id)  # (Quit, a signal) while the last save waits
    # Until the turn has ended, or has taken the stop and still waits for its saves:
    await until(lambda: bool(stored_at_end) or (
        task.cancelling() == 0 and "finish_saving" in awaiting(task)))
    other.rollback()  # then the other program is done
    await service.wait_idle()
    other.close()
    answer = stored_at_end[-1]  # stored when the turn ended, not later
    assert (answer.role, answer.text, answer.status) == ("assistant", ANSWER, "complete")


async def test_a_chat_answering_in_another_process_refuses_a_turn_here(
        ctx: AppContext, server: FakeOpenAIServer) -> None:
    add_provider(ctx, server)
    server.enqueue_text("Hello.")
    server.enqueue_text("Again.")
    service = ChatService(ctx)
    first = service.start(NewChat(), "hi")
    await service.wait(first.session_id)
    before = ctx.sessions.load_messages(first.session_id)
    elsewhere = lock_chat(ctx.paths.root, first.session_id)  # (what another process holds)
    assert elsewhere is not None
    with pytest.raises(ChatBusy):
        service.start(first.session_id, "again")
    with pytest.raises(ChatBusy):
        service.continue_answer(first.session_id)
    assert ctx.sessions.load_messages(first.session_id) == before  # nothing changed
    assert service.running(first.session_id) is None and len(server.chat_requests) == 1
    elsewhere.release()  # (that process's answer has ended)
    again = service.start(first.session_id, "again")
    await service.wait(again.session_id)
    assert [m.text for m in ctx.sessions.load_messages(first.session_id)] == [
        "hi", "Hello.", "again", "Again."]
    assert lock_chat(ctx.paths.root, first.session_id) is not None  # released at the end


async def test_compare_in_a_chat_answering_in_another_process_is_refused_too(
        ctx: AppContext, server: FakeOpenAIServer) -> None:
    config = add_provider(ctx, server)
    server.enqueue_text("Hello.")
    service = ChatService(ctx)
    first = service.start(NewChat(), "hi")
    await service.wait(first.session_id)
    answer = ctx.sessions.load_messages(first.session_id)[-1]
    before = ctx.sessions.load_active_branch(first.session_id).messages
    elsewhere = lock_chat(ctx.paths.root, first.session_id)
    assert elsewhere is not None
    targets = [CompareTarget(config, "gpt-test"), CompareTarget(config, "gpt-test")]
    with pytest.raises(ChatBusy):
        service.compare.start(first.session_id, "both of you", targets)
    with pytest.raises(ChatBusy):
        service.compare.ask_others(first.session_id, answer.id, targets[:1])
    assert ctx.sessions.load_active_branch(first.session_id).messages == before
    assert len(server.chat_requests) == 1
    elsewhere.release()
    assert lock_chat(ctx.paths.root, first.session_id) is not None  # none left held here
