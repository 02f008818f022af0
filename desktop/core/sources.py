"""The numbered sources of an answer: what the provider cited (its grounding or
citations, :class:`SourcesPart`) and what the answer's own searches retrieved
(``search_knowledge`` passages, ``web_search`` results), in the order they came,
each once. The window lists them under the answer and the Markdown export after it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from desktop.core.messages import Message, Part, Source, SourcesPart, ToolResultPart

#: Tools whose results are sources (a passage of a file, a page of the web).
KNOWLEDGE_TOOL = "search_knowledge"
WEB_TOOL = "web_search"


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _result_items(content: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(content)
    except ValueError:
        return []
    if isinstance(data, dict) and data.get("status") == "success":
        data = data.get("result")
    results = data.get("results") if isinstance(data, dict) else None
    return [r for r in results if isinstance(r, dict)] if isinstance(results, list) else []


def tool_sources(result: ToolResultPart) -> list[Source]:
    """The sources in one tool result (none for other tools or a failed call)."""
    if result.is_error or result.name not in (KNOWLEDGE_TOOL, WEB_TOOL):
        return []
    out: list[Source] = []
    for item in _result_items(result.content):
        if result.name == KNOWLEDGE_TOOL and isinstance(item.get("path"), str):
            path = item["path"]
            location = item.get("location") if isinstance(item.get("location"), str) else ""
            title = f"{Path(path).name} ({location})" if location else Path(path).name
            out.append(Source(title=title, path=path, page=_int(item.get("page")),
                              line=_int(item.get("line_start")),
                              snippet=str(item.get("text") or "")[:300] or None))
        elif result.name == WEB_TOOL and isinstance(item.get("url"), str):
            out.append(Source(title=str(item.get("title") or item["url"]), url=item["url"],
                              snippet=str(item.get("snippet") or "")[:300] or None))
    return out


def _key(source: Source) -> tuple[Any, ...]:
    if source.path is not None:
        return ("file", source.path, source.page, source.line)
    return ("web", source.url or source.title)


def unique_sources(sources: Iterable[Source]) -> list[Source]:
    seen: set[tuple[Any, ...]] = set()
    out: list[Source] = []
    for source in sources:
        key = _key(source)
        if key not in seen and (source.url or source.path or source.title):
            seen.add(key)
            out.append(source)
    return out


def part_sources(parts: Iterable[Part]) -> Iterable[Source]:
    for part in parts:
        if isinstance(part, SourcesPart):
            yield from part.sources
        elif isinstance(part, ToolResultPart):
            yield from tool_sources(part)


def answer_sources(messages: Sequence[Message]) -> list[Source]:
    """The sources of an answer made of ``messages`` (its assistant messages and the
    tool messages between them), numbered in this order from 1."""
    return unique_sources(s for m in messages for s in part_sources(m.parts))
