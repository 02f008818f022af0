"""Retry policy and secret redaction shared by every adapter (the clients come from
:mod:`desktop.providers.http_clients`).

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
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field

import httpx

from desktop.core.waits import scaled

__all__ = [
    "RETRYABLE_EXCEPTIONS",
    "RetryPolicy",
    "is_retryable_status",
    "parse_retry_after",
    "redact",
    "send_with_retry",
]

log = logging.getLogger(__name__)

#: Backoff before the first retry (doubling each time, with full jitter) and its cap.
BASE_DELAY_S = 0.5
MAX_DELAY_S = 30.0

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
    # (the app's backoff, or shorter: desktop.core.waits)
    base_delay: float = field(default_factory=lambda: scaled(BASE_DELAY_S))
    max_delay: float = field(default_factory=lambda: scaled(MAX_DELAY_S))
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
