"""A loopback fake of the OpenAI Responses API, plus builders for its event streams.

:class:`FakeResponsesServer` is the Chat Completions fake
(:class:`tests.support.openai_server.FakeOpenAIServer`) answering
``POST /v1/responses`` from the same kind of FIFO queue, with the server-side state
that matters to clients checked the way OpenAI checks it:

* every streamed answer to a request without ``store: false`` is *stored*: its
  ``response.created`` id is remembered with the ``call_id`` of its function calls;
* ``previous_response_id`` must name a stored response, otherwise the answer is
  OpenAI's 400 ``previous_response_not_found`` (the queue is left untouched);
  :meth:`FakeResponsesServer.forget` simulates expiry;
* each ``function_call_output`` must answer a ``function_call`` of the input or of
  the chained responses, otherwise the answer is a 400 as OpenAI gives.

Builders return ``list[bytes]``, one SSE event per element (``event: <type>`` then
``data: <json>``), in the published event format.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from tests.support.openai_server import FakeOpenAIServer, RecordedRequest, ScriptedResponse

__all__ = [
    "RESPONSES_PATH",
    "FakeResponsesServer",
    "function_call_response",
    "response_event",
    "text_response",
]

RESPONSES_PATH = "/v1/responses"
DEFAULT_MODEL = "gpt-test"


def response_event(type_: str, sequence: int, **fields: Any) -> bytes:
    """One SSE event: ``event: <type>`` and ``data: {"type", "sequence_number", ...}``."""
    data = {"type": type_, "sequence_number": sequence, **fields}
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {type_}\ndata: {text}\n\n".encode()


def _response(response_id: str, model: str, status: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": response_id,
        "object": "response",
        "created_at": 1_754_380_800,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "model": model,
        "output": [],
        "usage": None,
        **fields,
    }


def _usage(usage: tuple[int, int] | None) -> dict[str, Any] | None:
    if usage is None:
        return None
    return {
        "input_tokens": usage[0],
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": usage[1],
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": sum(usage),
    }


class _Events:
    """Builds one response's events with consecutive sequence numbers."""

    def __init__(self, response_id: str, model: str) -> None:
        self.id, self.model = response_id, model
        self.chunks: list[bytes] = []
        self.output: list[dict[str, Any]] = []

    def add(self, type_: str, **fields: Any) -> None:
        self.chunks.append(response_event(type_, len(self.chunks), **fields))

    def start(self) -> _Events:
        for kind in ("response.created", "response.in_progress"):
            self.add(kind, response=_response(self.id, self.model, "in_progress"))
        return self

    def item(self, item: dict[str, Any], deltas: list[tuple[str, dict[str, Any]]]) -> None:
        index = len(self.output)
        self.add(
            "response.output_item.added", output_index=index, item={**item, "status": "in_progress"}
        )
        for kind, fields in deltas:
            self.add(kind, item_id=item["id"], output_index=index, **fields)
        done = {**item, "status": "completed"} if item["type"] != "reasoning" else item
        self.add("response.output_item.done", output_index=index, item=done)
        self.output.append(done)

    def finish(self, usage: tuple[int, int] | None) -> list[bytes]:
        response = _response(self.id, self.model, "completed", usage=_usage(usage))
        self.add("response.completed", response={**response, "output": self.output})
        return self.chunks


