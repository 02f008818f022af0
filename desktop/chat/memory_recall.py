"""Which memories a turn is told when there are too many to send them all: the most
relevant to the question by full-text rank and, where the chat's knowledge has an
embedding model, by vector similarity too (the two rankings fused by reciprocal rank).

Vectors are made once per memory (and again after an edit) and kept in its row. The
embedding service only ever sees memory texts when it is on this computer or on the
same host as the chat's own provider, which gets the memories anyway: memories are
never sent anywhere else. A failing service leaves the full-text choice in place.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import msgspec

from desktop import knowledge as knowledge_bases
from desktop.knowledge.store import EmbeddingConfig, KnowledgeStore
from desktop.storage.memories import ALL_WHILE_AT_MOST, RELEVANT_COUNT, MemoryStore

if TYPE_CHECKING:
    from desktop.chat.provider_service import ProviderService

log = logging.getLogger(__name__)

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
RRF_K = 60  # the usual constant of reciprocal rank fusion


class VectorRecall(msgspec.Struct, frozen=True):
    """The embedding model a turn's memories are ranked with, and its key."""

    config: EmbeddingConfig
    api_key: str | None

    @property
    def model_key(self) -> str:
        return f"{self.config.kind}|{self.config.base_url}|{self.config.model}"


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def vector_recall(store: KnowledgeStore, bases: Sequence[str], provider_url: str,
                  ) -> VectorRecall | None:
    """The embedding model of the chat's first knowledge base that has one and that may
    see memories (local, or the chat provider's host); None: full text only."""
    for name in bases:
        base = store.find(name)
        config = base.embedding if base is not None else None
        if config is None:
            continue
        host = _host(config.base_url)
        if host in LOCAL_HOSTS or host == _host(provider_url):
            return VectorRecall(config, store.api_key(config))
    return None


def recall_for_turn(providers: ProviderService, memories: MemoryStore, project_id: str | None,
                    knowledge: Sequence[str], provider_url: str) -> VectorRecall | None:
    """How a turn ranks its memories by vectors (None: it needs not, or cannot); the
    knowledge bases are in the memories' database, their keys are ``providers``'."""
    if not knowledge or len(memories.visible(project_id)) <= ALL_WHILE_AT_MOST:
        return None
    keys = partial(knowledge_bases.provider_key, providers)
    return vector_recall(KnowledgeStore(memories.db, keys), knowledge, provider_url)


Embed = Callable[[EmbeddingConfig, Sequence[str], str | None], list[list[float]]]


def recall(memories: MemoryStore, project_id: str | None, question: str,
           vectors: VectorRecall, embed: Embed | None = None) -> list[str]:
    """The texts of the :data:`RELEVANT_COUNT` memories best for ``question`` by full
    text and vectors together (blocking: embeds; run off the event loop). Raises
    EmbeddingError when the service fails."""
    import numpy as np

    to_blob = knowledge_bases.vectors.to_blob
    if embed is None:
        embed = knowledge_bases.embeddings.embed
    visible = memories.visible(project_id)
    by_id = {m.id: m for m in visible}
    model = vectors.model_key
    stored = memories.vectors(model)
    missing = [m for m in visible if m.id not in stored]
    if missing:
        made = embed(vectors.config, [m.text for m in missing], vectors.api_key)
        for memory, values in zip(missing, made, strict=True):
            blob = to_blob(values)
            memories.set_vector(memory.id, model, blob)
            stored[memory.id] = blob
    query = np.asarray(embed(vectors.config, [question], vectors.api_key)[0], dtype=np.float32)
    query /= float(np.linalg.norm(query)) or 1.0
    scores: dict[str, float] = {}
    for memory_id in by_id:
        row = np.frombuffer(stored[memory_id], dtype=np.float32)
        if row.shape != query.shape:
            continue  # (another model's size)
        scores[memory_id] = float(row @ query) / (float(np.linalg.norm(row)) or 1.0)
    by_vector = sorted(scores, key=lambda i: -scores[i])
    by_text = [i for i in memories.ranked(question, RELEVANT_COUNT * 4) if i in by_id]
    fused: dict[str, float] = {}
    for ranking in (by_text, by_vector):
        for rank, memory_id in enumerate(ranking):
            fused[memory_id] = fused.get(memory_id, 0.0) + 1.0 / (RRF_K + rank + 1)
    chosen = sorted(fused, key=lambda i: -fused[i])[:RELEVANT_COUNT]
    return [by_id[i].text for i in chosen]
