"""Retry policy, HTTP client factory and secret redaction shared by every adapter.

Only the request phase is retried: connection errors, timeouts and retryable
statuses (408, 409, 429, 5xx) that happen before the first byte of the body.
Once a stream has started nothing is retried, so no text is ever duplicated.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import math
import random
import re
import time
import urllib.request
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx

from desktop.providers.tls import shared_context

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy

__all__ = [
    "RETRYABLE_EXCEPTIONS",
    "RetryPolicy",
    "is_retryable_status",
    "make_async_client",
    "make_client",
    "parse_retry_after",
    "redact",
    "send_with_retry",
]

log = logging.getLogger(__name__)

USER_AGENT = "AssistaDesktop/0.1"

#: Transport failures that mean "the request never got a response": safe to retry.
RETRYABLE_EXCEPTIONS: tuple[type[Exception], ...] = (
    httpx.TimeoutException,  # connect, read (before headers), write, pool
    httpx.NetworkError,  # connect refused/reset, read/write errors
    httpx.RemoteProtocolError,  # e.g. a stale keep-alive connection closed by the server
)


def is_retryable_status(status: int) -> bool:
    """408 timeout, 409 conflict/lock, 429 rate limit and every 5xx (incl. 529 overloaded)."""
    return status in (408, 409, 429) or 500 <= status <= 599


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Exponential backoff with full jitter; ``Retry-After`` wins when the server sends it.

    ``sleep`` and ``random`` are injectable so tests can record delays instead of
    waiting. ``RetryPolicy(max_retries=0)`` (or :meth:`disabled`) never retries.
    """

    max_retries: int = 4
    base_delay: float = 0.5
    max_delay: float = 30.0
    max_retry_after: float = 60.0
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, compare=False)
    random: Callable[[], float] = field(default=random.random, compare=False)

    @classmethod
    def disabled(cls) -> RetryPolicy:
        return cls(max_retries=0)

    def backoff(self, attempt: int) -> float:
        """Full jitter: uniform in [0, min(cap, base * 2**attempt)] (attempt counts from 0)."""
        ceiling = min(self.max_delay, self.base_delay * float(1 << min(attempt, 32)))
        return self.random() * ceiling

    def delay(self, attempt: int, headers: Mapping[str, str] | None = None) -> float:
        """Seconds to wait before retry number ``attempt + 1``."""
        if headers is not None:
            server_delay = parse_retry_after(headers)
            if server_delay is not None:
                return min(server_delay, self.max_retry_after)
        return self.backoff(attempt)


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds requested by ``retry-after-ms`` or ``Retry-After`` (seconds or HTTP-date)."""
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            value = float(raw_ms) / 1000.0
        except ValueError:
            value = -1.0
        if value >= 0 and not math.isnan(value):
            return value
    raw = headers.get("retry-after")
    if not raw:
        return None
    raw = raw.strip()
    try:
        seconds = float(raw)
    except ValueError:
        parsed = email.utils.parsedate_tz(raw)
        if parsed is None:
            return None
        seconds = email.utils.mktime_tz(parsed) - (time.time() if now is None else now)
    if math.isnan(seconds):
        return None
    return max(0.0, seconds)


async def send_with_retry(
    client: httpx.AsyncClient,
    request: httpx.Request,
    policy: RetryPolicy,
    *,
    stream: bool = True,
    on_retry: Callable[[int, float, str], None] | None = None,
) -> httpx.Response:
    """Send ``request``, retrying transport failures and retryable statuses.

    Returns the first non-retryable response, or the last response once retries
    are exhausted (its body unread when ``stream`` is true: the caller must close
    it). Raises the last transport exception if no response was ever received.
    ``on_retry(attempt, delay, reason)`` is called before each wait.
    """
    attempt = 0
    while True:
        try:
            response = await client.send(request, stream=stream)
        except RETRYABLE_EXCEPTIONS as exc:
            # A server that took the request and said nothing for the whole timeout is
            # not asked again: four more waits would keep the user ~10 minutes.
            if attempt >= policy.max_retries or isinstance(exc, httpx.ReadTimeout):
                raise
            reason = type(exc).__name__
            delay = policy.delay(attempt)
        else:
            if not is_retryable_status(response.status_code) or attempt >= policy.max_retries:
                return response
            reason = f"HTTP {response.status_code}"
            delay = policy.delay(attempt, response.headers)
            await response.aclose()
        log.info(
            "retrying %s in %.2fs (attempt %d): %s", request.url.path, delay, attempt + 1, reason
        )
        if on_retry is not None:
            on_retry(attempt, delay, reason)
        await policy.sleep(delay)
        attempt += 1


def make_async_client(
    *,
    timeout: float = 120.0,
    connect_timeout: float = 10.0,
    transport: httpx.AsyncBaseTransport | None = None,
    verify: bool = True,
    proxy: Proxy | None = None,
    wrap: Callable[[httpx.AsyncBaseTransport], httpx.AsyncBaseTransport] | None = None,
) -> httpx.AsyncClient:
    """An ``AsyncClient`` with sensible timeouts.

    ``timeout`` bounds each read (the longest silence tolerated mid-stream), writes
    and waiting for a pooled connection; connecting gets ``connect_timeout``. With a
    ``proxy`` the client goes through it (or directly, for its bypassed hosts) and
    ignores the process environment; without one it honours HTTP(S)_PROXY / NO_PROXY.
    ``wrap``: wraps its transports, the direct one and the proxy's. Not without a
    ``proxy`` when the environment names one: httpx routes through the environment's
    proxies only with the transports it makes itself (the app always gives a proxy).
    """
    options = _client_options(timeout, connect_timeout, verify, proxy, False)
    if wrap is not None and (proxy is not None or not urllib.request.getproxies()):
        transport = wrap(transport or httpx.AsyncHTTPTransport(
            verify=options["verify"], limits=options["limits"], trust_env=options["trust_env"]))
        mounts = options.get("mounts")
        if mounts:
            options["mounts"] = {k: v if v is None else wrap(v) for k, v in mounts.items()}
    return httpx.AsyncClient(transport=transport, **options)


def make_client(
    *,
    timeout: float = 120.0,
    connect_timeout: float = 10.0,
    verify: bool = True,
    proxy: Proxy | None = None,
    auth: httpx.Auth | None = None,
) -> httpx.Client:
    """The blocking twin of :func:`make_async_client` (sync runs in a worker thread):
    the same timeouts, TLS, user agent and proxy routing."""
    return httpx.Client(auth=auth,
                        **_client_options(timeout, connect_timeout, verify, proxy, True))


def _client_options(timeout: float, connect_timeout: float, verify: bool,
                    proxy: Proxy | None, blocking: bool) -> dict[str, Any]:
    routing: dict[str, Any] = {"trust_env": True}
    if proxy is not None:
        routing = proxy.client_kwargs(blocking=blocking)
    return {
        "timeout": httpx.Timeout(timeout, connect=min(connect_timeout, timeout)),
        "limits": httpx.Limits(max_connections=20, max_keepalive_connections=10),
        "headers": {"User-Agent": USER_AGENT},
        # (one CA bundle read per process, not one per client)
        "verify": shared_context(routing["trust_env"]) if verify else False,
        "follow_redirects": False,
        **routing,
    }


_REDACTIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    # A password in a URL (https://user:secret@host/...): the user name stays.
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@'\"]*:)[^/\s@'\"]+@"), r"\1***@"),
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{4,}"), r"\1 ***"),
    (
        re.compile(r"(?i)([?&;](?:api[_-]?key|key|token|access[_-]?token|auth|sig)=)[^&#\s\"']+"),
        r"\1***",
    ),
    (
        re.compile(r"(?i)\b((?:x-)?api[_-]?key[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9._~+/=-]{8,}"),
        r"\1***",
    ),
    # Well-known key shapes: OpenAI/OpenRouter/DeepSeek sk-..., Groq gsk_..., Google AIza...
    (re.compile(r"\b(sk|gsk|xai|pk|rk)([-_])[A-Za-z0-9_-]{8,}"), r"\1\2***"),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{20,}"), "AIza***"),
)


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with API keys, bearer tokens and ``key=`` query values masked.

    ``secrets`` are masked verbatim first (ignoring values shorter than 4 characters,
    which would mask innocent text), then generic key shapes are masked.
    """
    for secret in secrets:
        if secret and len(secret) >= 4 and secret in text:
            text = text.replace(secret, "***")
    for pattern, replacement in _REDACTIONS:
        text = pattern.sub(replacement, text)
    return text
