"""What the request inspector records of one model request, and how secrets leave it.

The provider layer captures an exchange (the request as sent, the response status
and headers, each raw chunk with its arrival time, retries, timings) into these
plain records and hands them, in batches, to an :class:`ExchangeWriter` that stores
them off the event loop. Redaction happens in the writer, not on the per-token path:
credential headers (by name or by the look of their value), passwords and keys in
URLs, and every known secret value wherever it appears become :data:`REDACTED`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, Protocol
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

import msgspec

__all__ = [
    "REDACTED",
    "CaptureBatch",
    "ExchangeHead",
    "ExchangeRecording",
    "ExchangeTail",
    "ExchangeWriter",
    "RetryRecord",
    "redact_headers",
    "redact_text",
    "redact_url",
    "secret_values",
]

REDACTED = "«redacted»"

#: Header names that carry credentials (Authorization, x-api-key, x-goog-api-key,
#: api-key, cookies, MCP and proxy tokens, ...).
CREDENTIAL_NAME = re.compile(r"(?i)auth|key|token(?!s)|secret|password|passwd|cookie|session|"
                             r"credential|signature")  # (x-ratelimit-remaining-tokens: a count)
#: Header values that look like credentials whatever the header is called.
CREDENTIAL_VALUE = re.compile(
    r"(?i)^(?:bearer|basic|digest|token)\s+\S"
    r"|\b(?:sk|gsk|xai|pk|rk)[-_][A-Za-z0-9_-]{8,}|\bsk-ant-|\bAIza[0-9A-Za-z_-]{20,}"
    r"|\beyJ[A-Za-z0-9_-]{10,}\.")
#: Query parameters that carry credentials (Gemini's ``?key=``, ``access_token``, ...).
CREDENTIAL_PARAM = re.compile(r"(?i)^(?:key|api[_-]?key|token|access[_-]?token|auth|sig|"
                              r"signature|secret|password|client[_-]?secret|code)$")
_SCHEME = re.compile(r"(?i)^(bearer|basic|digest|token)\s+")
MIN_SECRET = 4


def secret_values(values: Iterable[str | None]) -> tuple[str, ...]:
    """The values to hide: each one, and the credential inside an auth header value
    (``Bearer tok`` -> ``tok`` too: the token can show up on its own)."""
    found: set[str] = set()
    for value in values:
        if not value:
            continue
        found.add(value)
        scheme = _SCHEME.match(value)
        if scheme:
            found.add(value[scheme.end():].strip())
    return tuple(v for v in found if len(v) >= MIN_SECRET)


def redact_text(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every known secret value (4 characters or more) replaced."""
    for secret in sorted({s for s in secrets if s and len(s) >= MIN_SECRET}, key=len,
                         reverse=True):
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def redact_headers(headers: Iterable[tuple[str, str]],
                   secrets: Iterable[str] = ()) -> list[tuple[str, str]]:
    """Credential headers keep their name (and an auth scheme such as ``Bearer``)."""
    known = tuple(secrets)
    out: list[tuple[str, str]] = []
    for name, raw in headers:
        if CREDENTIAL_NAME.search(name) or CREDENTIAL_VALUE.search(raw):
            scheme = _SCHEME.match(raw)
            value = f"{scheme.group(1)} {REDACTED}" if scheme else REDACTED
        else:
            value = redact_text(raw, known)
        out.append((name, value))
    return out


def redact_url(url: str, secrets: Iterable[str] = ()) -> str:
    """A password in the URL and credential query parameters replaced."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:{REDACTED}@{host}" if ":" in userinfo else f"{REDACTED}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = "&".join(
            f"{quote(k, safe='')}={REDACTED if CREDENTIAL_PARAM.match(k) else quote(v, safe='')}"
            for k, v in pairs)
    return redact_text(urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)),
                       secrets)


class RetryRecord(msgspec.Struct, frozen=True):
    """One retry of a request: after which attempt, how long after its answer, and why."""

    at_s: float  # since the request started
    attempt: int
    delay_s: float
    reason: str


class ExchangeHead(msgspec.Struct):
    """The request as sent (not yet redacted: the writer does that)."""

    id: str
    started_at: float  # wall clock, seconds since the epoch
    provider: str
    provider_id: str | None
    kind: str
    model: str
    session_id: str | None
    message_id: str | None
    method: str = "POST"
    url: str = ""
    headers: list[tuple[str, str]] = msgspec.field(default_factory=list)
    body: bytes = b""
    # The provider-neutral request (messages, system, tools, options) for Replay; a
    # function making it is called by the writer, off the event loop.
    chat_request: dict[str, Any] | Callable[[], dict[str, Any]] | None = None


class ExchangeTail(msgspec.Struct):
    """How it ended; times in seconds since the request started (None: never)."""

    status: int | None = None
    headers: list[tuple[str, str]] = msgspec.field(default_factory=list)
    retries: list[RetryRecord] = msgspec.field(default_factory=list)
    headers_s: float | None = None
    first_token_s: float | None = None
    last_token_s: float | None = None
    end_s: float | None = None
    output_tokens: int | None = None
    tokens_estimated: bool = False
    answer_text: str = ""
    error: str | None = None

    @property
    def tokens_per_s(self) -> float | None:
        if not self.output_tokens or self.first_token_s is None or self.last_token_s is None:
            return None
        span = self.last_token_s - self.first_token_s
        return self.output_tokens / span if span > 0 else None


class CaptureBatch(msgspec.Struct):
    """What one flush hands the writer: the head (first batch), raw chunks as
    ``(seconds since start, bytes)`` with their running number, the tail (last)."""

    exchange_id: str
    secrets: tuple[str, ...]
    head: ExchangeHead | None = None
    first_seq: int = 0
    chunks: list[tuple[float, bytes]] = msgspec.field(default_factory=list)
    tail: ExchangeTail | None = None


class ExchangeWriter(Protocol):
    def write(self, batch: CaptureBatch) -> None:
        """Take a batch for storing later; must not block (called on the event loop)."""
        ...

    def known_secrets(self) -> Iterable[str]:
        """Secret values the app knows besides the provider's (keys, MCP tokens)."""
        ...


class ExchangeRecording(msgspec.Struct, frozen=True):
    """Given to a provider: where its exchanges go and what to call them."""

    writer: ExchangeWriter
    kind: str
    provider_id: str | None = None
