"""The OpenAI-compatible Chat Completions provider (OpenAI, OpenRouter, LM Studio, ...).

``stream()`` never raises for provider failures: every failure (HTTP status,
network, timeout, in-stream error, cut connection) becomes exactly one
:class:`ErrorEvent` as the last event. A successful stream ends with exactly one
:class:`EndEvent`. Only ``asyncio.CancelledError`` propagates.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import Any

import httpx

from desktop.core.errors import ProviderError
from desktop.core.events import ErrorEvent, StreamEvent
from desktop.core.provider import ChatRequest, ModelInfo
from desktop.providers.http_base import HttpProvider
from desktop.providers.http_errors import (
    describe_error_body,
)
from desktop.providers.http_stream import DRAIN_TIMEOUT_S, drain, is_json
from desktop.providers.openai_format import ChatStreamParser, build_chat_body
from desktop.providers.retry import (
    USER_AGENT,
    RetryPolicy,
    is_retryable_status,
    send_with_retry,
)
from desktop.providers.sse import SSEDecoder

__all__ = ["OpenAIChatProvider", "parse_models"]

log = logging.getLogger(__name__)



class OpenAIChatProvider(HttpProvider):
    """A :class:`desktop.core.provider.Provider` for ``POST {base_url}/chat/completions``."""

    supports_tools: bool = True
    supports_reasoning: bool = True

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        name: str = "OpenAI-compatible",
        headers: Mapping[str, str] | None = None,
        timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        client: httpx.AsyncClient | None = None,
        on_retry: Callable[[int, float, str], None] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        """``options`` are per-provider switches (none used by Chat Completions yet).

        ``on_retry(attempt, delay_s, reason)`` is called before each retry wait
        (e.g. to show "rate limited, retrying in 8 s"); ``client`` is not closed by
        :meth:`aclose` when injected."""
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
        parser = ChatStreamParser(self.name, secrets=self._secrets)
        events: list[StreamEvent]
        try:
            if not 200 <= response.status_code < 300:
                events = [await self._status_error(response)]
            elif response.headers.get("content-type", "").startswith("application/json"):
                events = await self._read_completion(response, parser)
            elif "html" in response.headers.get("content-type", ""):
                events = await self._html_instead_of_stream(response, parser)
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
                    events = self._end_of_stream(decoder, parser)
                except httpx.HTTPError as exc:  # mid-stream: never retried
                    events = parser.error(*self._describe(exc, streaming=True))
                finally:
                    await drain(chunks, DRAIN_TIMEOUT_S if parser.done else 0.0)
        except Exception as exc:  # a bug or an unexpected failure: report, don't crash the UI
            log.exception("%s: stream failed", self.name)
            events = parser.error(self._redact(f"unexpected error: {exc}"), "internal_error")
        finally:
            await response.aclose()
        for event in events:
            yield event

    async def list_models(self) -> list[ModelInfo]:
        """Models from ``GET {base_url}/models``, sorted by id; raises ProviderError."""
        try:
            request = self._build_request("GET", "/models", None)
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
            payload = response.json()
        except ValueError:
            raise ProviderError(
                f"{self.base_url}/models did not return JSON; check the base URL",
                provider=self.name,
            ) from None
        return parse_models(payload, self.name)

    # -- internals

    async def _open(self, request: ChatRequest) -> httpx.Response | ErrorEvent:
        """Send the request (with retries); the response or a terminal ErrorEvent."""
        try:
            body = build_chat_body(request)
            http_request = self._build_request("POST", "/chat/completions", body)
            return await send_with_retry(
                self._get_client(), http_request, self.retry, on_retry=self._on_retry
            )
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            return self._transport_error(exc, streaming=False)
        except Exception as exc:
            log.exception("%s: request failed", self.name)
            return self._unexpected(exc)

    @staticmethod
    def _end_of_stream(decoder: SSEDecoder, parser: ChatStreamParser) -> list[StreamEvent]:
        """Events of a final unterminated event (lenient), then the terminal events."""
        events: list[StreamEvent] = []
        for sse in decoder.flush(dispatch_incomplete=True):
            if sse.event == "error" or _is_complete(sse.data):  # skip a line cut mid-way
                events += parser.feed_sse(sse)
        return events + parser.finish()

    def _build_request(self, method: str, path: str, body: dict[str, Any] | None) -> httpx.Request:
        base = httpx.URL(self.base_url)  # keeps a query string such as ?api-version=...
        url = base.copy_with(path=base.path.rstrip("/") + path)
        headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
        if body is not None:
            headers["Accept"] = "text/event-stream"
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        headers.update(self._headers)
        timeout = self._timeout()
        content = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        if content is not None:
            headers["Content-Type"] = "application/json"
        return self._get_client().build_request(
            method, url, content=content, headers=headers, timeout=timeout
        )

    def _transport_error(self, exc: Exception, *, streaming: bool) -> ErrorEvent:
        message, code = self._describe(exc, streaming=streaming)
        text = str(ProviderError(message, provider=self.name))
        return ErrorEvent(text, code=code, provider=self.name)

    def _unexpected(self, exc: Exception) -> ErrorEvent:
        text = str(ProviderError(self._redact(f"unexpected error: {exc}"), provider=self.name))
        return ErrorEvent(text, code="internal_error", provider=self.name)

    async def _html_instead_of_stream(
        self, response: httpx.Response, parser: ChatStreamParser
    ) -> list[StreamEvent]:
        """A 200 HTML page (a captive portal, a web UI at the base URL, ...)."""
        snippet, _ = describe_error_body(
            await self._read_body(response), "text/html", secrets=self._secrets
        )
        message = f"expected an event stream but got a web page ({snippet}); check the base URL"
        return parser.error(message, "unexpected_content")

    async def _read_completion(
        self, response: httpx.Response, parser: ChatStreamParser
    ) -> list[StreamEvent]:
        try:
            payload = json.loads(await response.aread())
        except httpx.HTTPError as exc:
            return parser.error(*self._describe(exc, streaming=True))
        except ValueError:
            return parser.error("the server sent invalid JSON", code="malformed_stream")
        return parser.feed_completion(payload)


def _is_complete(text: str) -> bool:
    return text.startswith("[DONE]") or is_json(text)


def _first_int(item: dict[str, Any], *keys: str) -> int | None:
    for key in keys:
        value = item.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def parse_models(payload: Any, provider: str) -> list[ModelInfo]:
    items = payload
    if isinstance(payload, dict):
        items = payload.get("data", payload.get("models"))
    if not isinstance(items, list):
        raise ProviderError("unexpected response from /models (no model list)", provider=provider)
    models: dict[str, ModelInfo] = {}
    for entry in items:
        item = {"id": entry} if isinstance(entry, str) else entry
        if not isinstance(item, dict):
            continue
        model_id = item.get("id") or item.get("model") or item.get("name")
        if not isinstance(model_id, str) or not model_id:
            continue
        name = item.get("name")
        owner = item.get("owned_by")
        models[model_id] = ModelInfo(
            id=model_id,
            name=name if isinstance(name, str) and name != model_id else None,
            context_window=_first_int(
                item, "context_length", "context_window", "max_model_len", "max_context_length"
            ),
            owned_by=owner if isinstance(owner, str) else None,
        )
    return [models[key] for key in sorted(models)]
