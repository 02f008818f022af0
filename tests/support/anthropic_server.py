"""A loopback fake of Anthropic's Messages API, built on the fake OpenAI server.

Typical use (or the ``anthropic_server`` fixture below, imported by a test module)::

    with FakeAnthropicServer() as server:
        server.enqueue_text("Hello world")
        provider = AnthropicProvider(server.url, "sk-ant-test")
        ...
        assert server.last_messages_body["max_tokens"] == 64000

* ``POST /v1/messages`` answers from a FIFO queue of :class:`ScriptedResponse` (the
  same scripting as :class:`FakeOpenAIServer`: raw chunks, ``cut``, ``hold_after``).
  An empty queue answers 500 with an Anthropic error body (and ``Retry-After: 0``).
* ``GET /v1/models`` lists :attr:`FakeAnthropicServer.models` in pages of
  ``page_size`` (``has_more``/``first_id``/``last_id``; ``after_id`` continues),
  unless a response was queued with ``enqueue(..., path=MODELS_PATH)``.
* Streams are built with the helpers below, in the documented event format
  (``event: <type>`` then ``data: {json}``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support.openai_server import (
    FakeOpenAIServer,
    RecordedRequest,
    ScriptedResponse,
    split_bytes,
    unused_port,
)

__all__ = [
    "MESSAGES_PATH",
    "MODELS_PATH",
    "FakeAnthropicServer",
    "ScriptedResponse",
    "anthropic_error",
    "anthropic_event",
    "anthropic_server",
    "message_stream",
    "model_entry",
    "split_bytes",
    "text_message",
    "tool_use_message",
    "unused_port",
]

MESSAGES_PATH = "/v1/messages"
MODELS_PATH = "/v1/models"
DEFAULT_MODEL = "claude-sonnet-4-5-20250929"


def anthropic_event(data: dict[str, Any]) -> bytes:
    """``event: <data.type>`` + ``data: <compact json>`` + blank line."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {data['type']}\ndata: {text}\n\n".encode()


def anthropic_error(
    status: int,
    message: str,
    *,
    type: str = "invalid_request_error",
    headers: dict[str, str] | None = None,
) -> ScriptedResponse:
    """``{"type": "error", "error": {"type", "message"}, "request_id"}`` with ``status``."""
    body = {
        "type": "error",
        "error": {"type": type, "message": message},
        "request_id": "req_011CTestRequest",
    }
    return ScriptedResponse.json_body(body, status, headers)


