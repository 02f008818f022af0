"""The streaming template every HTTP adapter fills in: open -> retry -> decode -> parse -> close.

An adapter (``openai_chat``, ``openai_responses``, ``anthropic``, ``gemini``,
``ollama``) supplies only what differs between APIs:

* connection and auth: ``path_prefix`` and :meth:`HttpEndpoint._auth_headers`;
* the request: :meth:`~HttpProvider._stream_path`, ``stream_params`` and
  :meth:`~HttpProvider._body` (built by its ``<api>_format`` module);
* the wire format: ``wire`` (:data:`~desktop.providers.wire.SSE` or ``NDJSON``);
* the parser: :meth:`~HttpProvider._parser`, a
  :class:`~desktop.providers.stream_parser.StreamParser` from its ``<api>_stream``.

:meth:`HttpProvider.stream` owns the rest and never raises for provider failures:
every failure (HTTP status, network, timeout, in-stream error, cut connection)
becomes exactly one :class:`ErrorEvent` as the last event; a successful stream ends
with exactly one :class:`EndEvent`. Only ``asyncio.CancelledError`` propagates.
Requests are retried (see :mod:`~desktop.providers.retry`) only before the first
byte of the body, never mid-stream, so no text is ever duplicated.

The server side every adapter shares (clients, requests, small JSON replies, error
wording) is :class:`~desktop.providers.http_endpoint.HttpEndpoint`, which this class
extends; recording for the request inspector wraps the provider from outside
(:mod:`desktop.providers.recording`).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import httpx
from pydantic import BaseModel, ValidationError

from desktop.core.errors import ConfigError
from desktop.core.events import ErrorEvent, StreamEvent
from desktop.core.provider import ChatRequest, ModelInfo
from desktop.core.provider_options import CommonOptions
from desktop.providers.http_endpoint import (
    CONNECT_TIMEOUT_S,
    ERROR_BODY_LIMIT,
    HttpEndpoint,
    Sending,
)
from desktop.providers.http_errors import describe_error_body
from desktop.providers.limits import MAX_JSON_REPLY, ReplyTooLarge, read_limited
from desktop.providers.ndjson import NDJSONError
from desktop.providers.retry import RetryPolicy
from desktop.providers.stream_pace import StreamPace
from desktop.providers.stream_parser import StreamParser
from desktop.providers.wire import DRAIN_TIMEOUT_S, drain
from desktop.providers.wire_api import WireApi

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy

__all__ = ["CONNECT_TIMEOUT_S", "ERROR_BODY_LIMIT", "HttpProvider", "Sending"]

log = logging.getLogger(__name__)


class HttpProvider(HttpEndpoint, WireApi):  # (its API's facts: desktop.providers.wire_api)
    supports_tools: bool = True
    supports_reasoning: bool = True
    #: Query parameters of the streaming request (Gemini: ``alt=sse``).
    stream_params: ClassVar[Mapping[str, str] | None] = None
    options: CommonOptions

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        name: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        retry: RetryPolicy | None = None,
        client: httpx.AsyncClient | None = None,
        on_retry: Callable[[int, float, str], None] | None = None,
        options: CommonOptions | Mapping[str, Any] | None = None,
        proxy: Proxy | None = None,
        pace: StreamPace | None = None,
    ) -> None:
        """``timeout`` is also the longest silence tolerated mid-stream.
        ``on_retry(attempt, delay_s, reason)`` is called before each retry wait;
        an injected ``client`` is not closed by :meth:`aclose`. ``proxy``: the client
        this provider makes goes through it and ignores the proxy variables of the
        environment (``None``: the environment decides). ``options``: the adapter's
        switches (a mapping is validated strictly; ConfigError). Request defaults in
        them are not read here: they reach each request through the agent loop.
        The clients it makes tell a request's wire observer what goes over the wire
        (:mod:`~desktop.providers.wire_tap`; the request inspector's, see
        :func:`desktop.providers.recording.recorded`). ``pace``: how often its streams
        reach the reader (:mod:`~desktop.providers.stream_pace`; none: 15 times a
        second)."""
        super().__init__(base_url, api_key, name=name, headers=headers, timeout=timeout,
                         retry=retry, client=client, on_retry=on_retry, proxy=proxy,
                         pace=pace)
        self.options = self._typed_options(options)
        self._configure()

    # -- what an adapter supplies

    def _configure(self) -> None:
        """Adapter set-up after the common fields are set (URL clean-up, options)."""

    def _typed_options(self, options: CommonOptions | Mapping[str, Any] | None) -> Any:
        model = self.Options
        if isinstance(options, model):
            return options
        if isinstance(options, BaseModel):  # another kind's: keep the fields this one has
            options = options.model_dump(exclude_defaults=True)
        data = {k: v for k, v in (options or {}).items() if k != "kind"}
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            raise ConfigError(f"{self.name}: invalid option {where}: {error['msg']}",
                              code="invalid_option",
                              params={"provider": self.name, "option": where,
                                      "detail": error["msg"]}) from None

    async def list_models(self) -> list[ModelInfo]:
        raise NotImplementedError

    def _stream_path(self, request: ChatRequest) -> str:
        raise NotImplementedError

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        raise NotImplementedError

    def _parser(self, request: ChatRequest) -> StreamParser[Any]:
        raise NotImplementedError

    # -- the template

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        """Yield normalized events; the last one is an EndEvent or an ErrorEvent.

        Read where :meth:`~HttpEndpoint.read` says (the stream thread when this
        provider owns its client)."""
        events = self.read(lambda sending: self.events(request, sending))
        async with contextlib.aclosing(events):
            async for event in events:
                yield event

    async def events(self, request: ChatRequest, sending: Sending | None = None
                     ) -> AsyncGenerator[StreamEvent, None]:
        """:meth:`stream`'s events, read on this loop; ``sending``: how its HTTP
        requests are sent (default: this provider's retry callback, called here)."""
        opened = await self._open(request, sending or Sending(on_retry=self._on_retry))
        parser = self._parser(request)
        events = [opened] if isinstance(opened, ErrorEvent) else \
            await self._not_a_stream(opened, parser, request.model)
        if isinstance(opened, ErrorEvent):
            yield opened
            return
        response = opened
        try:
            if events is None:
                decoder = self.wire.decoder()
                decode, feed = decoder.feed, parser.feed  # bound once: the per-token path
                chunks = response.aiter_bytes()
                try:
                    async for chunk in chunks:
                        for item in decode(chunk):
                            for event in feed(item):
                                yield event
                            if parser.closed:
                                return
                    events = [e for item in self.wire.tail(decoder) for e in feed(item)]
                    events += parser.finish()
                except ReplyTooLarge as exc:
                    events = parser.error(str(exc), "reply_too_large")
                except NDJSONError as exc:
                    events = parser.error(f"malformed stream data: {exc.line[:120]!r}",
                                          "malformed_stream")  # fmt: skip
                except httpx.HTTPError as exc:  # mid-stream: never retried
                    events = parser.interrupted(*self._describe(exc, streaming=True))
                finally:
                    await drain(chunks, DRAIN_TIMEOUT_S if parser.done else 0.0)
        except Exception as exc:  # a bug or an unexpected failure: report, don't crash the UI
            log.exception("%s: stream failed", self.name)
            events = parser.error(self._redact(f"unexpected error: {exc}"), "internal_error")
        finally:
            await response.aclose()
        for event in events or ():
            yield event

    async def _not_a_stream(
        self, response: httpx.Response, parser: StreamParser[Any], model: str
    ) -> list[StreamEvent] | None:
        """The events of an error status, a whole JSON answer or a web page; None for
        a stream."""
        content_type = response.headers.get("content-type", "")
        if not 200 <= response.status_code < 300:
            return [await self._status_error(response, model)]
        if self.wire.whole_json and content_type.startswith("application/json"):
            return await self._whole_answer(response, parser)
        if "html" in content_type:
            return await self._web_page(response, parser)
        return None

    async def _open(self, request: ChatRequest, sending: Sending
                    ) -> httpx.Response | ErrorEvent:
        """Send the request (with retries); the response or a terminal ErrorEvent."""
        try:
            http_request = self._build_request(
                "POST", self._stream_path(request), self._body(request), self.stream_params,
                stream=True, extensions=sending.extensions,
            )  # fmt: skip
            return await self._send(http_request, sending)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            return self._error_event(*self._describe(exc, streaming=False))
        except Exception as exc:
            log.exception("%s: request failed", self.name)
            return self._error_event(self._redact(f"unexpected error: {exc}"), "internal_error")

    async def _whole_answer(
        self, response: httpx.Response, parser: StreamParser[Any]
    ) -> list[StreamEvent]:
        """A server that ignored ``stream`` and sent the whole answer as JSON."""
        try:
            raw = await read_limited(response, MAX_JSON_REPLY, "answer")
            payload = json.loads(raw)
        except httpx.HTTPError as exc:
            return parser.error(*self._describe(exc, streaming=True))
        except ReplyTooLarge as exc:
            return parser.error(str(exc), "reply_too_large")
        except ValueError:
            return parser.error("the server sent invalid JSON", "malformed_stream")
        return parser.feed_body(payload)

    async def _web_page(
        self, response: httpx.Response, parser: StreamParser[Any]
    ) -> list[StreamEvent]:
        """A 200 HTML page (a captive portal, a web UI at the base URL, ...)."""
        snippet, _ = describe_error_body(
            await self._read_body(response), "text/html", secrets=self._secrets
        )
        message = (f"expected {self.wire.expected} but got a web page ({snippet}); "
                   "check the base URL")  # fmt: skip
        return parser.error(message, "unexpected_content")
