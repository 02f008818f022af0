"""A small web on loopback for research runs: HTML pages, and a SearXNG
(``/search?q=...&format=json``) that finds the pages whose topic words are in the
query. It records every search and every page read; a page can be held (its reader
waits until :meth:`ResearchWeb.release`)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support import served


@dataclass
class Page:
    path: str  # "/solar"
    title: str
    body: str
    topics: tuple[str, ...]  # a query with one of these words finds the page
    hold: bool = False


@dataclass
class ResearchWeb:
    pages: list[Page] = field(default_factory=list)
    searches: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)  # paths, in the order they were read
    url: str = ""
    released: threading.Event = field(default_factory=threading.Event)
    holding: threading.Event = field(default_factory=threading.Event)

    def page_url(self, path: str) -> str:
        return f"{self.url}{path}"

    def release(self) -> None:
        self.released.set()

    def found(self, query: str) -> list[Page]:
        words = {w.strip(".,?").lower() for w in query.split()}
        return [p for p in self.pages if words & set(p.topics)]

    def search_reply(self, query: str) -> bytes:
        items = [{"title": p.title, "url": self.page_url(p.path), "content": p.body[:80]}
                 for p in self.found(query)]
        return json.dumps({"query": query, "results": items}).encode()


def article(title: str, body: str) -> str:
    return (f"<!doctype html><html><head><title>{title}</title></head><body>"
            f"<h1>{title}</h1><p>{body}</p></body></html>")


@contextmanager
def research_web(pages: list[Page]) -> Iterator[ResearchWeb]:
    web = ResearchWeb(pages)

    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, content_type: str, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            split = urlsplit(self.path)
            if split.path == "/search":
                query = parse_qs(split.query).get("q", [""])[0]
                web.searches.append(query)
                self._send(200, "application/json", web.search_reply(query))
                return
            page = next((p for p in web.pages if p.path == split.path), None)
            if page is None:
                self._send(404, "text/plain", b"no such page")
                return
            if page.hold:
                web.holding.set()
                web.released.wait(30)
            web.reads.append(page.path)
            self._send(200, "text/html; charset=utf-8", article(page.title, page.body).encode())

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = served.serve(server)
    web.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield web
    finally:
        web.release()
        served.stop(server, thread)
