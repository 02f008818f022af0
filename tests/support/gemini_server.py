"""A loopback fake of the Gemini API (Generative Language API), for provider tests.

It is :class:`~tests.support.openai_server.FakeOpenAIServer` with Gemini routes::

    with FakeGeminiServer() as server:
        server.enqueue_stream(ScriptedResponse(chunks=gemini_sse([...])))
        provider = GeminiProvider(server.base_url, "AIza...")     # base_url ends in /v1beta
        ...
        assert server.stream_requests[0].json["contents"] == [...]

* ``POST /v1beta/models/{model}:streamGenerateContent`` answers from the model's FIFO
  queue (:meth:`FakeGeminiServer.enqueue_stream`); an empty queue answers 500 with a
  Google-style JSON error (and ``Retry-After: 0``).
* ``GET /v1beta/models`` lists :attr:`FakeGeminiServer.gemini_models` in pages of
  ``pageSize`` (``nextPageToken`` / ``pageToken``) unless a response was queued for it.
* The builders below write Google's SSE framing: ``data: {json}`` and CRLF CRLF.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.openai_server import FakeOpenAIServer, RecordedRequest, ScriptedResponse

__all__ = [
    "GEMINI_MODELS_PATH",
    "FakeGeminiServer",
    "gemini_chunk",
    "gemini_error",
    "gemini_image_stream",
    "gemini_model",
    "gemini_sse",
    "gemini_text_stream",
    "stream_path",
]

GEMINI_MODELS_PATH = "/v1beta/models"
MODEL_VERSION = "gemini-test"
RESPONSE_ID = "resp-test-0001"


def stream_path(model: str = "gemini-test") -> str:
    return f"{GEMINI_MODELS_PATH}/{model}:streamGenerateContent"


def gemini_error(
    status: int, message: str = "error", google_status: str = "INVALID_ARGUMENT", **kwargs: Any
) -> ScriptedResponse:
    """``{"error": {"code", "message", "status"}}``, as Google's APIs answer."""
    body = {"error": {"code": status, "message": message, "status": google_status}}
    return ScriptedResponse.json_body(body, status, kwargs.get("headers"))


def gemini_model(
    model_id: str,
    *,
    methods: Sequence[str] = ("generateContent", "countTokens"),
    input_limit: int = 1_048_576,
    output_limit: int = 65_536,
    thinking: bool | None = True,
    display: str | None = None,
) -> dict[str, Any]:
    """One entry of ``models.list`` (https://ai.google.dev/api/models#Model)."""
    model: dict[str, Any] = {
        "name": f"models/{model_id}",
        "version": "001",
        "displayName": display or model_id.replace("-", " ").title(),
        "description": f"{model_id} for tests",
        "inputTokenLimit": input_limit,
        "outputTokenLimit": output_limit,
        "supportedGenerationMethods": list(methods),
        "temperature": 1,
        "topP": 0.95,
        "topK": 64,
        "maxTemperature": 2,
    }
    if thinking is not None:
        model["thinking"] = thinking
    return model


def gemini_chunk(
    parts: list[dict[str, Any]] | None = None,
    finish_reason: str | None = None,
    *,
    usage: tuple[int, int] | dict[str, Any] | None = None,
    **candidate: Any,
) -> dict[str, Any]:
    """A ``GenerateContentResponse`` with one candidate (``usage=(prompt, candidates)``)."""
    cand: dict[str, Any] = {}
    if parts is not None:
        cand["content"] = {"parts": parts, "role": "model"}
    if finish_reason:
        cand["finishReason"] = finish_reason
    cand.update(candidate)
    cand["index"] = 0
    chunk: dict[str, Any] = {"candidates": [cand]}
    if isinstance(usage, tuple):
        prompt, output = usage
        usage = {"promptTokenCount": prompt, "candidatesTokenCount": output,
                 "totalTokenCount": prompt + output}  # fmt: skip
    if usage is not None:
        chunk["usageMetadata"] = usage
    chunk["modelVersion"] = MODEL_VERSION
    chunk["responseId"] = RESPONSE_ID
    return chunk


