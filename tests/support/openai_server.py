"""A loopback fake of an OpenAI-compatible server, for provider, UI and CLI tests.

Typical use (the ``openai_server`` fixture in ``tests.support.fixtures`` does the
``with`` for you)::

    with FakeOpenAIServer() as server:
        server.enqueue(ScriptedResponse(chunks=text_stream("Hello world", chunk_size=3)))
        provider = OpenAIChatProvider(server.base_url)          # base_url ends in /v1
        ...
        assert server.chat_requests[0].json["model"] == "gpt-test"

* ``POST /v1/chat/completions`` answers from a FIFO queue of :class:`ScriptedResponse`
  (status, headers, raw byte chunks written one by one with a flush, optionally cut
  mid-stream or held until released). An empty queue answers 500 with a JSON error
  saying so (and ``Retry-After: 0`` so retrying clients fail fast).
* ``GET /v1/models`` lists :attr:`FakeOpenAIServer.models` unless a response was
  queued for that path with ``enqueue(..., path="/v1/models")``.
* Every request is recorded as a :class:`RecordedRequest` (method, path, lower-cased
  headers, body bytes, ``.json``).
"""

from __future__ import annotations

import base64
import json
import socket
import ssl
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support import served
from tests.support.sse_builders import (
    split_bytes,
    sse_chunks,
    sse_event,
    text_stream,
    tool_call_stream,
)

__all__ = [
    "CHAT_PATH",
    "IMAGES_PATH",
    "MODELS_PATH",
    "FakeOpenAIServer",
    "RecordedRequest",
    "ScriptedResponse",
    "split_bytes",
    "sse_chunks",
    "sse_event",
    "text_stream",
    "tool_call_stream",
    "unused_port",
]

CHAT_PATH = "/v1/chat/completions"
IMAGES_PATH = "/v1/images/generations"
FILES_PATH = "/files/"  # where served_file() bytes are (image URLs of an images reply)
MODELS_PATH = "/v1/models"
SSE_HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}


