"""Knowledge bases (Qt-free): named collections of folders and files, indexed into
chunks with their file and page/line range in the app's SQLite database; full-text
search (FTS5 BM25) always, vector search and hybrid ranking when an embedding model
is chosen; exposed to the model as the ``search_knowledge`` tool."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.lazy import lazy_names

if TYPE_CHECKING:
    from desktop.knowledge import embeddings, tool, vectors
    from desktop.knowledge.chat_link import (
        chat_knowledge,
        own_knowledge,
        provider_key,
        set_own_knowledge,
    )
    from desktop.knowledge.indexer import TEXT_SUFFIXES, Indexer
    from desktop.knowledge.store import KnowledgeStore
    from desktop.knowledge.tool import search_knowledge_tool

#: What the rest of the app uses of knowledge bases, loaded when first asked for (the
#: indexer and its document readers are not on the way to the window): callers import
#: this package at their top and use `knowledge.KnowledgeStore` and so on where needed.
_LAZY: dict[str, str] = {
    "tool": "desktop.knowledge.tool",  # the model's tool (its name and title)
    "embeddings": "desktop.knowledge.embeddings",  # (modules: looked up per call)
    "vectors": "desktop.knowledge.vectors",  # (NumPy)
    **dict.fromkeys(["chat_knowledge", "own_knowledge", "provider_key", "set_own_knowledge"],
                    "desktop.knowledge.chat_link"),
    **dict.fromkeys(["TEXT_SUFFIXES", "Indexer"],
                    "desktop.knowledge.indexer"),
    "KnowledgeStore": "desktop.knowledge.store",
    "search_knowledge_tool": "desktop.knowledge.tool",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


__all__ = [
    "TEXT_SUFFIXES",
    "Indexer",
    "KnowledgeStore",
    "chat_knowledge",
    "embeddings",
    "own_knowledge",
    "provider_key",
    "search_knowledge_tool",
    "set_own_knowledge",
    "tool",
    "vectors",
]
