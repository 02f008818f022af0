"""The Anthropic Messages API provider (``POST /v1/messages`` with ``stream: true``).

``stream()`` never raises for provider failures: every failure (HTTP status,
network, timeout, ``event: error`` in the stream, cut connection, cut tool input)
becomes exactly one :class:`ErrorEvent` as the last event. A successful stream
ends with exactly one :class:`EndEvent`. Only ``asyncio.CancelledError`` propagates.
Requests are retried (429, 5xx, 529 overloaded, network errors) only before the
first byte of the body; never mid-stream.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from desktop.core.errors import ProviderError
from desktop.core.events import ErrorEvent, StreamEvent
from desktop.core.provider import ChatRequest, ModelCapabilities, ModelInfo
from desktop.providers.anthropic_format import ModelLimits, build_messages_body
from desktop.providers.anthropic_stream import AnthropicStreamParser
from desktop.providers.http_base import HttpProvider
from desktop.providers.http_errors import (
    describe_error_body,
)
from desktop.providers.http_stream import DRAIN_TIMEOUT_S, drain, is_json
from desktop.providers.retry import (
    USER_AGENT,
    RetryPolicy,
    is_retryable_status,
    send_with_retry,
)
from desktop.providers.sse import SSEDecoder

__all__ = ["ANTHROPIC_VERSION", "AnthropicProvider", "ModelsPage", "parse_models_page"]

log = logging.getLogger(__name__)

ANTHROPIC_VERSION = "2023-06-01"
MODELS_PAGE_LIMIT = 1000
MAX_MODEL_PAGES = 50


class AnthropicProvider(HttpProvider):
    """A :class:`desktop.core.provider.Provider` for Anthropic's Messages API."""

    supports_tools: bool = True
    supports_reasoning: bool = True

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        name: str = "Anthropic",
        headers: Mapping[str, str] | None = None,
        timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        client: httpx.AsyncClient | None = None,
        on_retry: Callable[[int, float, str], None] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        """``base_url`` is like ``https://api.anthropic.com`` (a trailing ``/v1`` is fine).

        ``options``: ``thinking`` (true, or ``"adaptive"``), ``thinking_budget`` (tokens),
        ``max_tokens`` (default output cap). ``headers`` are added last, so they can set
        ``anthropic-beta`` or override ``anthropic-version``. ``on_retry(attempt,
        delay_s, reason)`` is called before each retry wait; an injected ``client`` is
        not closed by :meth:`aclose`."""
        super().__init__(base_url, api_key, name=name, headers=headers, timeout=timeout,
                         retry=retry, client=client, on_retry=on_retry, options=options)
        if self.base_url.endswith("/v1"):
            self.base_url = self.base_url[: -len("/v1")]
        self._limits: dict[str, ModelLimits] = {}  # learned from list_models()

    # -- public API

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        """Yield normalized events; the last one is an EndEvent or an ErrorEvent."""
        opened = await self._open(request)
        if isinstance(opened, ErrorEvent):
            yield opened
            return
        response = opened
        parser = AnthropicStreamParser(self.name, secrets=self._secrets)
        events: list[StreamEvent]
        try:
            content_type = response.headers.get("content-type", "")
            if not 200 <= response.status_code < 300:
                events = [await self._status_error(response)]
            elif content_type.startswith("application/json"):
                events = await self._read_message(response, parser)
            elif "html" in content_type:
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
        """Models from ``GET /v1/models`` (every page, newest first); raises ProviderError."""
        models: list[ModelInfo] = []
        after: str | None = None
        for _ in range(MAX_MODEL_PAGES):
            params = {"limit": str(MODELS_PAGE_LIMIT)}
            if after:
                params["after_id"] = after
            page = parse_models_page(await self._get_json("/models", params), self.name)
            models.extend(page.models)
            self._limits.update(page.limits)
            if not page.has_more or not page.last_id or page.last_id == after:
                break
            after = page.last_id
        return models

    # -- internals

    async def _open(self, request: ChatRequest) -> httpx.Response | ErrorEvent:
        """Send the request (with retries); the response or a terminal ErrorEvent."""
        try:
            body = build_messages_body(
                request,
                options=self.options,
                limits=self._limits.get(request.model),
                provider=self.name,
            )
            http_request = self._build_request("POST", "/messages", body)
            return await send_with_retry(
                self._get_client(), http_request, self.retry, on_retry=self._on_retry
            )
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            return self._transport_error(exc)
        except Exception as exc:
            log.exception("%s: request failed", self.name)
            text = str(ProviderError(self._redact(f"unexpected error: {exc}"), provider=self.name))
            return ErrorEvent(text, code="internal_error", provider=self.name)

    async def _get_json(self, path: str, params: Mapping[str, str]) -> Any:
        try:
            request = self._build_request("GET", path, None, params)
            response = await send_with_retry(
                self._get_client(), request, self.retry, stream=False, on_retry=self._on_retry
            )
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            message, code = self._describe(exc, streaming=False)
            raise ProviderError(message, provider=self.name, code=code, retryable=True) from None
        if not 200 <= response.status_code < 300:
            message, status_code = self._status_message(response, response.content)
            raise ProviderError(
                message,
                provider=self.name,
                status=response.status_code,
                code=status_code,
                retryable=is_retryable_status(response.status_code),
            )
        try:
            return response.json()
        except ValueError:
            raise ProviderError(
                f"{self.base_url}/v1{path} did not return JSON; check the base URL",
                provider=self.name,
            ) from None

    @staticmethod
    def _end_of_stream(decoder: SSEDecoder, parser: AnthropicStreamParser) -> list[StreamEvent]:
        """Events of a final unterminated event (lenient), then the terminal events."""
        events: list[StreamEvent] = []
        for sse in decoder.flush(dispatch_incomplete=True):
            if is_json(sse.data):  # skip a line cut mid-way
                events += parser.feed_sse(sse)
        return events + parser.finish()

    def _build_request(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        params: Mapping[str, str] | None = None,
    ) -> httpx.Request:
        base = httpx.URL(self.base_url)  # keeps a query string, if any
        url = base.copy_with(path=base.path.rstrip("/") + "/v1" + path)
        if params:
            url = url.copy_merge_params(params)
        headers = {
            "User-Agent": USER_AGENT,
            "Accept": "application/json" if body is None else "text/event-stream",
            "anthropic-version": ANTHROPIC_VERSION,
        }
        if self._api_key:
            headers["x-api-key"] = self._api_key
        content = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        headers.update(self._headers)
        timeout = self._timeout()
        return self._get_client().build_request(
            method, url, content=content, headers=headers, timeout=timeout
        )

    def _transport_error(self, exc: Exception) -> ErrorEvent:
        message, code = self._describe(exc, streaming=False)
        text = str(ProviderError(message, provider=self.name))
        return ErrorEvent(text, code=code, provider=self.name)

    async def _html_instead_of_stream(
        self, response: httpx.Response, parser: AnthropicStreamParser
    ) -> list[StreamEvent]:
        """A 200 HTML page (a captive portal, a web UI at the base URL, ...)."""
        snippet, _ = describe_error_body(
            await self._read_body(response), "text/html", secrets=self._secrets
        )
        message = f"expected an event stream but got a web page ({snippet}); check the base URL"
        return parser.error(message, "unexpected_content")

    async def _read_message(
        self, response: httpx.Response, parser: AnthropicStreamParser
    ) -> list[StreamEvent]:
        try:
            payload = json.loads(await response.aread())
        except httpx.HTTPError as exc:
            return parser.error(*self._describe(exc, streaming=True))
        except ValueError:
            return parser.error("the server sent invalid JSON", code="malformed_stream")
        return parser.feed_message(payload)




