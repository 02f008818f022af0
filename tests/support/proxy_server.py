"""A loopback forwarding HTTP proxy that records what went through it.

Plain-HTTP proxying only (absolute-URI requests, no CONNECT): enough to prove that a
client was handed the proxy, since the fake servers are plain HTTP on 127.0.0.1::

    with LoopbackProxy() as proxy:
        ... a client configured with proxy.url ...
        assert proxy.seen == ["POST http://127.0.0.1:PORT/v1/chat/completions"]

Each answer is read whole from the target and sent on with a Content-Length.
"""

from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.support import served

__all__ = ["LoopbackProxy"]

_HOP_BY_HOP = {"proxy-connection", "connection", "keep-alive", "transfer-encoding",
               "content-length", "host"}  # fmt: skip


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _forward(self) -> None:
        self.server.owner._record(f"{self.command} {self.path}")
        target = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
        connection = http.client.HTTPConnection(target.hostname or "", target.port, timeout=10)
        try:
            path = target.path + (f"?{target.query}" if target.query else "")
            connection.request(self.command, path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
        finally:
            connection.close()
        self.send_response(response.status)
        for key, value in response.getheaders():
            if key.lower() not in _HOP_BY_HOP:
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    do_GET = _forward
    do_POST = _forward
    do_PUT = _forward  # (and what WebDAV adds: sync goes through proxies too)
    do_DELETE = _forward
    do_HEAD = _forward
    do_PROPFIND = _forward
    do_MKCOL = _forward
    do_MOVE = _forward


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, owner: LoopbackProxy) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _Handler)


class LoopbackProxy:
    """``url``: ``http://127.0.0.1:PORT``; ``seen``: ``"METHOD absolute-url"`` per request."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "proxy not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def _record(self, line: str) -> None:
        with self._lock:
            self.seen.append(line)

    def __enter__(self) -> LoopbackProxy:
        self._server = _Server(self)
        self._thread = served.serve(self._server)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._server is not None:
            served.stop(self._server, self._thread)
        self._server = None
