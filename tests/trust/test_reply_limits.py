"""Every read from a provider is capped: an event line that never ends, data lines
with no end of event, a huge or gzip-bombed JSON reply all stop with a clear error.

The loopback server streams at most a few MB past the limit and then holds the
connection open: a client without the limit would wait for more (and fail with a
timeout, not with the expected message)."""

from __future__ import annotations

import contextlib
import gzip
import threading
from collections.abc import Iterator
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from desktop.core.errors import ProviderError
from desktop.core.events import ErrorEvent, StreamEvent
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest
from desktop.providers.http_base import HttpProvider
from desktop.providers.limits import MAX_EVENT_SIZE, MAX_JSON_REPLY
from desktop.providers.ollama import OllamaProvider
from desktop.providers.openai_chat import OpenAIChatProvider
from desktop.providers.retry import RetryPolicy
from tests.support import served

CHUNK = b"x" * 65536
OVERSHOOT = 4 * 1024 * 1024  # what the server sends past the limit before it holds


@cache
def bomb(size: int) -> bytes:
    """``size`` bytes of JSON-ish filler, gzip-compressed to about a thousandth."""
    return gzip.compress(b"[" + b" " * size + b"]", compresslevel=9)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    release: ClassVar[threading.Event] = threading.Event()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.do_POST()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        kind = self.server.kind  # type: ignore[attr-defined]
        if kind in ("sse-line", "sse-data", "ndjson-line"):
            self.send_response(200)
            ctype = "application/x-ndjson" if kind == "ndjson-line" else "text/event-stream"
            self.send_header("Content-Type", ctype)
            self.send_header("Connection", "close")
            self.end_headers()
            prefix = {"sse-line": b"data: ", "sse-data": b"", "ndjson-line": b'{"a":"'}[kind]
            piece = b"data: " + CHUNK[:1000] + b"\n" if kind == "sse-data" else CHUNK
            sent = 0
            try:
                self.wfile.write(prefix)
                while sent < MAX_EVENT_SIZE + OVERSHOOT:
                    self.wfile.write(piece)
                    sent += len(piece)
                self.wfile.flush()
                Handler.release.wait(30)  # hold: the client must stop on its own
            except OSError:
                pass  # the client hung up: what we want
            return
        body = bomb(MAX_JSON_REPLY + 1024)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(OSError):  # the client may hang up: what we want
            self.wfile.write(body)


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[ThreadingHTTPServer] = []
    Handler.release.clear()

    def start(kind: str) -> str:
        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.kind = kind  # type: ignore[attr-defined]
        server.daemon_threads = True
        served.serve(server)
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    Handler.release.set()
    for server in servers:
        served.stop(server)


async def last_event(provider: HttpProvider, model: str = "m") -> StreamEvent:
    events = [e async for e in provider.stream(ChatRequest(model, [Message.user("hi")]))]
    await provider.aclose()
    return events[-1]


NO_RETRY = RetryPolicy(max_retries=0)


@pytest.mark.parametrize("kind", ["sse-line", "sse-data"])
async def test_an_event_that_never_ends_stops_at_the_limit(serve: Any, kind: str) -> None:
    provider = OpenAIChatProvider(serve(kind) + "/v1", "k", timeout=20, retry=NO_RETRY)
    event = await last_event(provider)
    assert isinstance(event, ErrorEvent)
    assert event.code == "reply_too_large"
    assert "stream event of more than 32 MB" in event.message


async def test_an_ndjson_line_that_never_ends_stops_at_the_limit(serve: Any) -> None:
    provider = OllamaProvider(serve("ndjson-line"), timeout=20, retry=NO_RETRY)
    event = await last_event(provider)
    assert isinstance(event, ErrorEvent) and event.code == "reply_too_large"


async def test_gzip_bombs_are_capped_after_decompression(serve: Any) -> None:
    base = serve("bomb") + "/v1"
    assert len(bomb(MAX_JSON_REPLY + 1024)) < MAX_JSON_REPLY // 500  # small on the wire
    provider = OpenAIChatProvider(base, "k", timeout=20, retry=NO_RETRY)
    with pytest.raises(ProviderError, match="larger than 64 MB") as caught:
        await provider.list_models()
    assert caught.value.code == "reply_too_large"
    await provider.aclose()
    answer = await last_event(OpenAIChatProvider(base, "k", timeout=20, retry=NO_RETRY))
    assert isinstance(answer, ErrorEvent) and answer.code == "reply_too_large"
    assert "answer is larger than 64 MB" in answer.message


def test_the_decoders_stop_on_their_own() -> None:
    """Whatever the chunking: one long line, or data lines with no end of event."""
    from desktop.providers.limits import ReplyTooLarge
    from desktop.providers.ndjson import NDJSONDecoder
    from desktop.providers.sse import SSEDecoder

    sse = SSEDecoder(max_size=1000)
    assert sse.feed(b"data: ok\n\n")[0].data == "ok"
    with pytest.raises(ReplyTooLarge):
        for _ in range(20):
            sse.feed(b"data: " + b"y" * 100 + b"\n")  # data lines, no blank line
    nd = NDJSONDecoder(max_size=1000)
    with pytest.raises(ReplyTooLarge):
        for _ in range(20):
            nd.feed(b"z" * 100)
