"""A loopback fake of Ollama's native API, for provider, UI and CLI tests.

Built on :class:`tests.support.openai_server.FakeOpenAIServer` (same threads,
scripting, recording, cut and hold): only the routes and defaults differ::

    with FakeOllamaServer(models=["llama3.2:latest"]) as server:
        server.enqueue_ndjson(lines, chunk_size=7)
        provider = OllamaProvider(server.base_url)          # http://127.0.0.1:PORT
        ...
        assert server.last_chat_body["model"] == "llama3.2:latest"

* ``POST /api/chat`` answers from a FIFO queue (``enqueue_chat`` / ``enqueue_ndjson``);
  an empty queue answers 500 ``{"error": ...}`` with ``Retry-After: 0``.
* ``GET /api/tags`` lists :attr:`FakeOllamaServer.models` (names or full entries).
* ``POST /api/show`` answers :attr:`FakeOllamaServer.show` ``[model]``, or 404
  ``{"error": "model 'x' not found"}`` as Ollama does.
* Anything queued with ``enqueue(..., path=...)`` wins over these defaults.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from tests.support.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    ScriptedResponse,
    split_bytes,
    unused_port,
)

__all__ = [
    "CHAT_PATH",
    "SHOW_PATH",
    "TAGS_PATH",
    "FakeOllamaServer",
    "chat_line",
    "done_line",
    "ndjson_bytes",
    "ndjson_response",
    "ollama_error",
    "tag_entry",
    "unused_port",
]

CHAT_PATH = "/api/chat"
TAGS_PATH = "/api/tags"
SHOW_PATH = "/api/show"
NDJSON_HEADERS = {"Content-Type": "application/x-ndjson"}
CREATED_AT = "2025-07-07T20:22:19.184789Z"


def chat_line(
    content: str = "",
    *,
    thinking: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    model: str = "llama3.2",
) -> dict[str, Any]:
    """One streamed ``/api/chat`` object with ``done: false``."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if thinking is not None:
        message["thinking"] = thinking
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return {"model": model, "created_at": CREATED_AT, "message": message, "done": False}


def done_line(
    done_reason: str | None = "stop",
    *,
    prompt_eval_count: int | None = 26,
    eval_count: int | None = 12,
    model: str = "llama3.2",
) -> dict[str, Any]:
    """The final object: ``done: true`` with a reason and metrics (None leaves one out)."""
    line: dict[str, Any] = {
        "model": model,
        "created_at": CREATED_AT,
        "message": {"role": "assistant", "content": ""},
        "done": True,
    }
    if done_reason is not None:
        line["done_reason"] = done_reason
    line.update(total_duration=182242375, load_duration=41295167)
    if prompt_eval_count is not None:
        line.update(prompt_eval_count=prompt_eval_count, prompt_eval_duration=24573166)
    if eval_count is not None:
        line.update(eval_count=eval_count, eval_duration=115959084)
    return line


def ndjson_bytes(lines: Iterable[dict[str, Any] | bytes]) -> bytes:
    """Objects as Ollama writes them: compact JSON, raw UTF-8, one per line."""
    return b"".join(
        line if isinstance(line, bytes)
        else json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        for line in lines
    )  # fmt: skip


def ndjson_response(
    body: bytes | Sequence[dict[str, Any] | bytes], chunk_size: int | None = None, **kwargs: Any
) -> ScriptedResponse:
    """A 200 NDJSON answer: one chunk per line, or ``chunk_size``-byte chunks of the body."""
    if isinstance(body, bytes):
        chunks = split_bytes(body, chunk_size) if chunk_size else [body]
    elif chunk_size:
        chunks = split_bytes(ndjson_bytes(body), chunk_size)
    else:
        chunks = [ndjson_bytes([line]) for line in body]
    return ScriptedResponse(headers=dict(NDJSON_HEADERS), chunks=chunks, **kwargs)


def ollama_error(
    status: int, message: str, headers: dict[str, str] | None = None
) -> ScriptedResponse:
    """An Ollama error: ``{"error": "message"}`` as JSON."""
    return ScriptedResponse.json_body({"error": message}, status, headers)


def tag_entry(name: str, family: str = "llama", parameter_size: str = "3.2B") -> dict[str, Any]:
    """One ``/api/tags`` model entry, shaped like docs/api.md's example."""
    return {
        "name": name,
        "model": name,
        "modified_at": "2025-05-04T17:37:44.706015396-07:00",
        "size": 2019393189,
        "digest": "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
        "details": {
            "parent_model": "",
            "format": "gguf",
            "family": family,
            "families": [family],
            "parameter_size": parameter_size,
            "quantization_level": "Q4_K_M",
        },
    }


class FakeOllamaServer(FakeOpenAIServer):
    """Loopback Ollama (see module docs); ``base_url`` has no path, like Ollama's."""

    def __init__(
        self,
        *,
        models: Iterable[str | dict[str, Any]] = ("llama3.2:latest",),
        show: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(models=models)
        self.show: dict[str, dict[str, Any]] = dict(show or {})

    @property
    def base_url(self) -> str:
        return self.url

    def enqueue_chat(self, *responses: ScriptedResponse) -> None:
        self.enqueue(*responses, path=CHAT_PATH)

    def enqueue_ndjson(
        self, body: bytes | Sequence[dict[str, Any] | bytes], chunk_size: int | None = None,
        **kwargs: Any,
    ) -> ScriptedResponse:  # fmt: skip
        response = ndjson_response(body, chunk_size, **kwargs)
        self.enqueue_chat(response)
        return response

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.split("?")[0] == CHAT_PATH]

    def _response_for(self, request: RecordedRequest) -> ScriptedResponse:
        path = request.path.split("?")[0]
        with self._lock:
            queue = self._queues.get(path)
            if queue:
                response = queue.popleft()
                self._sent.append(response)
                return response
        if path == TAGS_PATH and request.method == "GET":
            entries = [tag_entry(m) if isinstance(m, str) else m for m in self.models]
            return ScriptedResponse.json_body({"models": entries})
        if path == SHOW_PATH and request.method == "POST":
            model = (request.json or {}).get("model", "")
            if model in self.show:
                return ScriptedResponse.json_body(self.show[model])
            return ollama_error(404, f"model '{model}' not found")
        if path == CHAT_PATH:
            message = "FakeOllamaServer: no scripted response left for POST /api/chat"
            return ollama_error(500, message, headers={"Retry-After": "0"})
        return ScriptedResponse.text(404, "404 page not found", "text/plain")
