"""Loopback search services in the formats of SearXNG (``/search?format=json``), the
Brave Search API (``/res/v1/web/search``) and Tavily (``POST /search``): each answers
the results it was given and records every request (path, query, headers, body)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support import served

RESULTS = [
    {"title": "Assista release notes", "url": "https://example.org/notes",
     "snippet": "Version 2 adds knowledge bases."},
    {"title": "Another page", "url": "https://example.net/page", "snippet": "More words."},
]


@dataclass
class SearchRequest:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


@dataclass
class SearchServer:
    kind: str  # "searxng" | "brave" | "tavily"
    results: list[dict[str, str]] = field(default_factory=lambda: list(RESULTS))
    status: int = 200
    raw: bytes | None = None  # sent as is instead of the results
    requests: list[SearchRequest] = field(default_factory=list)
    url: str = ""

    def reply(self) -> bytes:
        if self.raw is not None:
            return self.raw
        if self.kind == "brave":
            items = [{"title": r["title"], "url": r["url"], "description": r["snippet"]}
                     for r in self.results]
            return json.dumps({"type": "search", "web": {"results": items}}).encode()
        items = [{"title": r["title"], "url": r["url"], "content": r["snippet"]}
                 for r in self.results]
        return json.dumps({"query": "q", "results": items}).encode()


@contextmanager
def search_server(kind: str, **kwargs: Any) -> Iterator[SearchServer]:
    state = SearchServer(kind, **kwargs)

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, body: Any) -> None:
            split = urlsplit(self.path)
            state.requests.append(SearchRequest(
                self.command, split.path, parse_qs(split.query),
                {k.lower(): v for k, v in self.headers.items()}, body))
            data = state.reply()
            self.send_response(state.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._answer(None)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self._answer(json.loads(self.rfile.read(length) or b"null"))

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = served.serve(server)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    state.url = {"searxng": base, "brave": f"{base}/res/v1/web/search",
                 "tavily": f"{base}/search"}[kind]
    try:
        yield state
    finally:
        served.stop(server, thread)
