"""Google Gemini through the Generative Language API (``generativelanguage.googleapis.com``).

``POST {base_url}/models/{model}:streamGenerateContent?alt=sse`` streams one
``GenerateContentResponse`` per SSE event; ``GET {base_url}/models`` lists models
(paged with ``pageToken``). The API key travels in the ``x-goog-api-key`` header,
never in the URL, so no logged URL can leak it. Request bodies are built in
:mod:`desktop.providers.gemini_format`, the stream parsed in
:mod:`desktop.providers.gemini_stream`.

As in :mod:`desktop.providers.openai_chat`, ``stream()`` never raises for provider
failures: every failure (HTTP status, network, timeout, blocked prompt or answer,
cut connection) becomes exactly one :class:`ErrorEvent` as the last event; a
successful stream ends with exactly one :class:`EndEvent`. Only
``asyncio.CancelledError`` propagates. 429 and 5xx answers are retried before the
stream starts, never after.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import Any
from urllib.parse import quote

import httpx

from desktop.core.errors import ProviderError
from desktop.core.events import ErrorEvent, StreamEvent
from desktop.core.provider import ChatRequest, ModelCapabilities, ModelInfo
from desktop.providers.gemini_format import build_gemini_body
from desktop.providers.gemini_stream import GeminiStreamParser
from desktop.providers.http_base import ERROR_BODY_LIMIT, HttpProvider
from desktop.providers.http_errors import (
    describe_error_body,
    describe_status,
)
from desktop.providers.http_stream import drain
from desktop.providers.retry import (
    USER_AGENT,
    RetryPolicy,
    is_retryable_status,
    send_with_retry,
)
from desktop.providers.sse import SSEDecoder

__all__ = ["DEFAULT_URL", "GeminiProvider", "model_path", "parse_models_page"]

log = logging.getLogger(__name__)

DEFAULT_URL = "https://generativelanguage.googleapis.com/v1beta"
MODELS_PAGE_SIZE = 1000
MAX_MODEL_PAGES = 20


def model_path(model: str) -> str:
    """``gemini-2.5-flash`` -> ``models/gemini-2.5-flash``; ``models/x`` and
    ``tunedModels/x`` are kept as they are. Unsafe characters are escaped."""
    model = model.strip().strip("/")
    if "/" not in model:
        model = f"models/{model}"
    return quote(model, safe="/-._~")


class GeminiProvider(HttpProvider):
    """A :class:`desktop.core.provider.Provider` for the Gemini API."""

    supports_tools: bool = True
    supports_reasoning: bool = True

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        api_key: str | None = None,
        *,
        name: str = "Google Gemini",
        headers: Mapping[str, str] | None = None,
        timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        client: httpx.AsyncClient | None = None,
        on_retry: Callable[[int, float, str], None] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        """``options``: ``reasoning``/``reasoning_budget``/``reasoning_effort`` defaults,
        ``thinking_level``, ``include_thoughts``, ``google_search`` (see
        :func:`~desktop.providers.gemini_format.build_gemini_body`).

        ``on_retry(attempt, delay_s, reason)`` is called before each retry wait;
        ``client`` is not closed by :meth:`aclose` when injected."""
        super().__init__(base_url, api_key, name=name, headers=headers, timeout=timeout,
                         retry=retry, client=client, on_retry=on_retry, options=options)

    # -- public API

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        """Yield normalized events; the last one is an EndEvent or an ErrorEvent."""
        opened = await self._open(request)
        if isinstance(opened, ErrorEvent):
            yield opened
            return
        response = opened
        parser = GeminiStreamParser(self.name, secrets=self._secrets)
        events: list[StreamEvent]
        try:
            other = await self._not_an_event_stream(response, parser)
            if other is not None:
                events = other
            else:
                decoder = SSEDecoder()
                chunks = response.aiter_bytes()
                try:
                    async for chunk in chunks:
                        for sse in decoder.feed(chunk):
                            for event in parser.feed_sse(sse):
                                yield event
                            if parser.closed:
                                return
                    events = _end_of_stream(decoder, parser)
                except httpx.HTTPError as exc:  # mid-stream: never retried
                    events = self._interrupted(exc, parser)
                finally:
                    await drain(chunks, 0.0)
        except Exception as exc:  # a bug or an unexpected failure: report, don't crash the UI
            log.exception("%s: stream failed", self.name)
            events = parser.error(self._redact(f"unexpected error: {exc}"), "internal_error")
        finally:
            await response.aclose()
        for event in events:
            yield event

    async def list_models(self) -> list[ModelInfo]:
        """Models that can ``generateContent``, sorted by id; raises ProviderError."""
        models: dict[str, ModelInfo] = {}
        token: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_MODEL_PAGES):
            params = {"pageSize": str(MODELS_PAGE_SIZE)}
            if token:
                params["pageToken"] = token
            page, token = parse_models_page(await self._get_json("/models", params), self.name)
            models.update((m.id, m) for m in page)
            if not token or token in seen:
                break
            seen.add(token)
        return [models[key] for key in sorted(models)]

    # -- internals

    async def _open(self, request: ChatRequest) -> httpx.Response | ErrorEvent:
        """Send the request (with retries); the response or a terminal ErrorEvent."""
        try:
            body = build_gemini_body(request, self.options)
            path = f"/{model_path(request.model)}:streamGenerateContent"
            http_request = self._build_request("POST", path, body, {"alt": "sse"})
            return await send_with_retry(
                self._get_client(), http_request, self.retry, on_retry=self._on_retry
            )
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            message, code = self._describe(exc, streaming=False)
            text = str(ProviderError(message, provider=self.name))
            return ErrorEvent(text, code=code, provider=self.name)
        except Exception as exc:
            log.exception("%s: request failed", self.name)
            text = str(ProviderError(self._redact(f"unexpected error: {exc}"), provider=self.name))
            return ErrorEvent(text, code="internal_error", provider=self.name)

    async def _get_json(self, path: str, params: dict[str, str]) -> Any:
        try:
            request = self._build_request("GET", path, None, params)
            response = await send_with_retry(
                self._get_client(), request, self.retry, stream=False, on_retry=self._on_retry
            )
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            message, code = self._describe(exc, streaming=False)
            raise ProviderError(message, provider=self.name, code=code, retryable=True) from None
        if not 200 <= response.status_code < 300:
            status_message, status_code = self._status_message(response, response.content)
            raise ProviderError(
                status_message,
                provider=self.name,
                status=response.status_code,
                code=status_code,
                retryable=is_retryable_status(response.status_code),
            )
        try:
            return response.json()
        except ValueError:
            raise ProviderError(
                f"{self.base_url}{path} did not return JSON; check the base URL",
                provider=self.name,
            ) from None

    def _build_request(
        self, method: str, path: str, body: dict[str, Any] | None, params: dict[str, str]
    ) -> httpx.Request:
        base = httpx.URL(self.base_url)  # keeps a query string the user put there
        url = base.copy_with(path=base.path.rstrip("/") + path).copy_merge_params(params)
        headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
        if body is not None:
            headers["Accept"] = "text/event-stream"
            headers["Content-Type"] = "application/json"
        if self._api_key:
            headers["x-goog-api-key"] = self._api_key
        headers.update(self._headers)
        timeout = self._timeout()
        content = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        return self._get_client().build_request(
            method, url, content=content, headers=headers, timeout=timeout
        )

    def _status_message(self, response: httpx.Response, body: bytes) -> tuple[str, str | None]:
        """The message of ``{"error": {"code", "message", "status"}}`` (or an HTML page);
        the code is Google's ``status`` (``INVALID_ARGUMENT``, ``RESOURCE_EXHAUSTED``...)."""
        status = response.status_code
        if 300 <= status < 400:
            location = response.headers.get("location", "?")
            return self._redact(f"unexpected redirect to {location}; check the base URL"), None
        content_type = response.headers.get("content-type", "")
        message, code = describe_status(status, body, content_type, secrets=self._secrets)
        return message, _google_status(body) or code

    async def _status_error(self, response: httpx.Response) -> ErrorEvent:
        message, code = self._status_message(response, await self._read_body(response))
        status = response.status_code
        text = str(ProviderError(message, provider=self.name, status=status))
        return ErrorEvent(text, code=code, status=status, provider=self.name)

    async def _not_an_event_stream(
        self, response: httpx.Response, parser: GeminiStreamParser
    ) -> list[StreamEvent] | None:
        """The events of an error status, a JSON or an HTML body; None for a stream."""
        content_type = response.headers.get("content-type", "")
        if not 200 <= response.status_code < 300:
            return [await self._status_error(response)]
        if content_type.startswith("application/json"):
            return await self._read_json(response, parser)
        if "html" in content_type:
            return await self._html_instead_of_stream(response, parser)
        return None

    def _interrupted(self, exc: httpx.HTTPError, parser: GeminiStreamParser) -> list[StreamEvent]:
        if parser.finish_reason is not None:  # the answer was complete: only the close failed
            return parser.finish()
        return parser.interrupted(*self._describe(exc, streaming=True))

    async def _html_instead_of_stream(
        self, response: httpx.Response, parser: GeminiStreamParser
    ) -> list[StreamEvent]:
        """A 200 HTML page (a captive portal, a proxy's sign-in page, ...)."""
        snippet, _ = describe_error_body(
            await self._read_body(response), "text/html", secrets=self._secrets
        )
        message = f"expected an event stream but got a web page ({snippet}); check the base URL"
        return parser.error(message, "unexpected_content")

    async def _read_json(
        self, response: httpx.Response, parser: GeminiStreamParser
    ) -> list[StreamEvent]:
        """A JSON body instead of SSE: a proxy that dropped ``alt=sse`` sends the whole
        stream as one array (or one response)."""
        try:
            payload = json.loads(await response.aread())
        except httpx.HTTPError as exc:
            return parser.error(*self._describe(exc, streaming=True))
        except ValueError:
            return parser.error("the server sent invalid JSON", "malformed_stream")
        return parser.feed_chunk(payload) + parser.finish()