def _pieces(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


def text_response(
    text: str,
    chunk_size: int = 3,
    *,
    response_id: str = "resp_text",
    usage: tuple[int, int] | None = (10, 5),
    model: str = DEFAULT_MODEL,
) -> list[bytes]:
    """A streamed text answer: one message item, ``chunk_size``-character deltas."""
    events = _Events(response_id, model).start()
    deltas = [
        ("response.output_text.delta", {"content_index": 0, "delta": piece, "logprobs": []})
        for piece in _pieces(text, chunk_size)
    ]
    deltas.append(("response.output_text.done", {"content_index": 0, "text": text}))
    content = [{"type": "output_text", "annotations": [], "logprobs": [], "text": text}]
    message = {"id": f"msg_{response_id}", "type": "message", "role": "assistant"}
    events.item({**message, "content": content}, deltas)
    return events.finish(usage)


def image_generation_response(
    images: Sequence[bytes], text: str = "", *, response_id: str = "resp_image",
    model: str = DEFAULT_MODEL, status: str = "completed",
) -> list[bytes]:
    """The ``image_generation`` tool's answer: one ``image_generation_call`` item per
    image (``result``: base64 PNG; ``status="failed"`` leaves it out), then ``text``."""
    import base64

    events = _Events(response_id, model).start()
    for n, image in enumerate(images):
        item: dict[str, Any] = {"id": f"ig_{n}", "type": "image_generation_call",
                                "output_format": "png", "size": "1024x1024"}
        if status == "failed":
            events.add("response.output_item.added", output_index=len(events.output),
                       item={**item, "status": "in_progress"})
            done = {**item, "status": "failed", "result": None}
            events.add("response.output_item.done", output_index=len(events.output), item=done)
            events.output.append(done)
            continue
        item["result"] = base64.b64encode(image).decode()
        events.item(item, [("response.image_generation_call.generating", {})])
    if text:
        content = [{"type": "output_text", "annotations": [], "logprobs": [], "text": text}]
        events.item({"id": f"msg_{response_id}", "type": "message", "role": "assistant",
                     "content": content},
                    [("response.output_text.delta", {"content_index": 0, "delta": text})])
    return events.finish((10, 1056))


def function_call_response(
    calls: Sequence[tuple[str, str, str]],
    *,
    reasoning: tuple[str, str] | None = None,
    response_id: str = "resp_calls",
    split: int = 5,
    usage: tuple[int, int] | None = (10, 5),
    model: str = DEFAULT_MODEL,
) -> list[bytes]:
    """Function calls ``[(call_id, name, arguments)]``, after an optional reasoning item
    ``(summary, encrypted_content)``; arguments come in ``split``-character deltas."""
    events = _Events(response_id, model).start()
    if reasoning is not None:
        summary, encrypted = reasoning
        deltas = [
            ("response.reasoning_summary_text.delta", {"summary_index": 0, "delta": piece})
            for piece in _pieces(summary, split)
        ]
        item = {
            "id": f"rs_{response_id}",
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": summary}],
            "encrypted_content": encrypted,
        }
        events.item(item, deltas)
    for i, (call_id, name, arguments) in enumerate(calls):
        deltas = [
            ("response.function_call_arguments.delta", {"delta": piece})
            for piece in _pieces(arguments, split)
        ]
        deltas.append(("response.function_call_arguments.done", {"arguments": arguments}))
        item = {
            "id": f"fc_{response_id}_{i}",
            "type": "function_call",
            "call_id": call_id,
            "name": name,
            "arguments": arguments,
        }
        events.item(item, deltas)
    return events.finish(usage)


def _error(message: str, *, code: str | None = None, param: str | None = None) -> ScriptedResponse:
    body = {"error": {"message": message, "type": "invalid_request_error", "param": param,
                      "code": code}}  # fmt: skip
    return ScriptedResponse.json_body(body, 400)


class FakeResponsesServer(FakeOpenAIServer):
    """Loopback Responses API server (see the module docs)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.stored: dict[str, list[str]] = {}  # response id -> its function call_ids
        self.chained_from: dict[str, str] = {}  # response id -> previous_response_id

    def enqueue(self, *responses: ScriptedResponse, path: str = RESPONSES_PATH) -> None:
        super().enqueue(*responses, path=path)

    def enqueue_text(self, text: str, chunk_size: int = 3, **kwargs: Any) -> ScriptedResponse:
        response = ScriptedResponse(chunks=text_response(text, chunk_size, **kwargs))
        self.enqueue(response)
        return response

    def enqueue_calls(
        self, calls: Sequence[tuple[str, str, str]], **kwargs: Any
    ) -> ScriptedResponse:
        response = ScriptedResponse(chunks=function_call_response(calls, **kwargs))
        self.enqueue(response)
        return response

    def forget(self) -> None:
        """Drop every stored response (as after expiry or on another server)."""
        with self._lock:
            self.stored.clear()

    @property
    def responses_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.split("?")[0] == RESPONSES_PATH]

    @property
    def bodies(self) -> list[Any]:
        return [r.json for r in self.responses_requests]

    # -- called from server threads

    def _response_for(self, request: RecordedRequest) -> ScriptedResponse:
        if request.path.split("?")[0] != RESPONSES_PATH or request.method != "POST":
            return super()._response_for(request)
        body = request.json if request.body else {}
        rejected = self._check(body if isinstance(body, dict) else {})
        if rejected is not None:
            return rejected
        with self._lock:
            queue = self._queues.get(RESPONSES_PATH)
            scripted = queue.popleft() if queue else None
            if scripted is not None:
                self._sent.append(scripted)
        if scripted is None:
            message = f"FakeResponsesServer: no scripted response left for POST {RESPONSES_PATH}"
            return ScriptedResponse.error(
                500, message, type="fake_server_error", headers={"Retry-After": "0"}
            )
        self._store(body, scripted)
        return scripted

    def _check(self, body: dict[str, Any]) -> ScriptedResponse | None:
        previous = body.get("previous_response_id")
        known: set[str] = set()
        with self._lock:
            if previous is not None:
                if previous not in self.stored:
                    return _error(f"Previous response with id '{previous}' not found.",
                                  code="previous_response_not_found",
                                  param="previous_response_id")  # fmt: skip
                while previous is not None:
                    known.update(self.stored.get(previous, ()))
                    previous = self.chained_from.get(previous)
        items = body.get("input") if isinstance(body.get("input"), list) else []
        for item in items:
            if isinstance(item, dict) and item.get("type") == "function_call":
                known.add(item.get("call_id", ""))
            elif isinstance(item, dict) and item.get("type") == "function_call_output":
                call_id = item.get("call_id")
                if call_id not in known:
                    return _error(f"No tool call found for function call output with "
                                  f"call_id {call_id}.", param="input")  # fmt: skip
        return None

    def _store(self, body: dict[str, Any], scripted: ScriptedResponse) -> None:
        if body.get("store") is False:
            return
        response_id = None
        calls: list[str] = []
        for event in _events(b"".join(scripted.chunks)):
            if event.get("type") == "response.created":
                response_id = event["response"]["id"]
            elif event.get("type") == "response.output_item.done" and (
                event["item"].get("type") == "function_call"
            ):
                calls.append(event["item"]["call_id"])
        if response_id is None:
            return
        with self._lock:
            self.stored[response_id] = calls
            if isinstance(body.get("previous_response_id"), str):
                self.chained_from[response_id] = body["previous_response_id"]


def _events(blob: bytes) -> Iterator[dict[str, Any]]:
    """The JSON objects of the complete ``data:`` lines of a scripted SSE body."""
    for line in blob.splitlines():
        if line.startswith(b"data:"):
            try:
                data = json.loads(line[5:])
            except ValueError:
                continue
            if isinstance(data, dict):
                yield data