def _pieces(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


def message_stream(
    blocks: Sequence[tuple[str, Any]],
    *,
    stop_reason: str = "end_turn",
    usage: tuple[int, int] = (10, 5),
    model: str = DEFAULT_MODEL,
    chunk_size: int = 3,
    message_stop: bool = True,
) -> list[bytes]:
    """One event per list item: ``message_start``, then each block, ``message_delta``
    and ``message_stop``. ``blocks`` are ``("text", str)``, ``("thinking", (text,
    signature))`` or ``("tool_use", (id, name, arguments_json))``; text and JSON are
    streamed in ``chunk_size`` pieces."""
    usage_start = {
        "input_tokens": usage[0],
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 1,
    }
    message = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage_start,
    }
    events = [anthropic_event({"type": "message_start", "message": message})]
    for index, (kind, value) in enumerate(blocks):
        if kind == "text":
            start: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in _pieces(value, chunk_size)]
        elif kind == "thinking":
            text, signature = value
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": p} for p in _pieces(text, chunk_size)]
            deltas.append({"type": "signature_delta", "signature": signature})
        else:
            call_id, name, arguments = value
            start = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": ""}]
            deltas += [
                {"type": "input_json_delta", "partial_json": p}
                for p in _pieces(arguments, chunk_size)
            ]
        events.append(
            anthropic_event({"type": "content_block_start", "index": index, "content_block": start})
        )
        events += [
            anthropic_event({"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        ]
        events.append(anthropic_event({"type": "content_block_stop", "index": index}))
    delta = {"stop_reason": stop_reason, "stop_sequence": None}
    events.append(
        anthropic_event(
            {"type": "message_delta", "delta": delta, "usage": {"output_tokens": usage[1]}}
        )
    )
    if message_stop:
        events.append(anthropic_event({"type": "message_stop"}))
    return events


def text_message(text: str, chunk_size: int = 3, **kwargs: Any) -> list[bytes]:
    """A streamed text answer (see :func:`message_stream` for ``kwargs``)."""
    return message_stream([("text", text)], chunk_size=chunk_size, **kwargs)


def tool_use_message(
    calls: Sequence[tuple[str, str]],
    *,
    text: str = "",
    ids: Sequence[str] | None = None,
    **kwargs: Any,
) -> list[bytes]:
    """Streamed ``tool_use`` blocks ``[(name, arguments_json), ...]`` after optional text."""
    blocks: list[tuple[str, Any]] = [("text", text)] if text else []
    for i, (name, arguments) in enumerate(calls):
        call_id = ids[i] if ids else f"toolu_{i:02d}fake"
        blocks.append(("tool_use", (call_id, name, arguments)))
    kwargs.setdefault("stop_reason", "tool_use")
    return message_stream(blocks, **kwargs)


def model_entry(model_id: str, display_name: str | None = None, **extra: Any) -> dict[str, Any]:
    """One ``GET /v1/models`` item."""
    return {
        "type": "model",
        "id": model_id,
        "display_name": display_name or model_id,
        "created_at": "2025-09-29T00:00:00Z",
        **extra,
    }


class FakeAnthropicServer(FakeOpenAIServer):
    """Loopback Anthropic Messages API server in a background thread (see module docs)."""

    def __init__(
        self,
        *,
        models: Iterable[str | dict[str, Any]] = (DEFAULT_MODEL,),
        page_size: int | None = None,
    ) -> None:
        super().__init__(models=models)
        self.page_size = page_size  # None: the client's ``limit`` (default 20)

    def enqueue(self, *responses: ScriptedResponse, path: str = MESSAGES_PATH) -> None:
        super().enqueue(*responses, path=path)

    def enqueue_text(self, text: str, chunk_size: int = 3, **kwargs: Any) -> ScriptedResponse:
        response = ScriptedResponse(chunks=text_message(text, chunk_size, **kwargs))
        self.enqueue(response)
        return response

    def enqueue_tool_calls(
        self, calls: Sequence[tuple[str, str]], split: int = 5, **kwargs: Any
    ) -> ScriptedResponse:
        response = ScriptedResponse(chunks=tool_use_message(calls, chunk_size=split, **kwargs))
        self.enqueue(response)
        return response

    def enqueue_error(self, status: int, message: str = "error", **kwargs: Any) -> ScriptedResponse:
        response = anthropic_error(status, message, **kwargs)
        self.enqueue(response)
        return response

    def pending(self, path: str = MESSAGES_PATH) -> int:
        return super().pending(path)

    @property
    def messages_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.split("?")[0] == MESSAGES_PATH]

    @property
    def last_messages_body(self) -> Any:
        requests = self.messages_requests
        assert requests, "no messages request received"
        return requests[-1].json

    def _response_for(self, request: RecordedRequest) -> ScriptedResponse:
        parts = urlsplit(request.path)
        with self._lock:
            queue = self._queues.get(parts.path)
            if queue:
                response = queue.popleft()
                self._sent.append(response)
                return response
        if parts.path == MODELS_PATH and request.method == "GET":
            return self._models_page(parse_qs(parts.query))
        if parts.path == MESSAGES_PATH:
            message = f"FakeAnthropicServer: no scripted response left for {request.method}"
            return anthropic_error(500, message, type="api_error", headers={"Retry-After": "0"})
        return anthropic_error(
            404, f"FakeAnthropicServer: no route for {parts.path}", type="not_found_error"
        )

    def _models_page(self, query: dict[str, list[str]]) -> ScriptedResponse:
        items = [m if isinstance(m, dict) else model_entry(m) for m in self.models]
        size = self.page_size or int(query.get("limit", ["20"])[0])
        after = query.get("after_id", [None])[0]
        start = next((i + 1 for i, m in enumerate(items) if m["id"] == after), 0)
        page = items[start : start + size]
        body = {
            "data": page,
            "has_more": start + size < len(items),
            "first_id": page[0]["id"] if page else None,
            "last_id": page[-1]["id"] if page else None,
        }
        return ScriptedResponse.json_body(body)


@pytest.fixture
def anthropic_server() -> Iterator[FakeAnthropicServer]:
    """A started :class:`FakeAnthropicServer`, stopped after the test."""
    with FakeAnthropicServer() as server:
        yield server