def gemini_sse(chunks: Iterable[dict[str, Any] | str]) -> list[bytes]:
    """One ``data: {json}\\r\\n\\r\\n`` event per chunk (Gemini sends no ``[DONE]``)."""
    events = []
    for chunk in chunks:
        text = chunk if isinstance(chunk, str) else json.dumps(chunk, ensure_ascii=False)
        events.append(f"data: {text}\r\n\r\n".encode())
    return events


def gemini_text_stream(
    text: str, chunk_size: int = 4, *, usage: tuple[int, int] = (5, 3), finish: str = "STOP"
) -> list[bytes]:
    """A streamed text answer: ``chunk_size``-character text parts, the last chunk with
    ``finishReason`` and usage."""
    pieces = [text[i : i + chunk_size] for i in range(0, len(text), max(1, chunk_size))] or [""]
    chunks = [gemini_chunk([{"text": piece}]) for piece in pieces[:-1]]
    chunks.append(gemini_chunk([{"text": pieces[-1]}], finish, usage=usage))
    return gemini_sse(chunks)


def gemini_image_stream(text: str, images: Sequence[bytes], *,
                        mime_type: str = "image/png") -> list[bytes]:
    """An image model's answer: a text part, then one ``inlineData`` part per image
    (base64), the last chunk with ``finishReason`` and usage."""
    import base64

    chunks = [gemini_chunk([{"text": text}])]
    parts = [{"inlineData": {"mimeType": mime_type, "data": base64.b64encode(i).decode()}}
             for i in images]
    chunks.append(gemini_chunk(parts, "STOP", usage=(5, 1290)))
    return gemini_sse(chunks)


class FakeGeminiServer(FakeOpenAIServer):
    """Loopback Gemini API server in a background thread (see module docs)."""

    def __init__(self, *, models: Iterable[dict[str, Any]] | None = None) -> None:
        super().__init__(models=())
        self.gemini_models: list[dict[str, Any]] = (
            list(models) if models is not None else [gemini_model("gemini-test")]
        )
        self.max_page_size = 50  # pages are at most this long, whatever pageSize asks

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1beta``: what a Gemini provider is configured with."""
        return f"{self.url}/v1beta"

    def enqueue_stream(self, *responses: ScriptedResponse, model: str = "gemini-test") -> None:
        self.enqueue(*responses, path=stream_path(model))

    def enqueue_text(self, text: str, chunk_size: int = 4, **kwargs: Any) -> ScriptedResponse:
        response = ScriptedResponse(chunks=gemini_text_stream(text, chunk_size, **kwargs))
        self.enqueue_stream(response)
        return response

    def enqueue_error(self, status: int, message: str = "error", **kwargs: Any) -> ScriptedResponse:
        response = gemini_error(status, message, **kwargs)
        self.enqueue_stream(response)
        return response

    @property
    def stream_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if ":streamGenerateContent" in r.path]

    @property
    def last_body(self) -> Any:
        requests = self.stream_requests
        assert requests, "no streamGenerateContent request received"
        return requests[-1].json

    def _response_for(self, request: RecordedRequest) -> ScriptedResponse:
        url = urlsplit(request.path)
        with self._lock:
            queue = self._queues.get(url.path)
            if queue:
                response = queue.popleft()
                self._sent.append(response)
                return response
        if url.path == GEMINI_MODELS_PATH and request.method == "GET":
            return self._models_page(parse_qs(url.query))
        if url.path.endswith(":streamGenerateContent"):
            message = f"FakeGeminiServer: no scripted response left for POST {url.path}"
            return gemini_error(500, message, "INTERNAL", headers={"Retry-After": "0"})
        return gemini_error(404, f"FakeGeminiServer: no route for {url.path}", "NOT_FOUND")

    def _models_page(self, query: dict[str, list[str]]) -> ScriptedResponse:
        size = min(int(query.get("pageSize", ["50"])[0]), self.max_page_size)
        start = int(query.get("pageToken", ["0"])[0])
        body: dict[str, Any] = {"models": self.gemini_models[start : start + size]}
        if start + size < len(self.gemini_models):
            body["nextPageToken"] = str(start + size)
        return ScriptedResponse.json_body(body)
