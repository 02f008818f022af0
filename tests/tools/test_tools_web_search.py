"""The web_search tool against loopback servers in the SearXNG, Brave and Tavily
formats: what is sent, what comes back (title, url, snippet), and the errors."""

from __future__ import annotations

import pytest

from desktop.core.errors import ToolError
from desktop.tools.builtins.web_search import WebSearchConfig, search_web, web_search_tool
from desktop.tools.registry import ToolContext
from tests.support.search_servers import RESULTS, search_server

EXPECTED = [{"title": r["title"], "url": r["url"], "snippet": r["snippet"]} for r in RESULTS]


async def test_searxng_json_format() -> None:
    with search_server("searxng") as server:
        tool = web_search_tool(WebSearchConfig("searxng", url=server.url + "/"))
        out = await tool.handler({"query": "assista release", "count": 5}, ToolContext())
    assert out["service"] == "SearXNG"
    assert out["results"] == [{"n": n, **r} for n, r in enumerate(EXPECTED, 1)]
    sent = server.requests[0]
    assert (sent.method, sent.path) == ("GET", "/search")
    assert sent.query == {"q": ["assista release"], "format": ["json"]}


async def test_brave_format_and_key_header() -> None:
    with search_server("brave") as server:
        found = await search_web(WebSearchConfig("brave", url=server.url, api_key="BSA-key"),
                                 "release notes", 1)
    assert found == EXPECTED[:1]
    sent = server.requests[0]
    assert sent.path == "/res/v1/web/search"
    assert sent.query == {"q": ["release notes"], "count": ["1"]}
    assert sent.headers["x-subscription-token"] == "BSA-key"


async def test_tavily_format_and_bearer_key() -> None:
    with search_server("tavily") as server:
        found = await search_web(WebSearchConfig("tavily", url=server.url, api_key="tvly-k"),
                                 "release notes", 4)
    assert found == EXPECTED
    sent = server.requests[0]
    assert (sent.method, sent.path) == ("POST", "/search")
    assert sent.body == {"query": "release notes", "max_results": 4}
    assert sent.headers["authorization"] == "Bearer tvly-k"


@pytest.mark.parametrize(("kind", "status", "raw", "message"), [
    ("searxng", 403, None, "format=json allowed"),
    ("brave", 401, None, "refused the API key"),
    ("tavily", 500, None, "HTTP 500"),
    ("searxng", 200, b"<html>not json</html>", "did not answer JSON"),
])
async def test_failures_are_sentences(kind: str, status: int, raw: bytes | None,
                                      message: str) -> None:
    with (search_server(kind, status=status, raw=raw) as server,
          pytest.raises(ToolError, match=message)):
        config = WebSearchConfig(kind, url=server.url, api_key="k")  # type: ignore[arg-type]
        await search_web(config, "x")


async def test_missing_settings_and_unreachable_service() -> None:
    with pytest.raises(ToolError, match="needs the instance's address"):
        await search_web(WebSearchConfig("searxng"), "x")
    with pytest.raises(ToolError, match="needs an API key"):
        await search_web(WebSearchConfig("brave"), "x")
    with search_server("searxng") as server:
        url = server.url
    with pytest.raises(ToolError, match="could not be reached"):
        await search_web(WebSearchConfig("searxng", url=url), "x")
