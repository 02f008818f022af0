"""``assista ask --web`` as a real process: the loopback provider has no search of its
own, so the model gets web_search on the SearXNG chosen in the data folder's settings."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.app import AppContext
from tests.cli.test_ask_export import KEY, assista
from tests.support.openai_server import FakeOpenAIServer
from tests.support.search_servers import search_server


def test_ask_web_searches_through_the_configured_service(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with FakeOpenAIServer(models=["gpt-test"]) as server, search_server("searxng") as searx:
        ctx = AppContext.open(data, environ={}, log_to_stderr=False)
        ctx.settings.update(web_search_service="searxng", web_search_url=searx.url)
        ctx.close()
        server.enqueue_tool_calls([("web_search", json.dumps({"query": "assista 2"}))])
        server.enqueue_text("Version 2 adds knowledge bases.")
        done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test", "--web",
                       "What is new?", data_dir=data, env=KEY)
        assert done.returncode == 0, done.stderr
        assert done.stdout == "Version 2 adds knowledge bases."
        assert searx.requests[0].query == {"q": ["assista 2"], "format": ["json"]}
        server.enqueue_text("Hello.")
        plain = assista("ask", "--base-url", server.base_url, "--model", "gpt-test", "hi",
                        data_dir=data, env=KEY)
    assert plain.returncode == 0, plain.stderr
    last = server.chat_requests[-1].json
    assert "web_search" not in [t["function"]["name"] for t in last.get("tools", [])]
    first = server.chat_requests[0].json
    assert "web_search" in [t["function"]["name"] for t in first["tools"]]


def test_ask_web_without_a_service_says_what_to_do(tmp_path: Path) -> None:
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test", "--web",
                       "news?", data_dir=tmp_path / "data", env=KEY)
    assert done.returncode == 1
    assert "choose a search service (SearXNG, Brave or Tavily) in Settings" in done.stderr
    assert not server.chat_requests
