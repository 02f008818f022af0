"""The ``search_knowledge`` tool: the model searches the chat's knowledge bases.

Policy Allow (it only reads the index). Each result carries the file path and the
location (page, lines) so the answer can cite it and the tool panel shows exactly
what was retrieved.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from desktop.core.errors import ToolError
from desktop.knowledge.embeddings import embed
from desktop.knowledge.search import Hit, search
from desktop.knowledge.store import KnowledgeStore
from desktop.storage.database import Database
from desktop.tools.registry import Tool, ToolContext

if TYPE_CHECKING:
    from desktop.core.proxy import Proxy

NAME = "search_knowledge"
TITLE = "Search knowledge"  # shown to people (translated in the window)
DEFAULT_TOP_K = 8
MAX_TOP_K = 30


def _parameters() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1,
                      "description": "What to look for: keywords or a question."},
            "top_k": {"type": "integer", "minimum": 1, "maximum": MAX_TOP_K,
                      "default": DEFAULT_TOP_K, "description": "How many passages to return."},
        },
        "required": ["query"],
        "additionalProperties": False,
    }


def _result(n: int, hit: Hit) -> dict[str, Any]:
    return {"n": n, "path": hit.path, "location": hit.location, "page": hit.page,
            "line_start": hit.line_start, "line_end": hit.line_end, "text": hit.text}


def search_knowledge_tool(db: Database, bases: Sequence[str],
                          keys: Callable[[str], str | None] | None = None,
                          proxy: Proxy | None = None) -> Tool:
    """The tool bound to the knowledge bases named ``bases`` (checked when called:
    a base removed meanwhile is a clear error for the model). ``keys``: API keys of
    configured providers (embedding models chosen from one)."""
    names = list(dict.fromkeys(bases))
    store = KnowledgeStore(db, keys, proxy)

    async def handle(args: dict[str, Any], ctx: ToolContext) -> Any:
        query = str(args["query"])
        top_k = int(args.get("top_k", DEFAULT_TOP_K))
        hits: list[Hit] = []
        for name in names:
            base = store.find(name)
            if base is None:
                raise ToolError(f"The knowledge base {name!r} no longer exists.")
            vector = None
            if base.embedding is not None:
                key = store.api_key(base.embedding)
                vector = (await asyncio.to_thread(embed, base.embedding, [query], key,
                                                  proxy=store.proxy))[0]
            # (off the event loop: the first hybrid search loads the base's vectors)
            hits += await asyncio.to_thread(search, store, base, query, top_k, vector)
        hits.sort(key=lambda h: -h.score)
        results = [_result(n, hit) for n, hit in enumerate(hits[:top_k], start=1)]
        return {"query": query, "knowledge_bases": names, "results": results}

    return Tool(
        name=NAME, title=TITLE,
        description=(
            f"Search the user's documents (knowledge base {', '.join(names)}) for passages "
            "relevant to a query; returns the best passages first, each with its file path "
            "and location (page, lines). Cite the file and location when you use a passage."),
        parameters=_parameters(),
        handler=handle,
        read_only=True,
        default_policy="allow",
        deferred_check=True,  # a constant schema (the tests check it)
    )
