"""A loopback embeddings server speaking the three embedding APIs: OpenAI-compatible
``/v1/embeddings``, Ollama ``/api/embed`` and Gemini ``/v1beta/models/M:batchEmbedContents``.
Bag-of-words vectors (each word hashed to one of 64 dimensions), so texts sharing
words are near. ``failures``: (status, body) answers given first, one per request."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support import served

DIMENSIONS = 64


def bag_of_words(text: str) -> list[float]:
    vector = [0.0] * DIMENSIONS
    for word in re.findall(r"\w+", text.lower()):
        vector[hashlib.md5(word.encode()).digest()[0] % DIMENSIONS] += 1.0
    return vector


class _Handler(BaseHTTPRequestHandler):
    server: EmbeddingServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.server.requests.append(body)
        self.server.paths.append(self.path)
        self.server.headers.append({k.lower(): v for k, v in self.headers.items()})
        status, reply = 200, self._answer(body)
        if self.server.failures:
            status, text = self.server.failures.pop(0)
            reply = text.encode()
        self._send(status, reply)

    def _answer(self, body: dict[str, Any]) -> bytes:
        if self.path == "/api/embed":  # Ollama
            return json.dumps({"model": body["model"], "embeddings": [
                bag_of_words(text) for text in body["input"]]}).encode()
        if self.path.endswith(":batchEmbedContents"):  # Gemini
            return json.dumps({"embeddings": [
                {"values": bag_of_words(r["content"]["parts"][0]["text"])}
                for r in body["requests"]]}).encode()
        data = [{"object": "embedding", "index": i, "embedding": bag_of_words(text)}
                for i, text in enumerate(body["input"])]
        return json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()

    def _send(self, status: int, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


class EmbeddingServer(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.failures: list[tuple[int, str]] = []
        self._thread: threading.Thread | None = None

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    @property
    def base_url(self) -> str:
        return f"{self.root}/v1"

    def __enter__(self) -> EmbeddingServer:
        self._thread = served.serve(self)
        return self

    def __exit__(self, *exc: object) -> None:
        served.stop(self, self._thread)
