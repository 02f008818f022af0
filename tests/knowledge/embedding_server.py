"""A loopback OpenAI-compatible ``/v1/embeddings`` server: bag-of-words vectors
(each word hashed to one of 64 dimensions), so texts sharing words are near."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

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
        self.server.headers.append({k.lower(): v for k, v in self.headers.items()})
        data = [{"object": "embedding", "index": i, "embedding": bag_of_words(text)}
                for i, text in enumerate(body["input"])]
        payload = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
        self.send_response(200)
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
        self.headers: list[dict[str, str]] = []
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def __enter__(self) -> EmbeddingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