def _supported(capabilities: Any, *path: str) -> bool | None:
    node = capabilities
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    value = node.get("supported") if isinstance(node, dict) else None
    return value if isinstance(value, bool) else None


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


@dataclass(slots=True)
class ModelsPage:
    """One page of ``GET /v1/models``; ``limits`` feed request building (max_tokens,
    which thinking types the model accepts)."""

    models: list[ModelInfo]
    limits: dict[str, ModelLimits]
    has_more: bool = False
    last_id: str | None = None


def parse_models_page(payload: Any, provider: str = "Anthropic") -> ModelsPage:
    items = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(payload, dict) or not isinstance(items, list):
        raise ProviderError(
            "unexpected response from /v1/models (no model list)", provider=provider
        )
    page = ModelsPage([], {}, payload.get("has_more") is True)
    last_id = payload.get("last_id")
    page.last_id = last_id if isinstance(last_id, str) and last_id else None
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"]:
            continue
        model_id: str = item["id"]
        caps = item.get("capabilities")
        name = item.get("display_name")
        context = _positive(item.get("max_input_tokens"))
        max_tokens = _positive(item.get("max_tokens"))
        page.models.append(
            ModelInfo(
                id=model_id,
                name=name if isinstance(name, str) and name and name != model_id else None,
                context_window=context,
                capabilities=ModelCapabilities(
                    tools=True,
                    vision=_supported(caps, "image_input"),
                    reasoning=_supported(caps, "thinking"),
                    max_output_tokens=max_tokens,
                    context_window=context,
                ),
            )
        )
        page.limits[model_id] = ModelLimits(
            max_tokens=max_tokens,
            thinking_enabled=_supported(caps, "thinking", "types", "enabled"),
            thinking_adaptive=_supported(caps, "thinking", "types", "adaptive"),
        )
    return page
