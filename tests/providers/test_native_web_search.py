""""Search the web" on providers with a search of their own: the request each sends
to a loopback server of its wire format carries that provider's search switch."""

from __future__ import annotations

import pytest

from desktop.core.messages import Message
from desktop.core.provider import ChatRequest, ToolSpec
from desktop.providers.web_search import has_native_web_search
from tests.support.provider_cases import CASES, ApiCase

BY_ID = {case.id: case for case in CASES}
TOOL = ToolSpec(name="read_file", description="Read a file.",
                parameters={"type": "object", "properties": {}})


async def _sent_body(case: ApiCase, web_search: bool) -> dict:
    request = ChatRequest(model=case.model, messages=[Message.user("News?")], tools=[TOOL],
                          web_search=web_search)
    with case.server() as server:
        case.enqueue(server, case.response(case.text("Fine.", 3)))
        async with case.make(server) as provider:
            _ = [event async for event in provider.stream(request)]
        posted = [r for r in server.requests if r.path.split("?")[0] == case.path]
    return posted[0].json


@pytest.mark.parametrize(("case_id", "expected"), [
    ("openai_responses", ("tools", {"type": "web_search"})),
    ("anthropic", ("tools", {"type": "web_search_20250305", "name": "web_search",
                             "max_uses": 5})),
    ("gemini", ("tools", {"googleSearch": {}})),
    ("openai_chat", ("plugins", {"id": "web"})),  # sent to OpenRouter only, see below
])
async def test_native_search_in_the_request(case_id: str, expected: tuple[str, dict]) -> None:
    case = BY_ID[case_id]
    key, entry = expected
    body = await _sent_body(case, web_search=True)
    assert entry in body[key]
    if key == "tools":  # next to the app's own tools, not instead of them
        assert len(body["tools"]) == 2
    plain = await _sent_body(case, web_search=False)
    assert entry not in plain.get(key, [])


async def test_ollama_has_no_native_search() -> None:
    body = await _sent_body(BY_ID["ollama"], web_search=True)
    assert [t["function"]["name"] for t in body["tools"]] == ["read_file"]
    assert "plugins" not in body


def test_which_providers_search_themselves() -> None:
    assert has_native_web_search("openai-responses", "https://api.openai.com/v1")
    assert has_native_web_search("anthropic", "https://api.anthropic.com")
    assert has_native_web_search("gemini", "https://generativelanguage.googleapis.com")
    assert has_native_web_search("openai", "https://openrouter.ai/api/v1")
    assert not has_native_web_search("openai", "https://api.groq.com/openai/v1")
    assert not has_native_web_search("openai", "https://openrouter.ai.evil.example/v1")
    assert not has_native_web_search("ollama", "http://127.0.0.1:11434")


async def test_openrouter_citations_become_sources() -> None:
    """Chat Completions url_citation annotations (OpenRouter's web plugin) in a stream."""
    from desktop.core.events import SourcesEvent
    from tests.support.openai_server import ScriptedResponse, sse_chunks

    case = BY_ID["openai_chat"]
    chunk = {"id": "c", "object": "chat.completion.chunk", "model": "gpt-test", "choices": [
        {"index": 0, "delta": {"content": "Fine [1].", "annotations": [
            {"type": "url_citation", "url_citation": {
                "url": "https://example.org/a", "title": "Example A", "content": "text",
                "start_index": 5, "end_index": 8}},
            {"type": "other"}]}, "finish_reason": "stop"}]}
    with case.server() as server:
        server.enqueue(ScriptedResponse(chunks=sse_chunks([chunk])))
        request = ChatRequest(model=case.model, messages=[Message.user("News?")],
                              web_search=True)
        async with case.make(server) as provider:
            events = [event async for event in provider.stream(request)]
    cited = [s for e in events if isinstance(e, SourcesEvent) for s in e.sources]
    assert [(s.title, s.url, s.snippet) for s in cited] == [
        ("Example A", "https://example.org/a", "text")]
