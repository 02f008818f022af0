"""The closed set of error codes a user can meet, and how a failure gets one.

An error carries a ``code`` from this set and ``params`` (the provider's name, the
HTTP status, the model, the server's own ``detail`` kept verbatim as data...). The
window words it by code in the user's language (``desktop/ui/error_text.py``); the
CLI and the log print the English one-liner. A code the window does not know is shown
with that English text.

Qt-free: the providers, the agent loop and the chat service use it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from desktop.core.messages import Message

__all__ = ["ERROR_KEY", "PROVIDER_CODES", "TRANSPORT_CODES", "ErrorInfo", "provider_failure",
           "retry_failure", "stored_error", "unexpected"]

#: ``provider_data`` key of a failed message: its error's code + params (no provider
#: reads it back; a row stored before it has only the English ``error`` text).
ERROR_KEY = "error_info"

#: Every code a provider failure gets (the window has a sentence for each).
PROVIDER_CODES = frozenset({
    "auth_failed",  # 401: the key is wrong or missing
    "forbidden",  # 403: the key lacks access
    "not_found",  # 404: wrong base URL or path
    "model_not_found",  # 404 naming the model
    "rate_limited",  # 429 (retry_after: seconds the server asked to wait)
    "quota",  # 402, or a 429 that says the credit or quota is used up
    "context_too_long",  # the conversation does not fit the model's context
    "bad_request",  # another 4xx: the server refused the request
    "server_error",  # 5xx (529 overloaded, 503 unavailable...)
    "unreachable",  # could not connect (refused, DNS, TLS, proxy)
    "timeout",  # no answer in time, or the stream stalled
    "stream_dropped",  # the connection broke mid-answer
    "bad_response",  # not JSON, a web page, a malformed stream, a redirect
    "reply_too_large",  # the reply passed the size limit
    "invalid_url",  # the base URL cannot be used
    "provider_reported",  # the provider reported an error inside the stream
    "unexpected",  # a bug or an unforeseen failure
})

#: Raw codes of our transport descriptions (desktop/providers/http_errors.py).
_TRANSPORT = {"timeout": "timeout", "connection_error": "unreachable",
              "proxy_error": "unreachable", "invalid_url": "invalid_url",
              "stream_interrupted": "stream_dropped", "malformed_stream": "bad_response",
              "unexpected_content": "bad_response", "reply_too_large": "reply_too_large",
              "internal_error": "unexpected"}

#: Raw codes whose message is our own English sentence, not the server's words.
TRANSPORT_CODES = frozenset(_TRANSPORT)

_QUOTA = re.compile(r"(?i)quota|billing|credit|insufficient_|payment")
_CONTEXT = re.compile(r"(?i)context.{0,3}length|context window|maximum context|too many tokens"
                      r"|prompt is too long|context_length|input.{0,10}too long")
_RATE = re.compile(r"(?i)rate.?limit|too many requests|resource_exhausted|^429$")
_OVERLOAD = re.compile(r"(?i)overload|server_error|api_error|internal|unavailable|^5\d\d$")
_MODEL = re.compile(r"(?i)model")


class ErrorInfo(NamedTuple):
    """What a failure is (``code``) and its data (``params``): stored and passed on
    beside the English sentence, so it can be worded in another language later. (A
    named tuple: ``desktop.core.errors`` loads before the window's first frame, where
    the dataclasses module does not yet.)"""

    code: str
    params: Mapping[str, Any] = MappingProxyType({})

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "params": dict(self.params)}

    @classmethod
    def from_json(cls, data: object) -> ErrorInfo | None:
        """The info stored by :meth:`to_json`; None for anything else (an old row)."""
        if not isinstance(data, dict) or not isinstance(data.get("code"), str):
            return None
        params = data.get("params")
        return cls(data["code"], dict(params) if isinstance(params, dict) else {})


def provider_failure(
    raw_code: str | None,
    status: int | None,
    *,
    provider: str | None = None,
    model: str | None = None,
    detail: str | None = None,
    retry_after: float | None = None,
    url: str | None = None,
) -> ErrorInfo:
    """The closed code and params of a provider failure: ``raw_code`` is the server's
    own code (or our transport code), ``detail`` the server's message as it came."""
    code = _code(raw_code, status, detail or "")
    params: dict[str, Any] = {"provider": provider or "provider", "status": status,
                              "model": model, "detail": detail or None,
                              "retry_after": None if retry_after is None or retry_after < 1
                              else round(retry_after), "url": url}
    return ErrorInfo(code, {k: v for k, v in params.items() if v is not None})


_BY_STATUS = {401: "auth_failed", 402: "quota", 403: "forbidden", 408: "timeout",
              429: "rate_limited"}


def _code(raw: str | None, status: int | None, detail: str) -> str:
    raw = raw or ""
    said = f"{raw} {detail}"
    if status is None:
        return _stream_code(raw, said)
    if status == 404:
        return "model_not_found" if _MODEL.search(said) else "not_found"
    if status == 429 and _QUOTA.search(said):
        return "quota"
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    if 400 <= status < 500:
        return "context_too_long" if _CONTEXT.search(said) else "bad_request"
    return "server_error" if status >= 500 else "bad_response"  # (3xx: a redirect)


def _stream_code(raw: str, said: str) -> str:
    """The code of a failure with no HTTP status: ours, or reported in the stream."""
    if raw in _TRANSPORT:
        return _TRANSPORT[raw]
    if not said.strip():
        return "bad_response"  # (an answer that is not what was expected)
    for pattern, code in ((_CONTEXT, "context_too_long"), (_QUOTA, "quota"),
                          (_RATE, "rate_limited"), (_OVERLOAD, "server_error")):
        if pattern.search(said if pattern is _CONTEXT else raw):
            return code
    return "provider_reported"


def retry_failure(reason: str, provider: str | None = None) -> ErrorInfo:
    """The code of a retry's reason (``"HTTP 429"``, or a transport exception's name)."""
    if reason.startswith("HTTP ") and reason[5:].isdigit():
        return provider_failure(None, int(reason[5:]), provider=provider)
    timeout = "Timeout" in reason
    return ErrorInfo("timeout" if timeout else "unreachable",
                     {"provider": provider or "provider", "detail": reason})


def unexpected(exc: BaseException) -> tuple[str, ErrorInfo]:
    """The English text and the info of a failure nobody foresaw (a bug)."""
    return f"Unexpected error: {exc}", ErrorInfo("unexpected", {"detail": str(exc)})


def stored_error(message: Message) -> ErrorInfo | None:
    """The code + params stored with a failed message (None: an older row, or none)."""
    return ErrorInfo.from_json(message.provider_data.get(ERROR_KEY))
