"""web_search: the model searches the web through the search service the user chose
in Settings (for providers without a search of their own; see
:mod:`desktop.providers.web_search`).

Three services, one result shape (``title``, ``url``, ``snippet``, which become the
answer's numbered sources):

* SearXNG: ``GET {url}/search?q=...&format=json`` (the instance must allow the json
  format in its settings.yml); results in ``results[].title/url/content``;
* Brave Search API: ``GET https://api.search.brave.com/res/v1/web/search?q=...&count=N``
  with the key in ``X-Subscription-Token``; results in ``web.results[].title/url/description``;
* Tavily: ``POST https://api.tavily.com/search`` with ``{"query", "max_results"}`` and
  ``Authorization: Bearer KEY``; results in ``results[].title/url/content``.

The service's address was set by the user, not by the model, so a SearXNG on this
computer or the local network is fine (unlike ``fetch_url``'s addresses).
"""

from __future__ import annotations

import os
from typing import Any, Literal

import httpx
import msgspec

from desktop.core.errors import ToolError
from desktop.core.proxy import Proxy
from desktop.providers.http_clients import make_async_client
from desktop.tools.registry import Tool, ToolContext

NAME = "web_search"
TITLE = "Search the web"  # shown to people (translated in the window)
DEFAULT_COUNT = 6
MAX_COUNT = 20
MAX_REPLY_BYTES = 4 * 1024 * 1024
SNIPPET_CHARS = 500
BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"
TAVILY_URL = "https://api.tavily.com/search"

Service = Literal["searxng", "brave", "tavily"]
SERVICE_NAMES: dict[str, str] = {"searxng": "SearXNG", "brave": "Brave Search",
                                 "tavily": "Tavily"}


class WebSearchConfig(msgspec.Struct, frozen=True):
    """The user's search service: ``url`` is SearXNG's address (required) or another
    address for Brave's or Tavily's API (empty: theirs)."""

    service: Service
    url: str = ""
    api_key: str | None = None

    def problem(self) -> str | None:
        """Why this configuration cannot search (None: it can)."""
        if self.service == "searxng" and not self.url.strip():
            return "Web search via SearXNG needs the instance's address (Settings)."
        if self.service in ("brave", "tavily") and not self.api_key:
            return (f"Web search via {SERVICE_NAMES[self.service]} needs an API key "
                    "(Settings).")
        return None


def _parameters() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": "What to search for."},
            "count": {"type": "integer", "minimum": 1, "maximum": MAX_COUNT,
                      "default": DEFAULT_COUNT, "description": "How many results."},
        },
        "required": ["query"],
        "additionalProperties": False,
    }


def _text(value: Any, limit: int = SNIPPET_CHARS) -> str:
    return " ".join(str(value).split())[:limit] if isinstance(value, str) else ""


def _results(service: Service, data: Any) -> list[dict[str, str]]:
    if not isinstance(data, dict):
        raise ToolError("The search service sent something that is not a JSON object.")
    if service == "brave":
        web = data.get("web")
        items = web.get("results") if isinstance(web, dict) else []
        snippet_key = "description"
    else:
        items = data.get("results")
        snippet_key = "content"
    out: list[dict[str, str]] = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("url"), str):
            out.append({"title": _text(item.get("title"), 300) or item["url"],
                        "url": item["url"], "snippet": _text(item.get(snippet_key))})
    return out


def _request(config: WebSearchConfig, query: str, count: int) -> tuple[str, str, dict[str, Any]]:
    """Method, URL and httpx keyword arguments of one search."""
    if config.service == "searxng":
        base = config.url.strip().rstrip("/")
        url = base if base.endswith("/search") else f"{base}/search"
        return "GET", url, {"params": {"q": query, "format": "json"}}
    if config.service == "brave":
        return "GET", config.url.strip() or BRAVE_URL, {
            "params": {"q": query, "count": count},
            "headers": {"Accept": "application/json",
                        "X-Subscription-Token": config.api_key or ""}}
    return "POST", config.url.strip() or TAVILY_URL, {
        "json": {"query": query, "max_results": count},
        "headers": {"Authorization": f"Bearer {config.api_key or ''}"}}


async def search_web(config: WebSearchConfig, query: str, count: int = DEFAULT_COUNT,
                     proxy: Proxy | None = None) -> list[dict[str, str]]:
    """The service's results for ``query`` (at most ``count``); ToolError with a
    sentence for the model (and the tool panel) when the search fails."""
    problem = config.problem()
    if problem is not None:
        raise ToolError(problem)
    method, url, kwargs = _request(config, query, count)
    name = SERVICE_NAMES[config.service]
    route = proxy or Proxy.from_settings("", "", os.environ)
    try:
        async with (make_async_client(proxy=route, timeout=30.0, connect_timeout=15.0)
                    as client,
                    client.stream(method, url, **kwargs) as response):
            body = b""
            async for block in response.aiter_bytes():
                body += block
                if len(body) > MAX_REPLY_BYTES:
                    raise ToolError(f"{name} sent more than 4 MB; search stopped.")
    except httpx.HTTPError as exc:
        raise ToolError(f"{name} could not be reached: {exc}") from None
    if response.status_code in (401, 403) and config.service != "searxng":
        raise ToolError(f"{name} refused the API key (HTTP {response.status_code}).")
    if response.status_code >= 400:
        hint = (" (is format=json allowed in the instance's settings.yml?)"
                if config.service == "searxng" and response.status_code == 403 else "")
        raise ToolError(f"{name} answered HTTP {response.status_code}{hint}.")
    try:
        data = httpx.Response(200, content=body).json()
    except ValueError:
        raise ToolError(f"{name} did not answer JSON; is {url} the right address?") from None
    return _results(config.service, data)[:count]


def web_search_tool(config: WebSearchConfig) -> Tool:
    async def handle(args: dict[str, Any], ctx: ToolContext) -> Any:
        query = str(args["query"]).strip()
        count = int(args.get("count", DEFAULT_COUNT))
        found = await search_web(config, query, count, ctx.proxy)
        return {"query": query, "service": SERVICE_NAMES[config.service],
                "results": [{"n": n, **item} for n, item in enumerate(found, start=1)]}

    return Tool(
        name=NAME, title=TITLE,
        description=("Search the web; returns the best results first, each with its title, "
                     "URL and a snippet. Cite the URLs you use."),
        parameters=_parameters(),
        handler=handle,
        read_only=True,
        default_policy="allow",
        deferred_check=True,  # a constant schema (the tests check it)
    )