@dataclass
class ScriptedResponse:
    """One scripted HTTP answer.

    ``chunks`` are written and flushed one at a time. With ``chunked`` (default) the
    body uses chunked transfer encoding; otherwise it is delimited by closing the
    connection. ``cut`` closes the socket after the chunks without finishing the body.
    ``hold_after=n`` pauses after ``n`` chunks until :meth:`release` is called (or the
    server stops): handy to test Stop/cancel mid-stream.
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: dict(SSE_HEADERS))
    chunks: list[bytes] = field(default_factory=list)
    cut: bool = False
    chunked: bool = True
    hold_after: int | None = None
    released: threading.Event = field(default_factory=threading.Event, repr=False)
    holding: threading.Event = field(default_factory=threading.Event, repr=False)
    first_byte_at: float | None = None  # time.perf_counter() when the first chunk was sent

    def release(self) -> None:
        self.released.set()

    @classmethod
    def sse(cls, chunks: Sequence[dict[str, Any] | str], **kwargs: Any) -> ScriptedResponse:
        """A 200 SSE stream of ``chunks`` (dicts become ``data: {json}``) and ``[DONE]``."""
        return cls(chunks=sse_chunks(chunks), **kwargs)

    @classmethod
    def json_body(
        cls, body: Any, status: int = 200, headers: dict[str, str] | None = None
    ) -> ScriptedResponse:
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        return cls(status=status, headers=all_headers, chunks=[json.dumps(body).encode()])

    @classmethod
    def error(
        cls,
        status: int,
        message: str = "error",
        *,
        type: str = "invalid_request_error",
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> ScriptedResponse:
        """An OpenAI-style JSON error: ``{"error": {"message", "type", "code"}}``."""
        body = {"error": {"message": message, "type": type, "param": None, "code": code}}
        return cls.json_body(body, status, headers)

    @classmethod
    def text(
        cls, status: int, body: str, content_type: str = "text/html; charset=utf-8"
    ) -> ScriptedResponse:
        return cls(status=status, headers={"Content-Type": content_type}, chunks=[body.encode()])


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str  # including any query string
    headers: dict[str, str]  # lower-cased names
    body: bytes
    client_port: int = 0  # the client's TCP port: equal ports mean a reused connection

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


def unused_port() -> int:
    """A loopback port with nothing listening (for connection-refused tests)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        if self.server.fake.tls is not None:  # HTTPS: the stdlib's TLS, server side
            self.request = self.server.fake.tls.wrap_socket(self.request, server_side=True)
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_DELETE(self) -> None:
        self._handle()

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _handle(self) -> None:
        fake = self.server.fake
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = RecordedRequest(
            self.command, self.path, headers, self._read_body(), self.client_address[1]
        )
        fake._record(request)
        self._send(fake._response_for(request))

    def _send(self, scripted: ScriptedResponse) -> None:
        self.send_response(scripted.status)
        for name, value in scripted.headers.items():
            self.send_header(name, value)
        chunked = scripted.chunked
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        elif scripted.cut:
            self.send_header("Connection", "close")
        else:
            self.send_header("Content-Length", str(sum(len(c) for c in scripted.chunks)))
        self.end_headers()
        self.wfile.flush()
        for i, chunk in enumerate(scripted.chunks):
            if scripted.hold_after is not None and i == scripted.hold_after:
                scripted.holding.set()
                scripted.released.wait()
                if self.server.fake.stopping:
                    scripted.cut = True
                    break
            if not chunk:
                continue
            if scripted.first_byte_at is None:
                scripted.first_byte_at = time.perf_counter()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
            self.wfile.flush()
        if scripted.cut:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if chunked:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, fake: FakeOpenAIServer, host: str) -> None:
        self.fake = fake
        super().__init__((host, 0), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that stops reading (Stop button, cancelled task) is normal here, as is
        # one refusing the certificate.
        if isinstance(sys.exc_info()[1], ConnectionError | ssl.SSLError):
            return
        super().handle_error(request, client_address)


class FakeOpenAIServer:
    """Loopback OpenAI-compatible server in a background thread (see module docs)."""

    def __init__(self, *, models: Iterable[str | dict[str, Any]] = ("gpt-test",),
                 tls: ssl.SSLContext | None = None) -> None:
        """``tls``: serve HTTPS with this server context."""
        self.tls = tls
        self.models: list[str | dict[str, Any]] = list(models)
        self.requests: list[RecordedRequest] = []
        self.stopping = False
        self._queues: dict[str, deque[ScriptedResponse]] = {}
        self.files: dict[str, ScriptedResponse] = {}
        self._sent: list[ScriptedResponse] = []
        self._lock = threading.Lock()
        self._request_seen = threading.Condition(self._lock)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> FakeOpenAIServer:
        if self._server is None:
            self.stopping = False
            self._server = _Server(self, "127.0.0.1")
            self._thread = served.serve(self._server, "FakeOpenAIServer")
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self.stopping = True
        with self._lock:
            for response in self._sent:
                response.release()
            for queue in self._queues.values():
                for response in queue:
                    response.release()
        served.stop(self._server, self._thread)
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- addresses

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (``https`` with ``tls``; no path)."""
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``: what an OpenAI client is configured with."""
        return f"{self.url}/v1"

    # -- scripting

    def enqueue(self, *responses: ScriptedResponse, path: str = CHAT_PATH) -> None:
        with self._lock:
            self._queues.setdefault(path, deque()).extend(responses)

    def enqueue_text(self, text: str, chunk_size: int = 3, **kwargs: Any) -> ScriptedResponse:
        """Queue a streamed text answer (see :func:`text_stream` for ``kwargs``)."""
        response = ScriptedResponse(chunks=text_stream(text, chunk_size, **kwargs))
        self.enqueue(response)
        return response

    def enqueue_tool_calls(
        self, calls: Sequence[tuple[str, str]], split: int = 5, **kwargs: Any
    ) -> ScriptedResponse:
        """Queue a streamed tool-call answer (see :func:`tool_call_stream`)."""
        response = ScriptedResponse(chunks=tool_call_stream(calls, split, **kwargs))
        self.enqueue(response)
        return response

    def enqueue_error(self, status: int, message: str = "error", **kwargs: Any) -> ScriptedResponse:
        response = ScriptedResponse.error(status, message, **kwargs)
        self.enqueue(response)
        return response

    def enqueue_images(self, images: Sequence[bytes | str], **fields: Any) -> ScriptedResponse:
        """Queue an Images API reply: bytes become ``b64_json`` items, a str a ``url``
        item (see :meth:`serve_file`); ``fields`` go in the body (``usage``...)."""
        data = [{"b64_json": base64.b64encode(i).decode()} if isinstance(i, bytes)
                else {"url": i} for i in images]
        response = ScriptedResponse.json_body({"created": 1_754_380_800, "data": data,
                                               **fields})
        self.enqueue(response, path=IMAGES_PATH)
        return response

    def serve_file(self, name: str, data: bytes, content_type: str = "image/png") -> str:
        """Serve ``data`` at ``/files/NAME`` (as many times as asked); its URL."""
        response = ScriptedResponse(headers={"Content-Type": content_type}, chunks=[data])
        with self._lock:
            self.files[FILES_PATH + name] = response
        return f"{self.url}{FILES_PATH}{name}"

    @property
    def image_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.split("?")[0] == IMAGES_PATH]

    def pending(self, path: str = CHAT_PATH) -> int:
        with self._lock:
            return len(self._queues.get(path, ()))

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._queues.clear()

    # -- inspection

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.split("?")[0] == CHAT_PATH]

    @property
    def last_chat_body(self) -> Any:
        requests = self.chat_requests
        assert requests, "no chat request received"
        return requests[-1].json

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Block until ``count`` requests arrived (for tests driving another thread)."""
        with self._request_seen:
            ok = self._request_seen.wait_for(lambda: len(self.requests) >= count, timeout)
            assert ok, f"expected {count} requests, got {len(self.requests)}"
            return list(self.requests)

    # -- called from server threads

    def _record(self, request: RecordedRequest) -> None:
        with self._request_seen:
            self.requests.append(request)
            self._request_seen.notify_all()

    def _response_for(self, request: RecordedRequest) -> ScriptedResponse:
        path = request.path.split("?")[0]
        with self._lock:
            queue = self._queues.get(path)
            if queue:
                response = queue.popleft()
                self._sent.append(response)
                return response
        if path in self.files:
            return self.files[path]
        if path == MODELS_PATH and request.method == "GET":
            data = [
                m if isinstance(m, dict) else {"id": m, "object": "model", "owned_by": "fake"}
                for m in self.models
            ]
            return ScriptedResponse.json_body({"object": "list", "data": data})
        if path == CHAT_PATH:
            message = f"FakeOpenAIServer: no scripted response left for {request.method} {path}"
            return ScriptedResponse.error(
                500, message, type="fake_server_error", headers={"Retry-After": "0"}
            )
        return ScriptedResponse.error(404, f"FakeOpenAIServer: no route for {path}")
