"""The OpenAI Responses API provider (``POST {base_url}/responses``).

Same guarantees as the Chat Completions adapter, whose HTTP plumbing it reuses
(request building, retries before the first byte, error messages, ``list_models``):
``stream()`` never raises for provider failures; it ends with exactly one
:class:`EndEvent` or :class:`ErrorEvent`, and only ``asyncio.CancelledError``
propagates.

The option ``responses_mode`` picks how a conversation is carried:

* ``"chain"`` (default): ``previous_response_id`` from the last assistant message
  (its ``provider_data["response_id"]``, set from our :class:`EndEvent`) plus the
  items added since. If the server no longer knows that response, the same request
  is sent again at once with the whole conversation (and stored, so the next turn
  chains again) -- no error reaches the user.
* ``"replay"``: the whole conversation every time with ``store: false``, asking for
  encrypted reasoning (``include``) and sending it back. Models that reject
  ``include`` (non-reasoning models) get the request again without it, and are
  remembered so later requests skip it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import Any, Literal

import httpx

from desktop.core.errors import ConfigError, ProviderError
from desktop.core.events import ErrorEvent, StreamEvent
from desktop.core.provider import ChatRequest
from desktop.providers.http_errors import describe_error_body
from desktop.providers.http_stream import DRAIN_TIMEOUT_S, drain
from desktop.providers.openai_chat import OpenAIChatProvider, _is_complete
from desktop.providers.responses_format import (
    build_responses_body,
    encrypted_reasoning_unsupported,
    previous_response_missing,
)
from desktop.providers.responses_stream import ResponsesStreamParser
from desktop.providers.retry import RetryPolicy, send_with_retry
from desktop.providers.sse import SSEDecoder

__all__ = ["MODES", "OpenAIResponsesProvider"]

log = logging.getLogger(__name__)

Mode = Literal["chain", "replay"]
MODES: tuple[Mode, ...] = ("chain", "replay")


class OpenAIResponsesProvider(OpenAIChatProvider):
    """A :class:`desktop.core.provider.Provider` for the OpenAI Responses API."""

    supports_tools: bool = True
    supports_reasoning: bool = True

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        name: str = "OpenAI (Responses API)",
        headers: Mapping[str, str] | None = None,
        timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        client: httpx.AsyncClient | None = None,
        on_retry: Callable[[int, float, str], None] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        """``options["responses_mode"]``: ``"chain"`` (default) or ``"replay"``."""
        super().__init__(
            base_url,
            api_key,
            name=name,
            headers=headers,
            timeout=timeout,
            retry=retry,
            client=client,
            on_retry=on_retry,
            options=options,
        )
        mode = self.options.get("responses_mode") or "chain"
        if mode not in MODES:
            raise ConfigError(f"{name}: responses_mode must be 'chain' or 'replay' (got {mode!r})")
        self.mode: Mode = mode
        self._no_encrypted: set[str] = set()  # models that rejected encrypted reasoning

    def __repr__(self) -> str:  # never shows the key
        return (
            f"OpenAIResponsesProvider(name={self.name!r}, base_url={self.base_url!r}, "
            f"mode={self.mode!r})"
        )

    async def __aenter__(self) -> OpenAIResponsesProvider:
        return self

    # -- public API

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        """Yield normalized events; the last one is an EndEvent or an ErrorEvent."""
        opened = await self._open_responses(request)
        if isinstance(opened, ErrorEvent):
            yield opened
            return
        response, stored = opened
        parser = ResponsesStreamParser(self.name, secrets=self._secrets, stored=stored)
        events: list[StreamEvent]
        try:
            content_type = response.headers.get("content-type", "")
            if content_type.startswith("application/json"):
                events = await self._read_whole_response(response, parser)
            elif "html" in content_type:
                events = await self._web_page_instead_of_stream(response, parser)
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
                    events = self._flush_events(decoder, parser)
                except httpx.HTTPError as exc:  # mid-stream: never retried
                    events = parser.error(*self._describe(exc, streaming=True))
                finally:
                    await drain(chunks, DRAIN_TIMEOUT_S if parser.closed else 0.0)
        except Exception as exc:  # a bug or an unexpected failure: report, don't crash the UI
            log.exception("%s: stream failed", self.name)
            events = parser.error(self._redact(f"unexpected error: {exc}"), "internal_error")
        finally:
            await response.aclose()
        for event in events:
            yield event

    # -- internals

    async def _open_responses(
        self, request: ChatRequest
    ) -> tuple[httpx.Response, bool] | ErrorEvent:
        """Send the request (retries, then the chain/encryption fallbacks).

        Returns a 2xx response with whether it is stored (chainable), or a terminal
        ErrorEvent for everything else.
        """
        stateless = self.mode == "replay"
        chain = not stateless
        encrypted = stateless and request.model not in self._no_encrypted
        try:
            while True:  # at most three rounds: each fallback switches itself off
                body = build_responses_body(
                    request, chain=chain, store=not stateless, include_encrypted=encrypted
                )
                http_request = self._build_request("POST", "/responses", body)
                response = await send_with_retry(
                    self._get_client(), http_request, self.retry, on_retry=self._on_retry
                )
                status = response.status_code
                if 200 <= status < 300:
                    return response, body.get("store") is not False
                raw = await self._read_body(response)
                await response.aclose()
                if "previous_response_id" in body and previous_response_missing(status, raw):
                    log.info("%s: previous response not found; resending it all", self.name)
                    chain = False  # the whole conversation, still stored
                    continue
                if encrypted and encrypted_reasoning_unsupported(status, raw):
                    log.info("%s: %s has no encrypted reasoning", self.name, request.model)
                    self._no_encrypted.add(request.model)
                    encrypted = False
                    continue
                message, code = self._status_message(response, raw)
                text = str(ProviderError(message, provider=self.name, status=status))
                return ErrorEvent(text, code=code, status=status, provider=self.name)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            return self._transport_error(exc, streaming=False)
        except Exception as exc:
            log.exception("%s: request failed", self.name)
            return self._unexpected(exc)

    @staticmethod
    def _flush_events(decoder: SSEDecoder, parser: ResponsesStreamParser) -> list[StreamEvent]:
        """Events of a final unterminated event (lenient), then the terminal events."""
        events: list[StreamEvent] = []
        for sse in decoder.flush(dispatch_incomplete=True):
            if sse.event == "error" or _is_complete(sse.data):  # skip a line cut mid-way
                events += parser.feed_sse(sse)
        return events + parser.finish()

    async def _web_page_instead_of_stream(
        self, response: httpx.Response, parser: ResponsesStreamParser
    ) -> list[StreamEvent]:
        """A 200 HTML page (a captive portal, a web UI at the base URL, ...)."""
        snippet, _ = describe_error_body(
            await self._read_body(response), "text/html", secrets=self._secrets
        )
        message = f"expected an event stream but got a web page ({snippet}); check the base URL"
        return parser.error(message, "unexpected_content")

    async def _read_whole_response(
        self, response: httpx.Response, parser: ResponsesStreamParser
    ) -> list[StreamEvent]:
        """A server that answered with one JSON ``response`` object despite ``stream``."""
        try:
            payload = await response.aread()
        except httpx.HTTPError as exc:
            return parser.error(*self._describe(exc, streaming=True))
        try:
            data = json.loads(payload)
        except ValueError:
            return parser.error("the server sent invalid JSON", code="malformed_stream")
        return parser.feed_response(data)
