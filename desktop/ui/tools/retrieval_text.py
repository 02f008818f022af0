"""What the tool panel shows for ``search_knowledge`` and ``web_search`` calls: the
query and every passage or result returned (file path and location, or title and
address, then the text), so the user sees exactly what the model was given.

Everything here came from files or a search service: it is escaped, never markup.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication

from desktop.core.messages import ToolResultPart
from desktop.core.sources import KNOWLEDGE_TOOL, WEB_TOOL
from desktop.ui import theme
from desktop.ui.tools.approval_card import heading_html, plain_html

RETRIEVAL_TOOLS = (KNOWLEDGE_TOOL, WEB_TOOL)
PASSAGE_CHARS = 1200  # of each passage in the details (the model got all of it)


def _found(data: Any) -> tuple[str, list[dict[str, Any]]] | None:
    """The query and results of a successful call (None: not that shape)."""
    value = data.get("result") if isinstance(data, dict) else None
    if not isinstance(value, dict) or not isinstance(value.get("results"), list):
        return None
    results = [r for r in value["results"] if isinstance(r, dict)]
    return str(value.get("query", "")), results


def retrieval_summary(result: ToolResultPart, data: Any) -> str | None:
    found = _found(data) if result.name in RETRIEVAL_TOOLS else None
    if found is None:
        return None
    query, results = found
    if result.name == KNOWLEDGE_TOOL:
        text = QCoreApplication.translate("RetrievalText", "%n passages for “{query}”", "",
                                          len(results))
    else:
        text = QCoreApplication.translate("RetrievalText", "%n results for “{query}”", "",
                                          len(results))
    return text.format(query=query)


def _where(item: dict[str, Any]) -> str:
    if "path" in item:
        location = str(item.get("location") or "")
        return f"{item['path']} · {location}" if location else str(item["path"])
    return f"{item.get('title', '')} · {item.get('url', '')}"


def retrieval_html(result: ToolResultPart, data: Any) -> str | None:
    found = _found(data) if result.name in RETRIEVAL_TOOLS else None
    if found is None:
        return None
    query, results = found
    muted = theme.colors()["muted"]
    out = heading_html(QCoreApplication.translate("RetrievalText", "Query")) + plain_html(query)
    if not results:
        return out + plain_html(
            QCoreApplication.translate("RetrievalText", "Nothing found."), muted)
    for number, item in enumerate(results, start=1):
        out += heading_html(f"{number}. {_where(item)}")
        text = str(item.get("text") or item.get("snippet") or "")
        if len(text) > PASSAGE_CHARS:
            text = text[:PASSAGE_CHARS] + "…"
        out += plain_html(text)
    return out



