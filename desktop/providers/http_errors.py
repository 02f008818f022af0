"""Turning failed HTTP exchanges into short, user-readable messages.

Shared by every adapter: error bodies come as OpenAI-style JSON, other JSON
dialects (FastAPI ``detail``, Gemini's list form, OpenRouter's ``metadata.raw``),
or an HTML page from a proxy. Transport exceptions get a plain sentence too.
Every message passes through :func:`~desktop.providers.retry.redact`.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import httpx

from desktop.providers.retry import parse_retry_after, redact

__all__ = ["describe_error_body", "describe_status", "describe_transport_error",
           "server_detail"]

SNIPPET_CHARS = 200

_TITLE = re.compile(r"(?is)<title[^>]*>(.*?)</title>")
_DROP = re.compile(r"(?is)<(script|style|head)[^>]*>.*?</\1>")
_TAG = re.compile(r"(?s)<[^>]+>")
_SPACE = re.compile(r"\s+")


def _shorten(text: str, limit: int = SNIPPET_CHARS) -> str:
    text = _SPACE.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _html_snippet(text: str) -> str:
    title = _TITLE.search(text)
    body = _TAG.sub(" ", _DROP.sub(" ", text))
    body = html.unescape(_SPACE.sub(" ", body)).strip()
    if title:
        heading = html.unescape(_SPACE.sub(" ", title.group(1))).strip()
        if heading and not body.startswith(heading):
            return _shorten(f"{heading}: {body}" if body else heading)
    return _shorten(body)


def _code_of(value: Any) -> str | None:
    if value is None or value == "":
        return None
    return str(value)


def _from_json(data: Any) -> tuple[str | None, str | None]:
    """(message, code) from a decoded JSON error body, or (None, None)."""
    if isinstance(data, list) and data:
        data = data[0]
    if not isinstance(data, dict):
        return None, None
    error = data.get("error")
    if isinstance(error, dict):
        message = error.get("message") or error.get("msg")
        code = _code_of(error.get("code")) or _code_of(error.get("type"))
        metadata = error.get("metadata")
        raw = metadata.get("raw") if isinstance(metadata, dict) else None
        if isinstance(raw, str) and raw.strip():
            extra = _from_json_text(raw)[0] or raw
            message = f"{message}: {extra}" if message else extra
        if isinstance(message, str) and message.strip():
            return message, code
        return None, code
    if isinstance(error, str) and error.strip():
        return error, _code_of(data.get("code") or data.get("type"))
    for key in ("message", "detail", "msg"):
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value, _code_of(data.get("code") or data.get("type"))
        if isinstance(value, list) and value and isinstance(value[0], dict):
            message = value[0].get("msg") or value[0].get("message")  # FastAPI validation
            if isinstance(message, str):
                return message, None
    return None, None


def _from_json_text(text: str) -> tuple[str | None, str | None]:
    try:
        return _from_json(json.loads(text))
    except ValueError:
        return None, None


def describe_error_body(
    body: bytes, content_type: str = "", *, secrets: tuple[str | None, ...] = ()
) -> tuple[str, str | None]:
    """``(message, code)`` for an error response body; ``message`` may be empty."""
    text = body[:65536].decode("utf-8", "replace").strip()
    if not text:
        return "", None
    message, code = _from_json_text(text)
    if message is None:
        looks_html = "html" in content_type.lower() or text.lstrip().startswith("<")
        message = _html_snippet(text) if looks_html else text
    return redact(_shorten(message, 400), secrets), code


def server_detail(
    response: httpx.Response, body: bytes, secrets: tuple[str | None, ...] = ()
) -> tuple[str | None, float | None]:
    """``(the server's own message, the seconds it asks to wait)`` of a non-2xx reply:
    kept as data beside the error's code (None when it said nothing)."""
    if 300 <= response.status_code < 400:
        return None, None
    content_type = response.headers.get("content-type", "")
    message, _ = describe_error_body(body, content_type, secrets=secrets)
    wait = parse_retry_after(response.headers) if response.status_code in (429, 503) else None
    return message or None, wait


_HINTS = {
    401: "check the API key",
    403: "the API key may lack access to this model or endpoint",
    404: "check the base URL and the model name",
    429: "rate limited; try again later",
    502: "the server or a proxy in front of it failed",
    503: "the service is unavailable or overloaded",
}


def describe_status(
    status: int, body: bytes, content_type: str = "", *, secrets: tuple[str | None, ...] = ()
) -> tuple[str, str | None]:
    """A one-line ``(message, code)`` for a non-2xx response (no provider prefix)."""
    message, code = describe_error_body(body, content_type, secrets=secrets)
    hint = _HINTS.get(status)
    if not message:
        phrase = httpx.codes.get_reason_phrase(status) or "error"
        message = f"{phrase} ({hint})" if hint else phrase
    elif hint and status in (401, 404) and not message.endswith(")"):
        message = f"{message} ({hint})"
    return message, code


def describe_transport_error(
    exc: Exception, url: str, timeout: float | None = None, *, streaming: bool = False
) -> tuple[str, str]:
    """``(message, code)`` for an ``httpx`` transport failure talking to ``url``."""
    detail = str(exc).strip() or type(exc).__name__
    if isinstance(exc, httpx.ConnectTimeout):
        return f"timed out connecting to {url}", "timeout"
    if isinstance(exc, httpx.ReadTimeout):
        wait = f" for {timeout:g} s" if timeout else ""
        if streaming:
            return f"the stream stalled: no data received{wait}", "timeout"
        return f"no response from {url}{wait}", "timeout"
    if isinstance(exc, httpx.TimeoutException):
        return f"request to {url} timed out ({detail})", "timeout"
    if isinstance(exc, httpx.ProxyError):
        return f"proxy error: {detail} (check HTTPS_PROXY / NO_PROXY)", "proxy_error"
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return f"invalid base URL {url!r}: {detail}", "invalid_url"
    if streaming:
        if isinstance(exc, httpx.RemoteProtocolError):
            detail = "the server closed the connection before the response was complete"
        return f"the stream ended unexpectedly: {detail}", "stream_interrupted"
    if isinstance(exc, httpx.ConnectError):
        return f"could not connect to {url} ({detail}); is the server running?", (
            "connection_error"
        )
    return f"network error talking to {url}: {detail}", "connection_error"
