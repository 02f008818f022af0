"""The streaming template every HTTP adapter fills in: open -> retry -> decode -> parse -> close.

An adapter (``openai_chat``, ``openai_responses``, ``anthropic``, ``gemini``,
``ollama``) supplies only what differs between APIs:

* connection and auth: ``path_prefix`` and :meth:`HttpProvider._auth_headers`;
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
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import AsyncGenerator, Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, Self

import httpx
from pydantic import BaseModel, ValidationError

from desktop.core.error_codes import TRANSPORT_CODES, provider_failure
from desktop.core.errors import ConfigError, ProviderError
from desktop.core.events import ErrorEvent, StreamEvent
from desktop.core.exchange import ExchangeRecording
from desktop.core.provider import ChatRequest
from desktop.core.provider_options import CommonOptions
from desktop.providers.http_clients import USER_AGENT, make_async_client
from desktop.providers.http_errors import (
    describe_error_body,
    describe_status,
    describe_transport_error,
    server_detail,
)
from desktop.providers.http_json import get_json
from desktop.providers.limits import MAX_JSON_REPLY, ReplyTooLarge, read_limited
from desktop.providers.ndjson import NDJSONError
from desktop.providers.recording import (
    CAPTURING,
    ExchangeCapture,
    recorded_chunks,
    send_recorded,
)
from desktop.providers.retry import RetryPolicy, redact
from desktop.providers.stream_parser import StreamParser
from desktop.providers.stream_thread import (
    close_on_stream_thread,
    home_callback,
    on_stream_thread,
    relay,
)
from desktop.providers.wire import DRAIN_TIMEOUT_S, SSE, Wire, drain
from desktop.providers.wire_api import WireApi

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy

__all__ = ["CONNECT_TIMEOUT_S", "ERROR_BODY_LIMIT", "HttpProvider"]

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10.0
ERROR_BODY_LIMIT = 65536
SECRET_HEADER = re.compile(r"(?i)auth|key|token|secret|password|cookie")


class HttpProvider(WireApi):  # (the facts about its API: desktop.providers.wire_api)
    supports_tools: bool = True
    supports_reasoning: bool = True
    #: How the response body streams.
    wire: ClassVar[Wire] = SSE
    #: Between the base URL and every path (Anthropic: ``/v1``).
    path_prefix: ClassVar[str] = ""
    #: Query parameters of the streaming request (Gemini: ``alt=sse``).
    stream_params: ClassVar[Mapping[str, str] | None] = None
    default_name: ClassVar[str] = "provider"
    options: CommonOptions
    default_timeout: ClassVar[float] = 120.0

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
        recording: ExchangeRecording | None = None,
    ) -> None:
        """``timeout`` is also the longest silence tolerated mid-stream.
        ``on_retry(attempt, delay_s, reason)`` is called before each retry wait;
        an injected ``client`` is not closed by :meth:`aclose`. ``proxy``: the client
        this provider makes goes through it and ignores the proxy variables of the
        environment (``None``: the environment decides). ``options``: the adapter's
        switches (a mapping is validated strictly; ConfigError). Request defaults in
        them are not read here: they reach each request through the agent loop.
        ``recording``: every streamed request is captured for the request inspector."""
        self.name = name or self.default_name
        self.options = self._typed_options(options)
        self.base_url = base_url.strip().rstrip("/")
        self.timeout = self.default_timeout if timeout is None else timeout
        self.retry = retry if retry is not None else RetryPolicy()
        self.proxy = proxy
        self._api_key = api_key or None
        self._headers = dict(headers or {})
        self._client = client
        self._owns_client = client is None
        self._thread_client: httpx.AsyncClient | None = None
        self._on_retry = on_retry
        self._recording = recording
        secret_headers = (v for k, v in self._headers.items() if SECRET_HEADER.search(k))
        self._secrets = (self._api_key, *secret_headers)
        self._configure()

    def __repr__(self) -> str:  # never shows the key, nor a password in the URL
        return f"{type(self).__name__}(name={self.name!r}, base_url={redact(self.base_url)!r})"

    async def aclose(self) -> None:
        if self._thread_client is not None:
            thread_client, self._thread_client = self._thread_client, None
            close_on_stream_thread(thread_client)
        if self._owns_client and self._client is not None:
            client, self._client = self._client, None
            await client.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

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
            raise ConfigError(f"{self.name}: invalid option {where}: {error['msg']}") from None

    def _auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    def _stream_path(self, request: ChatRequest) -> str:
        raise NotImplementedError

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        raise NotImplementedError

    def _parser(self, request: ChatRequest) -> StreamParser[Any]:
        raise NotImplementedError

    # -- the template

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        """Yield normalized events; the last one is an EndEvent or an ErrorEvent.

        A provider that owns its client reads on the stream thread (see
        :mod:`~desktop.providers.stream_thread`); an injected client is read here."""
        capture = None
        if self._recording is not None:  # made here: it notes the caller's origin
            capture = ExchangeCapture(self._recording, self.name, request, self._secrets)
        events = relay(partial(self._captured, request, capture)) if self._owns_client \
            else self._captured(request, capture)
        async with contextlib.aclosing(events):
            async for event in events:
                yield event

    async def _captured(self, request: ChatRequest, capture: ExchangeCapture | None
                        ) -> AsyncGenerator[StreamEvent, None]:
        try:  # closed here: a stream the consumer stops must not be left to the GC
            async with contextlib.aclosing(self._stream(request, capture)) as events:
                if capture is None:
                    async for event in events:
                        yield event
                    return
                record = capture.event
                async for event in events:
                    record(event)
                    yield event
        except (asyncio.CancelledError, GeneratorExit):
            capture.finish("stopped") if capture is not None else None
            raise
        finally:
            if capture is not None:
                capture.finish()

    async def _stream(self, request: ChatRequest, capture: ExchangeCapture | None
                      ) -> AsyncGenerator[StreamEvent, None]:
        token = CAPTURING.set(capture)  # the inspector's, while opening (no yield here)
        try:
            opened = await self._open(request)
            parser = self._parser(request)
            events = [opened] if isinstance(opened, ErrorEvent) else \
                await self._not_a_stream(opened, parser, request.model)
        finally:
            CAPTURING.reset(token)
        if isinstance(opened, ErrorEvent):
            yield opened
            return
        response = opened
        try:
            if events is None:
                decoder = self.wire.decoder()
                decode, feed = decoder.feed, parser.feed  # bound once: the per-token path
                chunks = recorded_chunks(response.aiter_bytes(), capture)
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

    async def _open(self, request: ChatRequest) -> httpx.Response | ErrorEvent:
        """Send the request (with retries); the response or a terminal ErrorEvent."""
        try:
            http_request = self._build_request(
                "POST", self._stream_path(request), self._body(request), self.stream_params,
                stream=True,
            )  # fmt: skip
            return await self._send(http_request)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            return self._error_event(*self._describe(exc, streaming=False))
        except Exception as exc:
            log.exception("%s: request failed", self.name)
            return self._error_event(self._redact(f"unexpected error: {exc}"), "internal_error")

    async def _send(self, http_request: httpx.Request) -> httpx.Response:
        """Send a streaming request with retries (recorded when it is being captured)."""
        on_retry = home_callback(self._on_retry) if self._on_retry is not None else None
        return await send_recorded(self._get_client(), http_request, self.retry, on_retry)

    async def _whole_answer(
        self, response: httpx.Response, parser: StreamParser[Any]
    ) -> list[StreamEvent]:
        """A server that ignored ``stream`` and sent the whole answer as JSON."""
        try:
            raw = await read_limited(response, MAX_JSON_REPLY, "answer")
            capture = CAPTURING.get()
            if capture is not None:
                capture.chunk(raw)
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

    # -- requests

    def _get_client(self) -> httpx.AsyncClient:
        if on_stream_thread() and self._owns_client:  # a client of the stream thread's loop
            if self._thread_client is None:
                self._thread_client = make_async_client(timeout=self.timeout, proxy=self.proxy)
            return self._thread_client
        if self._client is None:
            self._client = make_async_client(timeout=self.timeout, proxy=self.proxy)
            self._owns_client = True
        return self._client

    def _timeout(self, seconds: float | None = None) -> httpx.Timeout:
        seconds = self.timeout if seconds is None else seconds
        return httpx.Timeout(seconds, connect=min(CONNECT_TIMEOUT_S, seconds))

    def _build_request(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        params: Mapping[str, str] | None = None,
        *,
        stream: bool = False,
        timeout: float | None = None,
    ) -> httpx.Request:
        base = httpx.URL(self.base_url)  # keeps a query string such as ?api-version=...
        url = base.copy_with(path=base.path.rstrip("/") + self.path_prefix + path)
        if params:
            url = url.copy_merge_params(params)
        headers = {"User-Agent": USER_AGENT, "Accept": self.wire.accept if stream else
                   "application/json"}  # fmt: skip
        headers.update(self._auth_headers())
        content = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        headers.update(self._headers)  # last: the user's headers win
        return self._get_client().build_request(
            method, url, content=content, headers=headers, timeout=self._timeout(timeout)
        )

    async def _get_json(
        self,
        path: str,
        params: Mapping[str, str] | None = None,
        body: dict[str, Any] | None = None,
        *,
        retry: RetryPolicy | None = None,
        timeout: float | None = None,
    ) -> Any:
        """The decoded JSON answer of a small GET (a POST with ``body``); ProviderError."""
        return await get_json(self, path, params, body, retry=retry, timeout=timeout)

    # -- errors

    def _redact(self, text: str) -> str:
        return redact(text, self._secrets)

    def _describe(self, exc: Exception, *, streaming: bool) -> tuple[str, str]:
        message, code = describe_transport_error(
            exc, self.base_url, self.timeout, streaming=streaming
        )
        return self._redact(message), code

    def _error_event(self, message: str, code: str | None, status: int | None = None, *,
                     detail: str | None = None, model: str | None = None,
                     retry_after: float | None = None) -> ErrorEvent:
        """``message``: the English one-liner; ``detail``: the server's own words."""
        text = str(ProviderError(message, provider=self.name, status=status))
        url = self._redact(self.base_url) if code in TRANSPORT_CODES else None
        info = provider_failure(code, status, provider=self.name, model=model, detail=detail,
                                retry_after=retry_after, url=url)
        return ErrorEvent(text, code=code, status=status, provider=self.name, info=info)

    def _status_message(
        self, response: httpx.Response, body: bytes, model: str | None = None
    ) -> tuple[str, str | None]:
        """``(message, code)`` for a non-2xx reply; ``model``: the one a request named."""
        status = response.status_code
        if 300 <= status < 400:
            location = response.headers.get("location", "?")
            return self._redact(f"unexpected redirect to {location}; check the base URL"), None
        content_type = response.headers.get("content-type", "")
        return describe_status(status, body, content_type, secrets=self._secrets)

    async def _status_error(self, response: httpx.Response, model: str | None = None) -> ErrorEvent:
        return self._status_failure(response, await self._read_body(response), model)

    def _status_failure(self, response: httpx.Response, body: bytes,
                        model: str | None = None) -> ErrorEvent:
        """The ErrorEvent of a non-2xx reply whose ``body`` was read."""
        message, code = self._status_message(response, body, model)
        detail, retry_after = server_detail(response, body, self._secrets)
        return self._error_event(message, code, response.status_code, detail=detail,
                                 model=model, retry_after=retry_after)

    async def _read_body(self, response: httpx.Response) -> bytes:
        """The start of an error reply (enough for a message), then the rest dropped."""
        body = bytearray()
        chunks = response.aiter_bytes()
        capture = CAPTURING.get()
        try:
            async for chunk in chunks:
                if capture is not None:
                    capture.chunk(chunk)
                body += chunk
                if len(body) >= ERROR_BODY_LIMIT:
                    break
        except httpx.HTTPError:
            pass  # whatever arrived is enough for a message
        finally:
            await drain(chunks, 0.0)
        return bytes(body)
