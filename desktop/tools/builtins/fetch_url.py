"""fetch_url: the readable text of a web page (http and https only), size capped.

Requests go through the proxy the executor hands over in :class:`ToolContext`
(the app's Preferences; SOCKS through httpx[socks]); without one, httpx reads the
proxy variables of the environment. At most :data:`MAX_DOWNLOAD_BYTES` are
read; non-text content (images, PDFs, archives...) is refused without being
downloaded. HTML is turned into plain text (see :mod:`._html`). Local, private and
other non-public addresses are refused unless the user allows the host (see
:mod:`._netguard`); redirects are followed on the approved host only.
"""

from __future__ import annotations

import codecs
import copy
import os
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

import httpx

from desktop import __version__
from desktop.core.errors import ToolError
from desktop.core.proxy import Proxy
from desktop.providers.http_clients import make_async_client
from desktop.tools import builtins as builtin_tools
from desktop.tools.approval import ApprovalPreview
from desktop.tools.builtins._common import kib
from desktop.tools.builtins._netguard import (
    AllowList,
    BlockedAddress,
    guarded_transport,
    literal_refusal,
)
from desktop.tools.errors import ToolFailure
from desktop.tools.registry import Tool, ToolContext

if TYPE_CHECKING:  # imported by the first fetch: the app starts sooner without it
    import httpx

NAME = "fetch_url"
TITLE = "Fetch web page"  # shown to people (translated in the window)
MAX_DOWNLOAD_BYTES = 5 * 1024 * 1024
DEFAULT_MAX_CHARS = 50_000
MAX_CHARS = 200_000
MAX_REDIRECTS = 5
_TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/ecmascript",
        "application/x-javascript",
        "application/x-yaml",
        "application/yaml",
        "application/toml",
        "application/x-sh",
        "application/sql",
        "application/graphql",
        "application/xhtml+xml",
        "application/rss+xml",
        "application/atom+xml",
        "application/ld+json",
    }
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)

DESCRIPTION = (
    "Fetch a web page (http or https) and return its readable text: HTML is converted to "
    "plain text with headings, lists and link targets; JSON, XML and other text is returned "
    "as is. Images, PDFs and other binary content are refused. Output is capped at "
    "max_chars (the result says truncated=true); set raw=true for the HTML source."
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "minLength": 1, "description": "An http:// or https:// URL."},
        "max_chars": {
            "type": "integer",
            "minimum": 500,
            "maximum": MAX_CHARS,
            "default": DEFAULT_MAX_CHARS,
            "description": "Maximum characters of text to return.",
        },
        "raw": {
            "type": "boolean",
            "default": False,
            "description": "Return HTML source instead of converting it to text.",
        },
    },
    "required": ["url"],
    "additionalProperties": False,
}


def fetch_url_tool() -> Tool:
    return Tool(
        deferred_check=True,  # a constant schema (the tests check it)
        name=NAME, title=TITLE,
        scope="host",
        description=DESCRIPTION,
        parameters=copy.deepcopy(PARAMETERS),
        handler=_handle,
        read_only=True,
        default_policy="ask",  # it reaches the network, and a URL can carry data out
        preview=_preview,
    )


def check_url(url: str) -> str:
    """The URL stripped, if it is http(s) with a host; ToolError ``invalid_url`` otherwise."""
    cleaned = url.strip()
    try:
        parts = urlsplit(cleaned)
    except ValueError:
        parts = None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ToolError(
            f"'{url[:200]}' is not an http:// or https:// URL; only web pages can be fetched.",
            code="invalid_url",
        )
    return cleaned


async def _preview(args: dict[str, Any], ctx: ToolContext) -> ApprovalPreview:
    url = check_url(args["url"])
    refusal = literal_refusal(urlsplit(url).hostname or "", AllowList(ctx.trust.fetch_allow_hosts))
    if refusal is not None:  # refused anyway: the model is told without asking the user
        raise ToolError(str(refusal), code="blocked_address")
    return ApprovalPreview.titled("url", url, "fetch", host=urlsplit(url).hostname or "")


def is_text_type(media_type: str) -> bool:
    return (
        media_type.startswith("text/")
        or media_type in _TEXT_TYPES
        or media_type.endswith(("+json", "+xml"))
    )


def _charset(response: httpx.Response, head: bytes, is_html: bool) -> str:
    candidates = [response.charset_encoding]
    if is_html:
        match = _META_CHARSET.search(head[:4096])
        candidates.append(match.group(1).decode("ascii") if match else None)
    for name in candidates:
        if not name:
            continue
        try:
            return codecs.lookup(name).name
        except LookupError:
            continue
    return "utf-8"


