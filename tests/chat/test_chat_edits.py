"""Drafts, delete, fork, continue and per-answer stats in the chat service (no Qt)."""

from __future__ import annotations

from pathlib import Path

from desktop.app import AppContext
from desktop.chat.generation_stats import GenerationStats
from desktop.chat.message_edits import CONTINUE_PROMPT, can_continue, is_continuation
from desktop.chat.profile import NewChat
from desktop.chat.service import ChatService
from desktop.core.errors import ConfigError
from desktop.core.messages import Message, TextPart, ToolCallPart, ToolResultPart
from tests.chat.conftest import add_provider
from tests.chat.test_chat_service import held, until
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream


def _chat(ctx: AppContext, *texts: str) -> str:
    info = ctx.sessions.create_session("Talk", model="gpt-test")
    for number, text in enumerate(texts):
        role = "user" if number % 2 == 0 else "assistant"
        ctx.sessions.save_message(info.id, Message(role=role, parts=[TextPart(text=text)]))
    return info.id


def test_drafts_are_per_chat_and_survive_a_restart(tmp_path: Path) -> None:
    ctx = AppContext.open(tmp_path / "data", environ={}, log_to_stderr=False)
    one, two = _chat(ctx, "a", "b"), _chat(ctx, "c", "d")
    before = {i.id: i.updated_at for i in ctx.sessions.list_sessions()}
    service = ChatService(ctx)
    service.chats.set_draft(one, "half a question")
    service.chats.set_draft(two, "another")
    new = service.chats.new_chat()
    service.chats.set_draft(new, "a first message")
    assert {i.id: i.updated_at for i in ctx.sessions.list_sessions()} == before  # list order
    ctx.close()

    ctx = AppContext.open(tmp_path / "data", environ={}, log_to_stderr=False)
    chats = ChatService(ctx).chats
    assert chats.draft(one) == "half a question" and chats.draft(two) == "another"
    assert chats.draft(chats.new_chat()) == "a first message"
    chats.set_draft(one, "   ")  # whitespace is no draft
    assert chats.draft(one) == "" and ctx.settings_store.get_value(f"draft:{one}") is None
    ctx.close()


async def test_sending_uses_up_the_draft(service: ChatService, server: FakeOpenAIServer,
                                         ctx: AppContext) -> None:
    chat = service.chats.new_chat()
    service.chats.set_draft(chat, "hello there")
    server.enqueue(ScriptedResponse(chunks=text_stream("Hi.")))
    turn = service.start(chat, "hello there")
    await service.wait(turn.session_id)
    assert chat.draft == "" and service.chats.new_chat().draft == ""
    service.chats.set_draft(turn.session_id, "next")
    server.enqueue(ScriptedResponse(chunks=text_stream("Again.")))
    await service.wait(service.start(turn.session_id, "next").session_id)
    assert service.chats.draft(turn.session_id) == ""


def test_delete_takes_the_message_and_what_follows(ctx: AppContext,
                                                   server: FakeOpenAIServer) -> None:
    add_provider(ctx, server)
    service = ChatService(ctx)
    sid = _chat(ctx, "q1", "a1", "q2", "a2")
    ids = [m.id for m in ctx.sessions.load_messages(sid)]
    branch = service.delete_message(sid, ids[2])
    assert [m.text for m in branch.messages] == ["q1", "a1"]
    assert [m.text for m in ctx.sessions.load_messages(sid)] == ["q1", "a1"]
    try:
        service.delete_message(sid, ids[2])
    except ConfigError:
        pass
    else:  # pragma: no cover
        raise AssertionError("deleting a deleted message must say so")


def test_fork_copies_the_branch_down_to_a_message_with_its_tool_results(
        ctx: AppContext) -> None:
    service = ChatService(ctx)
    info = ctx.sessions.create_session("Plans", model="gpt-test", workspace="/tmp/ws",
                                       system_prompt="Be brief.",
                                       extra={"disabled_tools": ["fetch_url"]})
    call = ToolCallPart(id="call_1", name="read_file", arguments="{}")
    for message in [Message.user("read it"),
                    Message(role="assistant", parts=[call]),
                    Message(role="tool", parts=[ToolResultPart(tool_call_id="call_1",
                                                               name="read_file",
                                                               content="text")]),
                    Message(role="assistant", parts=[TextPart(text="done")]),
                    Message.user("later")]:
        ctx.sessions.save_message(info.id, message)
    shown = ctx.sessions.load_messages(info.id)
    fork = service.fork_chat(info.id, shown[1].id)
    copied = ctx.sessions.load_messages(fork)
    assert [m.role for m in copied] == ["user", "assistant", "tool"]
    assert {m.id for m in copied}.isdisjoint(m.id for m in shown)
    forked = ctx.sessions.get_session(fork)
    assert forked is not None and forked.title == "Plans (fork)"
    assert (forked.workspace, forked.system_prompt, forked.extra) == (
        "/tmp/ws", "Be brief.", {"disabled_tools": ["fetch_url"]})
    assert len(ctx.sessions.load_messages(info.id)) == 5  # the original is untouched


async def test_a_stopped_answer_has_estimated_counts_and_stats(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    answer = held("One two three four five six seven eight nine ten " * 4, after=6)
    server.enqueue(answer)
    turn = service.start(NewChat(), "Count to ten, four times")
    await until(answer.holding.is_set)
    await until(lambda: len(turn.history) > 0 and bool(turn.streamed_text()))
    service.stop(turn.session_id)
    await service.wait(turn.session_id)
    answer.release()
    stored = ctx.sessions.load_messages(turn.session_id)[-1]
    assert stored.status == "stopped" and can_continue(stored)
    assert stored.usage is not None
    assert stored.usage.input_tokens > 0 and stored.usage.output_tokens > 0
    stats = GenerationStats.of(stored)
    assert stats is not None and stats.estimated and stats.first_token_s is not None


async def test_a_complete_answer_keeps_reported_counts_and_has_stats(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    server.enqueue(ScriptedResponse(chunks=text_stream("A fine answer, in pieces.")))
    turn = service.start(NewChat(), "hi")
    await service.wait(turn.session_id)
    stored = ctx.sessions.load_messages(turn.session_id)[-1]
    assert stored.usage is not None
    assert (stored.usage.input_tokens, stored.usage.output_tokens) == (10, 5)
    stats = GenerationStats.of(stored)
    assert stats is not None and not stats.estimated and stats.first_token_s is not None
    assert turn.history[-1].provider_data == stored.provider_data  # the live copy too


async def test_continue_sends_a_marked_question_after_a_cut_answer(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    server.enqueue(ScriptedResponse(chunks=text_stream("Half of it", finish_reason="length")))
    turn = service.start(NewChat(), "Write it all")
    await service.wait(turn.session_id)
    assert can_continue(ctx.sessions.load_messages(turn.session_id)[-1])
    server.enqueue(ScriptedResponse(chunks=text_stream(" and the rest.")))
    await service.wait(service.continue_answer(turn.session_id).session_id)
    messages = ctx.sessions.load_messages(turn.session_id)
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
    assert is_continuation(messages[2]) and messages[2].text == CONTINUE_PROMPT
    assert server.chat_requests[-1].json["messages"][-1]["content"] == CONTINUE_PROMPT

