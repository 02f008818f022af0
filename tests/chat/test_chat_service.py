"""Turns of several chats at once, observers that come and go, states, limits."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from desktop.app import AppContext
from desktop.chat.events import ChatEvent, TurnEnded, TurnQueued
from desktop.chat.profile import NewChat
from desktop.chat.service import ChatService
from desktop.core.agent_events import AssistantFinished, AssistantStarted
from desktop.core.events import TextDelta
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream

LONG = "word " * 60


async def until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait for a condition the server thread or a task makes true."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0)  # yield to the loop; no fixed delay
            await asyncio.to_thread(lambda: None)


def held(text: str, after: int = 3) -> ScriptedResponse:
    return ScriptedResponse(chunks=text_stream(text, chunk_size=5), hold_after=after)


async def test_two_chats_answer_at_once_and_both_are_saved_whole(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    first = held(LONG)
    server.enqueue(first)
    server.enqueue(ScriptedResponse(chunks=text_stream("Second answer.")))
    a = service.start(NewChat(), "Write a long answer")
    await until(first.holding.is_set)
    b = service.start(NewChat(), "And a short one")  # while A is still streaming
    assert b.task is not None
    await b.task
    assert service.state(a.session_id) == "answering"
    first.release()
    await service.wait_idle()
    for turn, text in ((a, LONG), (b, "Second answer.")):
        messages = ctx.sessions.load_messages(turn.session_id)
        assert [m.role for m in messages] == ["user", "assistant"]
        assert messages[1].text == text and messages[1].status == "complete"
    assert a.session_id != b.session_id


async def test_a_late_observer_sees_what_streamed_meanwhile_then_the_rest(
        service: ChatService, server: FakeOpenAIServer) -> None:
    first = held(LONG, after=6)
    server.enqueue(first)
    turn = service.start(NewChat(), "hello")
    await until(first.holding.is_set)
    await until(lambda: bool(turn.streamed_text()))
    seen: list[ChatEvent] = []
    service.observe(turn.session_id, seen.append)
    assert isinstance(seen[0], AssistantStarted)
    # what streamed meanwhile arrives merged, not delta by delta
    assert sum(isinstance(e, TextDelta) for e in seen) == 1
    replayed = len(seen)
    first.release()
    await service.wait_idle()
    text = "".join(e.text for e in seen if isinstance(e, TextDelta))
    assert text == LONG
    assert len(seen) > replayed
    assert isinstance(seen[-1], TurnEnded) and seen[-1].status == "complete"
    assert any(isinstance(e, AssistantFinished) for e in seen)


async def test_a_chat_nobody_watches_finishes_unread_and_reading_it_clears_that(
        service: ChatService, server: FakeOpenAIServer) -> None:
    server.enqueue(ScriptedResponse(chunks=text_stream("Done.")))
    states: list[tuple[str, str]] = []
    service.on_state.append(lambda sid, state: states.append((sid, state)))
    turn = service.start(NewChat(), "hi")
    await service.wait_idle()
    assert service.state(turn.session_id) == "unread"
    assert [s for _, s in states] == ["answering", "unread"]
    service.observe(turn.session_id, lambda _e: None)
    assert service.state(turn.session_id) == "idle"


async def test_a_watched_chat_is_not_marked_unread(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    server.enqueue(ScriptedResponse(chunks=text_stream("One.")))
    server.enqueue(ScriptedResponse(chunks=text_stream("Two.")))
    turn = service.start(NewChat(), "first")
    await service.wait_idle()
    service.observe(turn.session_id, lambda _e: None)
    second = service.start(turn.session_id, "second")
    await service.wait_idle()
    assert service.state(second.session_id) == "idle"
    assert [m.text for m in ctx.sessions.load_messages(turn.session_id)] == [
        "first", "One.", "second", "Two."]


async def test_a_failed_chat_stays_failed_watched_or_not_until_it_answers(
        service: ChatService, server: FakeOpenAIServer) -> None:
    server.enqueue_error(400, "The model does not exist")
    server.enqueue_error(400, "The model does not exist")
    server.enqueue(ScriptedResponse(chunks=text_stream("Hello.")))
    turn = service.start(NewChat(), "first")
    await service.wait_idle()
    assert service.state(turn.session_id) == "failed"
    service.observe(turn.session_id, lambda _e: None)  # looking at it does not mend it
    assert service.state(turn.session_id) == "failed"
    again = service.start(turn.session_id, "again")  # watched, and failing again
    await service.wait_idle()
    assert service.state(again.session_id) == "failed"
    last = service.start(turn.session_id, "once more")
    await service.wait_idle()
    assert service.state(last.session_id) == "idle"


async def test_requests_beyond_the_provider_limit_wait_their_turn(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    ctx.settings.update(max_concurrent_requests=1)
    first = held(LONG)
    server.enqueue(first)
    server.enqueue(ScriptedResponse(chunks=text_stream("Queued answer.")))
    a = service.start(NewChat(), "one")
    await until(first.holding.is_set)
    events: list[ChatEvent] = []
    b = service.start(NewChat(), "two")
    service.observe(b.session_id, events.append)
    await until(lambda: service.state(b.session_id) == "queued")
    assert len(server.chat_requests) == 1  # B has not been sent
    first.release()
    await service.wait_idle()
    assert len(server.chat_requests) == 2
    assert TurnQueued(False) in events
    assert ctx.sessions.load_messages(b.session_id)[-1].text == "Queued answer."
    assert ctx.sessions.load_messages(a.session_id)[-1].text == LONG


async def test_stop_ends_one_chat_and_keeps_what_streamed(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    first = held(LONG)
    second = held("other " * 20)
    server.enqueue(first)
    server.enqueue(second)
    a = service.start(NewChat(), "one")
    await until(first.holding.is_set)
    b = service.start(NewChat(), "two")
    await until(second.holding.is_set)
    await until(lambda: bool(a.history) or bool(a.streamed_text()))
    service.stop(a.session_id)
    await service.wait(a.session_id)
    assert service.running(b.session_id) is b  # the other chat goes on
    second.release()
    first.release()
    await service.wait_idle()
    stopped = ctx.sessions.load_messages(a.session_id)[-1]
    assert stopped.status == "stopped" and LONG.startswith(stopped.text)
    assert ctx.sessions.load_messages(b.session_id)[-1].status == "complete"


async def test_a_chat_that_is_answering_refuses_a_second_turn(
        service: ChatService, server: FakeOpenAIServer) -> None:
    first = held(LONG)
    server.enqueue(first)
    turn = service.start(NewChat(), "one")
    await until(first.holding.is_set)
    try:
        service.start(turn.session_id, "two")
    except Exception as exc:  # the message is what the user sees
        assert "still answering" in str(exc)
    else:
        raise AssertionError("a second turn started in a busy chat")
    first.release()
    await service.wait_idle()


async def test_an_approval_from_a_chat_nobody_watches_waits_on_the_board(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    from desktop.chat.approvals import PendingApproval
    from desktop.tools.approval import ApprovalDecision
    from tests.support.openai_server import tool_call_stream

    server.enqueue(ScriptedResponse(chunks=tool_call_stream(
        [("fetch_url", '{"url": "https://example.com/notes"}')])))
    server.enqueue(ScriptedResponse(chunks=text_stream("I was not allowed to look.")))
    asked: list[PendingApproval] = []
    service.approvals.on_request.append(asked.append)
    turn = service.start(NewChat(), "Read my notes page")
    await until(lambda: bool(asked))
    pending = asked[0]
    assert pending.session_id == turn.session_id
    assert pending.chat_title == "Read my notes page"
    assert service.state(turn.session_id) == "approval"
    pending.resolve(ApprovalDecision.deny("not now"))
    await service.wait_idle()
    assert service.state(turn.session_id) == "unread"
    messages = ctx.sessions.load_messages(turn.session_id)
    assert messages[-1].text == "I was not allowed to look."
    assert not service.approvals.pending


async def test_an_answer_nobody_watches_streams_at_the_background_pace(
        server: FakeOpenAIServer, ctx: AppContext, monkeypatch: Any) -> None:
    """A turn's provider streams at a watched stream's pace exactly while the chat has
    an observer (the window showing it): a chat answering in the background is handed
    over and read four times a second, not fifteen."""
    from desktop.providers.stream_pace import UNWATCHED_S, WATCHED_S, StreamPace
    from tests.chat.conftest import add_provider

    paces: list[StreamPace | None] = []
    build = ctx.build_provider

    def recording_build(config: Any, **kwargs: Any) -> Any:
        paces.append(kwargs.get("pace"))
        return build(config, **kwargs)

    monkeypatch.setattr(ctx, "build_provider", recording_build)
    add_provider(ctx, server)
    service = ChatService(ctx)
    first = held(LONG)
    server.enqueue(first)
    turn = service.start(NewChat(), "Write a long answer")
    await until(first.holding.is_set)
    [pace] = paces
    assert pace is not None and pace.interval == UNWATCHED_S  # nobody looks at it
    stop_watching = service.observe(turn.session_id, lambda _event: None)
    assert pace.interval == WATCHED_S  # the window shows it
    stop_watching()
    assert pace.interval == UNWATCHED_S
    first.release()
    await service.wait_idle()
    assert ctx.sessions.load_messages(turn.session_id)[-1].text == LONG  # saved whole