async def _handle(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    url = check_url(args["url"])
    max_chars = min(
        int(args.get("max_chars", DEFAULT_MAX_CHARS)), max(ctx.result_budget - 2_000, 500)
    )
    headers = {
        "User-Agent": f"AssistaDesktop/{__version__} (fetch_url)",
        "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,"
        "*/*;q=0.5",
    }
    allow = AllowList(ctx.trust.fetch_allow_hosts)
    # With a transport of our own httpx ignores the proxy variables: read them here.
    proxy = ctx.proxy or Proxy.from_settings("", "", os.environ)
    try:
        async with make_async_client(
            proxy=proxy,
            transport=guarded_transport(allow),  # direct connections: checked address
            follow_redirects=False,  # each hop is checked and must stay on the approved host
            timeout=30.0, connect_timeout=15.0,
            headers=headers,
        ) as client:
            return await _follow(client, url, allow, max_chars, bool(args.get("raw", False)))
    except BlockedAddress as exc:
        raise ToolError(str(exc), code="blocked_address") from None
    except httpx.ProxyError as exc:
        raise ToolError(
            f"The proxy refused or failed the request: {exc}", code="network_error"
        ) from None
    except httpx.TimeoutException:
        raise ToolError(f"{url} did not answer in time.", code="timeout") from None
    except httpx.HTTPError as exc:
        raise ToolError(
            f"Could not fetch {url}: {exc or type(exc).__name__}.", code="network_error"
        ) from None
    except OSError as exc:  # the name did not resolve
        raise ToolError(f"Could not fetch {url}: {exc}.", code="network_error") from None


async def _follow(client: httpx.AsyncClient, url: str, allow: AllowList, max_chars: int,
                  raw: bool) -> dict[str, Any]:
    """GET ``url``, following redirects on the approved host only, every hop checked.

    The user approved a URL, not wherever its server sends the request: a redirect to
    another host is reported to the model (which may call fetch_url again, asking the
    user again) instead of being followed."""
    approved_host = urlsplit(url).hostname or ""
    current = url
    for _hop in range(MAX_REDIRECTS + 1):
        refusal = literal_refusal(urlsplit(current).hostname or "", allow)
        if refusal is not None:  # the only check possible when a proxy resolves names
            raise refusal
        async with client.stream("GET", current) as response:
            location = response.headers.get("location")
            if not (response.is_redirect and location):
                return await _read(response, url, max_chars, raw)
        target = urljoin(current, location)
        parts = urlsplit(target)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise ToolError(f"{current} redirected to a URL that is not http(s).",
                            code="invalid_url")
        if parts.hostname.lower().rstrip(".") != approved_host.lower().rstrip("."):
            raise ToolFailure(
                f"{current} redirects to another host: {target}. It was not followed, "
                "since the user approved only the first host; call fetch_url with that URL "
                "if it is needed.",
                code="redirect_to_other_host",
                extra={"redirect_to": target},
            )
        current = target
    raise ToolError(f"{url} redirected more than {MAX_REDIRECTS} times.", code="http_error")


async def _read(response: httpx.Response, url: str, max_chars: int, raw: bool) -> dict[str, Any]:
    media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type and not is_text_type(media_type):
        raise ToolError(
            f"{url} returned {media_type} content, which is not text; fetch_url only returns "
            "text (HTML, plain text, JSON, XML).",
            code="not_text",
        )
    data = bytearray()
    truncated_bytes = False
    async for chunk in response.aiter_bytes():
        data += chunk
        if len(data) > MAX_DOWNLOAD_BYTES:
            del data[MAX_DOWNLOAD_BYTES:]
            truncated_bytes = True
            break
    if not media_type and b"\x00" in data[:8192]:
        raise ToolError(f"{url} returned binary content, not text.", code="not_text")
    is_html = media_type in ("text/html", "application/xhtml+xml") or (
        not media_type and data[:1024].lstrip().lower().startswith((b"<!doctype html", b"<html"))
    )
    body = bytes(data).decode(_charset(response, bytes(data), is_html), errors="replace")
    title = ""
    text = body
    if is_html and not raw:
        title, text = builtin_tools.html_to_text(body, str(response.url))
    result: dict[str, Any] = {
        "url": url,
        "final_url": str(response.url),
        "status": response.status_code,
        "content_type": media_type or None,
    }
    if title:
        result["title"] = title
    notes: list[str] = []
    if truncated_bytes:
        notes.append(f"Only the first {kib(MAX_DOWNLOAD_BYTES)} of the page were downloaded.")
    if len(text) > max_chars:
        notes.append(f"The text was cut at {max_chars} characters (of {len(text)}).")
        text = text[:max_chars]
    result["text"] = text
    result["truncated"] = bool(notes)
    if notes:
        result["note"] = " ".join(notes)
    if response.status_code >= 400:
        raise ToolFailure(
            f"{url} answered HTTP {response.status_code} {response.reason_phrase}.",
            code="http_error",
            extra={"status": response.status_code, "text": text[:2_000]},
        )
    return result
