""""Search the web" in a chat whose provider has no search of its own: the model gets
the web_search tool on the service chosen in Settings (a loopback SearXNG), the
results are stored with the answer and become its sources."""

from __future__ import annotations

import json

import pytest

from desktop.app import AppContext
from desktop.chat.chat_options import ChatOptions
from desktop.chat.profile import NewChat
from desktop.chat.service import ChatService
from desktop.chat.web_search import SECRET_ID
from desktop.core.errors import ConfigError
from desktop.core.sources import answer_sources
from tests.support.openai_server import (
    FakeOpenAIServer,
    ScriptedResponse,
    text_stream,
    tool_call_stream,
)
from tests.support.search_servers import search_server


def _web_chat() -> NewChat:
    chat = NewChat()
    chat.options = ChatOptions(web_search=True)
    return chat


async def test_web_search_tool_on_searxng_becomes_sources(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext) -> None:
    with search_server("searxng") as searx:
        ctx.settings.update(web_search_service="searxng", web_search_url=searx.url)
        server.enqueue(ScriptedResponse(chunks=tool_call_stream(
            [("web_search", '{"query": "assista release notes"}')])))
        server.enqueue(ScriptedResponse(chunks=text_stream("Version 2 [1].")))
        turn = service.start(_web_chat(), "What is new in Assista?")
        await service.wait_idle()
    first = server.chat_requests[0].json
    assert "web_search" in [t["function"]["name"] for t in first["tools"]]
    assert "plugins" not in first  # not OpenRouter: no native search asked for
    assert searx.requests[0].query["q"] == ["assista release notes"]
    messages = ctx.sessions.load_messages(turn.session_id)
    result = next(p for m in messages for p in m.parts if p.type == "tool_result")
    assert json.loads(result.content)["result"]["results"][0]["url"] == \
        "https://example.org/notes"
    sources = answer_sources(messages[1:])
    assert [(s.title, s.url) for s in sources] == [
        ("Assista release notes", "https://example.org/notes"),
        ("Another page", "https://example.net/page")]
    second = server.chat_requests[1].json["messages"][-1]
    assert "example.org/notes" in second["content"]


async def test_without_a_search_service_the_turn_says_what_to_do(
        service: ChatService, ctx: AppContext) -> None:
    with pytest.raises(ConfigError, match="choose a search service"):
        service.start(_web_chat(), "news?")
    ctx.settings.update(web_search_service="brave")
    with pytest.raises(ConfigError, match="needs an API key"):
        service.start(_web_chat(), "news?")
    ctx.secrets.set(SECRET_ID, "BSA-key")
    plan = service.plan(_web_chat())
    assert "web_search" in plan.tools and not plan.request.web_search


async def test_chat_switch_off_means_no_search(service: ChatService,
                                               server: FakeOpenAIServer) -> None:
    server.enqueue(ScriptedResponse(chunks=text_stream("Offline answer.")))
    service.start(NewChat(), "hello")
    await service.wait_idle()
    body = server.chat_requests[0].json
    assert "web_search" not in [t["function"]["name"] for t in body.get("tools", [])]


@pytest.mark.parametrize(("kind", "base_url"), [
    ("anthropic", "https://api.anthropic.com"),
    ("openai-responses", "https://api.openai.com/v1"),
    ("gemini", "https://generativelanguage.googleapis.com/v1beta"),
    ("openai", "https://openrouter.ai/api/v1"),
])
def test_providers_with_their_own_search_get_the_switch_not_the_tool(
        service: ChatService, ctx: AppContext, kind: str, base_url: str) -> None:
    from desktop.core.provider_options import options_for
    from desktop.core.settings import ProviderConfig

    config = ProviderConfig(name=kind, kind=kind, base_url=base_url, model="m-1",
                            options=options_for(kind, {}))
    ctx.settings_store.save_provider(config)
    chat = _web_chat()
    chat.provider_id = config.id
    plan = service.plan(chat)
    assert plan.request.web_search and "web_search" not in plan.tools


def test_gemini_with_tools_uses_the_service_when_there_is_one(
        service: ChatService, ctx: AppContext) -> None:
    from desktop.core.provider_options import options_for
    from desktop.core.settings import ProviderConfig

    config = ProviderConfig(name="Gemini", kind="gemini", model="gemini-test",
                            base_url="https://generativelanguage.googleapis.com/v1beta",
                            options=options_for("gemini", {}))
    ctx.settings_store.save_provider(config)
    chat = _web_chat()
    chat.provider_id = config.id
    assert service.plan(chat).request.web_search  # no service: Google Search
    ctx.settings.update(web_search_service="searxng", web_search_url="http://127.0.0.1:9")
    plan = service.plan(chat)
    assert plan.tools and "web_search" in plan.tools and not plan.request.web_search
