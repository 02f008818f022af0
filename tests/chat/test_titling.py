"""After a new chat's first answer the model names it — unless the user did, the
setting is off, or the request fails (then the first-line title stays)."""

from __future__ import annotations

import asyncio

import pytest

from desktop.app import AppContext
from desktop.chat.profile import NewChat
from desktop.chat.service import ChatService
from desktop.chat.title_request import REASONING_MAX_TOKENS, TITLE_MAX_TOKENS
from desktop.chat.titling import TITLE_PROMPT, clean_title
from desktop.core.settings import ProviderConfig
from tests.chat.conftest import add_provider
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream


@pytest.fixture
def titling(ctx: AppContext, server: FakeOpenAIServer) -> ChatService:
    add_provider(ctx, server)
    return ChatService(ctx, write_titles=True)


def _reply(server: FakeOpenAIServer, text: str) -> None:
    server.enqueue(ScriptedResponse(chunks=text_stream(text)))


async def test_the_model_written_title_replaces_the_first_line(
        titling: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    _reply(server, "Paris is the capital.")
    _reply(server, '"Capital of France."')
    changed: list[str] = []
    titling.on_sessions_changed.append(lambda: changed.append("x"))
    turn = titling.start(NewChat(), "what is the capital of france? answer briefly please")
    await titling.wait_idle()
    first = ctx.sessions.get_session(turn.session_id)
    assert first is not None and first.title.startswith("what is the capital")
    await titling.titles.wait()
    info = ctx.sessions.get_session(turn.session_id)
    assert info is not None and info.title == "Capital of France"
    title_request = server.chat_requests[-1].json
    assert title_request["messages"][0] == {"role": "system", "content": TITLE_PROMPT}
    assert "Paris is the capital." in title_request["messages"][1]["content"]
    assert not title_request.get("tools")
    assert changed  # the chat list is told
    # a second turn asks for no title again
    _reply(server, "More.")
    titling.start(turn.session_id, "and germany?")
    await titling.wait_idle()
    await titling.titles.wait()
    assert len(server.chat_requests) == 3


async def test_a_title_the_user_set_meanwhile_is_kept(
        titling: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    _reply(server, "Answer.")
    title_reply = ScriptedResponse(chunks=text_stream("Model title"), hold_after=0)
    server.enqueue(title_reply)
    turn = titling.start(NewChat(), "question")
    await titling.wait_idle()
    titling.rename_chat(turn.session_id, "Mine")
    title_reply.release()
    await titling.titles.wait()
    info = ctx.sessions.get_session(turn.session_id)
    assert info is not None and info.title == "Mine"


async def test_off_in_preferences_or_failing_keeps_the_first_line(
        titling: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    ctx.settings.update(model_titles=False)
    _reply(server, "Answer.")
    off = titling.start(NewChat(), "first line title")
    await titling.wait_idle()
    await titling.titles.wait()
    assert len(server.chat_requests) == 1
    ctx.settings.update(model_titles=True)
    _reply(server, "Answer.")
    server.enqueue(ScriptedResponse.error(400, "no titles here"))
    failing = titling.start(NewChat(), "another first line")
    await titling.wait_idle()
    await titling.titles.wait()
    titles = [ctx.sessions.get_session(t.session_id) for t in (off, failing)]
    assert [i.title for i in titles if i is not None] == ["first line title",
                                                          "another first line"]


async def test_the_command_lines_service_writes_no_titles(
        service: ChatService, server: FakeOpenAIServer) -> None:
    _reply(server, "Answer.")
    service.start(NewChat(), "hi")
    await service.wait_idle()
    await service.titles.wait()
    assert len(server.chat_requests) == 1


def test_clean_title() -> None:
    assert clean_title('Title: "Trip to Rome."\nmore') == "Trip to Rome"
    assert clean_title("## **Budget plan**") == "Budget plan"
    assert clean_title("  \n ") is None
    assert clean_title("x" * 100) == "x" * 59 + "…"


async def test_the_title_request_is_capped_and_its_stream_cut_off_after_the_title(
        titling: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    _reply(server, "Answer.")
    # the title's line, then a long ramble the server holds back: never read
    long = ScriptedResponse(chunks=text_stream(
        "Capital of France\n" + "and then I go on thinking aloud " * 500, 6), hold_after=8)
    server.enqueue(long)
    turn = titling.start(NewChat(), "what is the capital of france?")
    await titling.wait_idle()
    await asyncio.wait_for(titling.titles.wait(), 20)  # (without the cut: held forever)
    # (done while the rest is held back; the server may not even have reached the hold
    # when the client hung up, so only "never released" is certain)
    assert not long.released.is_set()
    info = ctx.sessions.get_session(turn.session_id)
    assert info is not None and info.title == "Capital of France"
    body = server.last_chat_body
    assert body["max_tokens"] == TITLE_MAX_TOKENS
    assert "reasoning_effort" not in body and not body.get("tools")


async def test_a_reasoning_model_is_asked_to_think_little_and_briefly(
        ctx: AppContext, server: FakeOpenAIServer) -> None:
    config = ProviderConfig(name="OpenAI", preset="openai", base_url=server.base_url,
                            model="o3-mini")
    ctx.settings_store.save_provider(config)
    ctx.secrets.set(config.id, "sk-loopback-key-123456")
    ctx.settings.update(active_provider_id=config.id)
    titling = ChatService(ctx, write_titles=True)
    _reply(server, "Answer.")
    _reply(server, "Short title")
    titling.start(NewChat(), "a question")
    await titling.wait_idle()
    await titling.titles.wait()
    body = server.last_chat_body
    assert body["model"] == "o3-mini"
    assert body["reasoning_effort"] == "low"
    assert body["max_completion_tokens"] == REASONING_MAX_TOKENS and "max_tokens" not in body


async def test_the_title_model_named_in_preferences_writes_the_title(
        titling: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    with FakeOpenAIServer(models=["tiny"]) as other:
        config = ProviderConfig(name="Titles", preset="custom", base_url=other.base_url,
                                model="tiny")
        ctx.settings_store.save_provider(config)
        ctx.secrets.set(config.id, "sk-other-key-123456")
        ctx.settings.update(title_provider_id=config.id, title_model="tiny-titles")
        _reply(server, "Answer.")
        other.enqueue(ScriptedResponse(chunks=text_stream("Named elsewhere")))
        turn = titling.start(NewChat(), "a question")
        await titling.wait_idle()
        await titling.titles.wait()
        assert len(server.chat_requests) == 1  # the chat's model answered only
        assert other.last_chat_body["model"] == "tiny-titles"
        assert other.last_chat_body["max_tokens"] == TITLE_MAX_TOKENS
        info = ctx.sessions.get_session(turn.session_id)
        assert info is not None and info.title == "Named elsewhere"
        # a provider that is gone: the chat's own model again
        ctx.settings.update(title_provider_id="prov_gone")
        _reply(server, "Answer.")
        _reply(server, "Own model title")
        titling.start(NewChat(), "another question")
        await titling.wait_idle()
        await titling.titles.wait()
        assert server.last_chat_body["model"] == "gpt-test"
