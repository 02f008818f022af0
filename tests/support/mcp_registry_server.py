"""A loopback MCP registry in the official API's format (``GET /v0.1/servers``, and
``/v0/servers`` like the official one, or only the ``paths`` given; with
``cursor``/``limit``, pages of ``{"servers": [{"server": ..., "_meta": ...}],
"metadata": {"nextCursor": ...}}``). It serves the pages it was given, follows the
cursor exactly, and records each query; ``raw`` replaces every answer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support import served

OFFICIAL = "io.modelcontextprotocol.registry/official"


def listing(server: dict[str, Any], *, latest: bool = True,
            status: str = "active") -> dict[str, Any]:
    return {"server": server, "_meta": {OFFICIAL: {"status": status, "isLatest": latest,
                                                   "publishedAt": "2025-10-01T00:00:00Z"}}}


FILESYSTEM = {
    "name": "io.github.example/filesystem", "description": "Read and write files",
    "title": "Filesystem", "version": "1.2.0",
    "repository": {"url": "https://github.com/example/filesystem", "source": "github"},
    "packages": [{"registryType": "npm", "identifier": "@example/server-filesystem",
                  "version": "1.2.0", "transport": {"type": "stdio"},
                  "packageArguments": [{"type": "positional", "valueHint": "folder",
                                        "description": "Folder to serve", "isRequired": True}],
                  "environmentVariables": [{"name": "FS_TOKEN", "description": "Access token",
                                            "isRequired": True, "isSecret": True}]}],
}
WEATHER = {
    "name": "io.github.example/weather", "description": "Forecasts", "version": "0.3.1",
    "packages": [{"registryType": "pypi", "identifier": "weather-mcp", "version": "0.3.1",
                  "transport": {"type": "stdio"},
                  "packageArguments": [{"type": "named", "name": "--units", "value": "metric"}]}],
}
HOSTED = {
    "name": "com.example/hosted", "description": "A hosted server", "version": "2.0.0",
    "remotes": [{"type": "streamable-http", "url": "https://mcp.example.com/mcp",
                 "headers": [{"name": "X-Api-Key", "isRequired": False, "isSecret": True}]}],
}


@dataclass
class RegistryServer:
    pages: list[list[dict[str, Any]]] = field(default_factory=list)
    raw: bytes | None = None
    status: int = 200
    queries: list[dict[str, list[str]]] = field(default_factory=list)
    url: str = ""
    paths: tuple[str, ...] = ("/v0.1/servers", "/v0/servers")  # what it serves
    asked: list[str] = field(default_factory=list)  # every path asked, in order

    def answer(self, query: dict[str, list[str]]) -> tuple[int, bytes]:
        self.queries.append(query)
        if self.raw is not None:
            return self.status, self.raw
        cursor = query.get("cursor", [""])[0]
        index = int(cursor.removeprefix("page=")) if cursor else 0
        more = index + 1 < len(self.pages)
        body = {"servers": self.pages[index],
                "metadata": {"count": len(self.pages[index]),
                             "nextCursor": f"page={index + 1}" if more else None}}
        return self.status, json.dumps(body).encode()


@contextmanager
def registry_server(state: RegistryServer) -> Iterator[RegistryServer]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            state.asked.append(parts.path)
            if parts.path not in state.paths:
                status, body = 404, b'{"error": "not found"}'
            else:
                status, body = state.answer(parse_qs(parts.query))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = served.serve(httpd)
    try:
        yield state
    finally:
        served.stop(httpd, thread)
