"""Searching and reading for a research run: the web (the search service of Settings,
pages read with ``fetch_url``) and the chat's knowledge bases (``search_knowledge``).

Each page read or passage found becomes a :class:`Finding`, numbered in the order it
came: that number is the report's citation ``[n]``. The tools' own handlers do the
work, with the app's proxy and the user's trust settings (a private or local address
is read only when the user allowed its host for ``fetch_url``). Starting a research
run is the user's go-ahead to read the pages its searches find.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from desktop.core.errors import ToolError
from desktop.core.messages import Source
from desktop.tools.builtins.fetch_url import fetch_url_tool
from desktop.tools.builtins.web_search import search_web
from desktop.tools.registry import ToolContext

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy
    from desktop.tools.builtins.web_search import WebSearchConfig
    from desktop.tools.registry import Tool
    from desktop.tools.trust import ToolTrust

log = logging.getLogger(__name__)

#: Characters of a page kept for the report (its start: the most telling part).
PAGE_CHARS = 6_000
SEARCH_COUNT = 8


class Finding(msgspec.Struct, frozen=True):
    """A page read (``url``) or a knowledge passage (``path``): citation ``[n]``."""

    n: int
    title: str
    text: str
    url: str | None = None
    path: str | None = None
    page: int | None = None
    line: int | None = None

    @property
    def where(self) -> str:
        return self.url or self.path or ""

    def source(self) -> Source:
        return Source(title=self.title, url=self.url, path=self.path, page=self.page,
                      line=self.line, snippet=" ".join(self.text.split())[:300] or None)


@dataclass(frozen=True, slots=True)
class Hit:
    """A search result not read yet."""

    title: str
    url: str
    snippet: str


class Gatherer:
    """Searches and reads; keeps what was found, numbered, each page once."""

    def __init__(self, web: WebSearchConfig | None, knowledge: Tool | None, *,
                 proxy: Proxy | None, trust: ToolTrust) -> None:
        self.web = web
        self.knowledge = knowledge
        self.proxy = proxy
        self.trust = trust
        self.findings: list[Finding] = []
        self.failed_pages = 0
        self._fetch = fetch_url_tool()
        self._seen: set[str] = set()  # URLs read or tried, passages found

    def _context(self) -> ToolContext:
        return ToolContext(proxy=self.proxy, trust=self.trust, result_budget=PAGE_CHARS + 2_000)

    async def search(self, query: str) -> list[Hit]:
        """Web results for ``query`` not read yet (none when the search fails: the run
        goes on with its other queries)."""
        if self.web is None:
            return []
        try:
            found = await search_web(self.web, query, SEARCH_COUNT, self.proxy)
        except ToolError as exc:
            log.info("research search %r failed: %s", query, exc)
            return []
        return [Hit(r["title"], r["url"], r["snippet"]) for r in found
                if r["url"] not in self._seen]

    async def search_knowledge(self, query: str) -> list[Finding]:
        """Passages of the chat's knowledge bases for ``query``, kept as findings."""
        if self.knowledge is None:
            return []
        try:
            result: Any = await self.knowledge.handler({"query": query, "top_k": 4},
                                                       self._context())
        except ToolError as exc:
            log.info("research knowledge search %r failed: %s", query, exc)
            return []
        new: list[Finding] = []
        for item in result.get("results", []) if isinstance(result, dict) else []:
            path = str(item.get("path") or "")
            key = f"{path}#{item.get('location')}"
            if not path or key in self._seen:
                continue
            self._seen.add(key)
            location = str(item.get("location") or "")
            title = f"{Path(path).name} ({location})" if location else Path(path).name
            new.append(self._keep(title, str(item.get("text") or ""), path=path,
                                  page=_int(item.get("page")),
                                  line=_int(item.get("line_start"))))
        return new

    async def read(self, hits: Sequence[Hit]) -> list[Finding]:
        """The pages of ``hits`` not read yet, read at once and kept in the order of
        ``hits`` (a page that could not be read is counted as failed). Stopped, the
        pages already read are kept."""
        fresh = [hit for hit in {hit.url: hit for hit in hits}.values()
                 if hit.url not in self._seen]
        self._seen.update(hit.url for hit in fresh)
        tasks = [asyncio.ensure_future(self._page(hit)) for hit in fresh]
        kept: list[Finding] = []
        try:
            await asyncio.gather(*tasks)
        finally:
            for hit, task in zip(fresh, tasks, strict=True):
                page = task.result() if task.done() and not task.cancelled() \
                    and task.exception() is None else None
                if page is not None:
                    kept.append(self._keep(page[0] or hit.title, page[1], url=hit.url))
        return kept

    async def _page(self, hit: Hit) -> tuple[str, str] | None:
        """The title and text of ``hit``'s page (None: it could not be read)."""
        try:
            page: Any = await self._fetch.handler({"url": hit.url, "max_chars": PAGE_CHARS},
                                                  self._context())
        except ToolError as exc:  # (ToolFailure too: an HTTP error page is not a source)
            log.info("research could not read %s: %s", hit.url, exc)
            self.failed_pages += 1
            return None
        text = str(page.get("text") or "") if isinstance(page, dict) else json.dumps(page)
        if not text.strip():
            self.failed_pages += 1
            return None
        return (str(page.get("title") or "") if isinstance(page, dict) else ""), text

    def _keep(self, title: str, text: str, **where: Any) -> Finding:
        finding = Finding(len(self.findings) + 1, title, text[:PAGE_CHARS], **where)
        self.findings.append(finding)
        return finding


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
