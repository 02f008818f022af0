"""A provider's server: where it is, how it is reached, and how its failures read.

:class:`HttpEndpoint` is what every HTTP adapter shares besides the streaming
template (:mod:`desktop.providers.http_base`, which builds on it): the base URL,
key and headers; the HTTP clients (one on the caller's loop, one on the stream
thread, both with the wire tap of :mod:`desktop.providers.wire_tap`); building and
sending requests with retries; the small JSON requests (a model list, a model's
details), read with a size limit; and an error reply, a transport failure or a
status worded as a redacted message with its code.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncGenerator, Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, Self

import httpx
import msgspec

from desktop.core.error_codes import TRANSPORT_CODES, provider_failure
from desktop.core.errors import ProviderError
from desktop.core.events import ErrorEvent, StreamEvent
from desktop.providers.http_clients import USER_AGENT, make_async_client
from desktop.providers.http_errors import (
    describe_status,
    describe_transport_error,
    server_detail,
)
from desktop.providers.limits import MAX_JSON_REPLY, ReplyTooLarge, read_limited
from desktop.providers.retry import (
    RetryPolicy,
    is_retryable_status,
    redact,
    send_with_retry,
)
from desktop.providers.socket_io import LoopBackend
from desktop.providers.stream_pace import StreamPace
from desktop.providers.stream_thread import (
    READ_PAUSE_S,
    call_on_loop,
    close_on_stream_thread,
    on_stream_thread,
    relay,
)
from desktop.providers.wire import SSE, Wire, drain
from desktop.providers.wire_tap import WireTap

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy

__all__ = ["CONNECT_TIMEOUT_S", "ERROR_BODY_LIMIT", "HttpEndpoint", "RetryCallback", "Sending"]

CONNECT_TIMEOUT_S = 10.0
ERROR_BODY_LIMIT = 65536
SECRET_HEADER = re.compile(r"(?i)auth|key|token|secret|password|cookie")

#: ``(attempt, delay_s, reason)``, before each retry wait.
RetryCallback = Callable[[int, float, str], None]


class Sending(msgspec.Struct, frozen=True):
    """How the HTTP requests of one stream are sent: ``extensions`` go on each httpx
    request (a wire observer, see :mod:`~desktop.providers.wire_tap`); ``on_retry``
    is told before each retry wait, on the loop of whoever reads the stream."""

    extensions: Mapping[str, Any] | None = None
    on_retry: RetryCallback | None = None


class HttpEndpoint:
    #: How the response body streams (its media type is what a stream request accepts).
    wire: ClassVar[Wire] = SSE
    #: Between the base URL and every path (Anthropic: ``/v1``).
    path_prefix: ClassVar[str] = ""
    default_name: ClassVar[str] = "provider"
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
        on_retry: RetryCallback | None = None,
        proxy: Proxy | None = None,
        pace: StreamPace | None = None,
    ) -> None:
        """See :class:`~desktop.providers.http_base.HttpProvider`."""
        self.name = name or self.default_name
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
        self._pace = pace
        secret_headers = (v for k, v in self._headers.items() if SECRET_HEADER.search(k))
        self._secrets = (self._api_key, *secret_headers)

    @property
    def secrets(self) -> tuple[str | None, ...]:
        """The key and the values of secret-looking headers (to redact)."""
        return self._secrets

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

    def _auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    # -- where streams are read

    def read(self, source: Callable[[Sending], AsyncGenerator[StreamEvent, None]]
             ) -> AsyncGenerator[StreamEvent, None]:
        """``source(sending)``'s events, read where this provider reads its streams: on
        the stream thread when it owns its client (see
        :mod:`~desktop.providers.stream_thread`; its retry callback is then called on
        this loop), else here (an injected client is read on its own loop)."""
        if not self._owns_client:
            return source(Sending(on_retry=self._on_retry))
        on_retry = self._on_retry
        if on_retry is not None:
            on_retry = partial(call_on_loop, asyncio.get_running_loop(), on_retry)
        return relay(partial(source, Sending(on_retry=on_retry)), self._pace)

    # -- requests

    def _get_client(self) -> httpx.AsyncClient:
        if on_stream_thread() and self._owns_client:  # a client of the stream thread's loop
            if self._thread_client is None:
                self._thread_client = make_async_client(
                    timeout=self.timeout, proxy=self.proxy, wrap=WireTap,
                    network=LoopBackend(READ_PAUSE_S, pace=self._pace))  # (few large reads)
            return self._thread_client
        if self._client is None:
            self._client = make_async_client(timeout=self.timeout, proxy=self.proxy,
                                             wrap=WireTap)
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
        extensions: Mapping[str, Any] | None = None,
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
        request = self._get_client().build_request(
            method, url, content=content, headers=headers, timeout=self._timeout(timeout)
        )
        if extensions:
            request.extensions.update(extensions)
        return request

    async def _send(self, http_request: httpx.Request, sending: Sending | None = None
                    ) -> httpx.Response:
        """Send a streaming request with retries."""
        on_retry = sending.on_retry if sending is not None else self._on_retry
        return await send_with_retry(self._get_client(), http_request, self.retry,
                                     on_retry=on_retry)

    async def _get_json(
        self,
        path: str,
        params: Mapping[str, str] | None = None,
        body: dict[str, Any] | None = None,
        *,
        retry: RetryPolicy | None = None,
        timeout: float | None = None,
    ) -> Any:
        """The decoded JSON answer of a small GET (a POST with ``body``); ProviderError.

        The reply is read with a size limit (:mod:`desktop.providers.limits`); a
        non-2xx status, a transport failure or a reply that is not JSON is a
        ProviderError."""
        try:
            request = self._build_request("GET" if body is None else "POST", path, body,
                                          params, timeout=timeout)  # fmt: skip
            response = await send_with_retry(self._get_client(), request,
                                             retry or self.retry, on_retry=self._on_retry)
            try:  # read by hand: a reply of any size must not be held whole
                status = response.status_code
                if not 200 <= status < 300:
                    raw = await self._read_body(response)
                    message, error_code = self._status_message(response, raw)
                    detail, wait = server_detail(response, raw, self._secrets)
                    raise ProviderError(message, provider=self.name, status=status,
                                        server_code=error_code, detail=detail,
                                        retry_after=wait, retryable=is_retryable_status(status))
                raw = await read_limited(response, MAX_JSON_REPLY)
            finally:
                await response.aclose()
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            message, code = self._describe(exc, streaming=False)
            raise ProviderError(message, provider=self.name, server_code=code,
                                retryable=True) from None
        except ReplyTooLarge as exc:
            raise ProviderError(str(exc), provider=self.name,
                                server_code="reply_too_large") from None
        try:
            return json.loads(raw)
        except ValueError:
            where = f"{self.base_url}{self.path_prefix}{path}"
            raise ProviderError(f"{where} did not return JSON; check the base URL",
                                provider=self.name, code="bad_response") from None  # fmt: skip

    # -- the endpoint's other APIs (the Images API: desktop.providers.images_api)

    def error_event(self, message: str, code: str | None) -> ErrorEvent:
        """This provider's error event for ``message`` (worded like a stream's)."""
        return self._error_event(message, code)

    async def post_json(self, path: str, body: dict[str, Any], *, model: str | None,
                        timeout: float) -> Any:
        """POST ``body`` to ``path`` (with this provider's retries) and return the
        decoded JSON reply, read with the size limit; or the ErrorEvent saying why not
        (the status, transport and size errors worded as a stream's)."""
        try:
            http_request = self._build_request("POST", path, body, timeout=timeout)
            response = await self._send(http_request)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            return self._error_event(*self._describe(exc, streaming=False))
        try:
            if not 200 <= response.status_code < 300:
                return await self._status_error(response, model)
            try:
                return json.loads(await read_limited(response, MAX_JSON_REPLY, "reply"))
            except ReplyTooLarge as exc:
                return self._error_event(str(exc), "reply_too_large")
            except ValueError:
                return self._error_event("the server sent invalid JSON", "malformed_stream")
            except httpx.HTTPError as exc:
                return self._error_event(*self._describe(exc, streaming=True))
        finally:
            await response.aclose()

    async def download(self, url: str, limit: int, timeout: float) -> bytes | None:
        """The body of ``url`` on this provider's client, at most ``limit`` bytes
        (ReplyTooLarge past it; httpx errors raised); None when the server refuses."""
        client = self._get_client()
        async with client.stream("GET", url, timeout=self._timeout(timeout)) as reply:
            if not 200 <= reply.status_code < 300:
                return None
            return await read_limited(reply, limit, "download")

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
        try:
            async for chunk in chunks:
                body += chunk
                if len(body) >= ERROR_BODY_LIMIT:
                    break
        except httpx.HTTPError:
            pass  # whatever arrived is enough for a message
        finally:
            await drain(chunks, 0.0)
        return bytes(body)