def _end_of_stream(decoder: SSEDecoder, parser: GeminiStreamParser) -> list[StreamEvent]:
    """Events of a final unterminated event (lenient), then the terminal events."""
    events: list[StreamEvent] = []
    for sse in decoder.flush(dispatch_incomplete=True):
        try:
            json.loads(sse.data)
        except ValueError:
            continue  # a line cut mid-way: the stream is incomplete, finish() says so
        events += parser.feed_sse(sse)
    return events + parser.finish()


def _google_status(body: bytes) -> str | None:
    """``error.status`` of a Google error body (also in the ``[{"error": ...}]`` form)."""
    try:
        data = json.loads(body[:ERROR_BODY_LIMIT])
    except ValueError:
        return None
    if isinstance(data, list) and data:
        data = data[0]
    error = data.get("error") if isinstance(data, dict) else None
    status = error.get("status") if isinstance(error, dict) else None
    return status if isinstance(status, str) and status else None


def _positive(value: Any) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value > 0
    return value if ok else None


def parse_models_page(payload: Any, provider: str) -> tuple[list[ModelInfo], str | None]:
    """``(models, next_page_token)`` of one ``models.list`` page.

    Only models whose ``supportedGenerationMethods`` include ``generateContent``;
    ids lose their ``models/`` prefix; token limits and ``thinking`` fill the
    capabilities (tools and vision are not reported, so they stay unknown).
    """
    if not isinstance(payload, dict) or not isinstance(payload.get("models", []), list):
        raise ProviderError("unexpected response from /models (no model list)", provider=provider)
    models: list[ModelInfo] = []
    for item in payload.get("models", []):
        if not isinstance(item, dict):
            continue
        methods = item.get("supportedGenerationMethods")
        name = item.get("name")
        if not isinstance(methods, list) or "generateContent" not in methods:
            continue
        if not isinstance(name, str) or not name:
            continue
        model_id = name.removeprefix("models/")
        display = item.get("displayName")
        context = _positive(item.get("inputTokenLimit"))
        thinking = item.get("thinking")
        capabilities = ModelCapabilities(
            reasoning=thinking if isinstance(thinking, bool) else None,
            max_output_tokens=_positive(item.get("outputTokenLimit")),
            context_window=context,
        )
        models.append(
            ModelInfo(
                id=model_id,
                name=display if isinstance(display, str) and display != model_id else None,
                context_window=context,
                owned_by="google",
                capabilities=capabilities,
            )
        )
    token = payload.get("nextPageToken")
    return models, token if isinstance(token, str) and token else None
