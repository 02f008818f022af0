"""What every HTTP adapter shares: settings, the client, redaction, error replies.

Each wire-API module (openai_chat, anthropic, gemini, ollama) subclasses
:class:`HttpProvider` and adds its request building and stream parsing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Self

import httpx

from desktop.core.errors import ProviderError
from desktop.core.events import ErrorEvent
from desktop.providers.http_errors import describe_status, describe_transport_error
from desktop.providers.http_stream import drain
from desktop.providers.retry import RetryPolicy, make_async_client, redact

CONNECT_TIMEOUT_S = 10.0
ERROR_BODY_LIMIT = 65536
SECRET_HEADER = re.compile(r"(?i)auth|key|token|secret|password|cookie")


class HttpProvider:
    supports_tools: bool = True
    supports_reasoning: bool = True

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        name: str,
        headers: Mapping[str, str] | None = None,
        timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        client: httpx.AsyncClient | None = None,
        on_retry: Callable[[int, float, str], None] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        """``on_retry(attempt, delay_s, reason)`` is called before each retry wait;
        an injected ``client`` is not closed by :meth:`aclose`."""
        self.name = name
        self.options = dict(options or {})
        self.base_url = base_url.strip().rstrip("/")
        self.timeout = timeout  # also the longest silence tolerated mid-stream
        self.retry = retry if retry is not None else RetryPolicy()
        self._api_key = api_key or None
        self._headers = dict(headers or {})
        self._client = client
        self._owns_client = client is None
        self._on_retry = on_retry
        secret_headers = (v for k, v in self._headers.items() if SECRET_HEADER.search(k))
        self._secrets = (self._api_key, *secret_headers)

    def __repr__(self) -> str:  # never shows the key
        return f"{type(self).__name__}(name={self.name!r}, base_url={self.base_url!r})"

    async def aclose(self) -> None:
        if self._owns_client and self._client is not None:
            client, self._client = self._client, None
            await client.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def _get_client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = make_async_client(timeout=self.timeout)
            self._owns_client = True
        return self._client

    def _timeout(self, seconds: float | None = None) -> httpx.Timeout:
        seconds = self.timeout if seconds is None else seconds
        return httpx.Timeout(seconds, connect=min(CONNECT_TIMEOUT_S, seconds))

    def _redact(self, text: str) -> str:
        return redact(text, self._secrets)

    def _describe(self, exc: Exception, *, streaming: bool) -> tuple[str, str]:
        message, code = describe_transport_error(
            exc, self.base_url, self.timeout, streaming=streaming
        )
        return self._redact(message), code

    def _status_message(self, response: httpx.Response, body: bytes) -> tuple[str, str | None]:
        status = response.status_code
        if 300 <= status < 400:
            location = response.headers.get("location", "?")
            return self._redact(f"unexpected redirect to {location}; check the base URL"), None
        content_type = response.headers.get("content-type", "")
        return describe_status(status, body, content_type, secrets=self._secrets)

    async def _status_error(self, response: httpx.Response) -> ErrorEvent:
        message, code = self._status_message(response, await self._read_body(response))
        status = response.status_code
        text = str(ProviderError(message, provider=self.name, status=status))
        return ErrorEvent(text, code=code, status=status, provider=self.name)

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
