"""Ranked hits from a knowledge base: FTS5 BM25 always; with embeddings, vector
similarity too, fused by reciprocal rank (robust to the two scores' different
scales)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from desktop.knowledge.embeddings import embed
from desktop.knowledge.fulltext import full_text
from desktop.knowledge.store import KnowledgeBase, KnowledgeStore
from desktop.knowledge.vectors import nearest, to_blob

#: Reciprocal-rank-fusion constant (the usual 60: top ranks matter, not raw scores).
RRF_K = 60
CANDIDATES = 50


@dataclass(frozen=True, slots=True)
class Hit:
    """A chunk found in a knowledge base: its file, page, lines, text and score."""

    path: str
    page: int | None
    line_start: int
    line_end: int
    text: str
    score: float

    @property
    def location(self) -> str:
        lines = (f"line {self.line_start}" if self.line_start == self.line_end
                 else f"lines {self.line_start}-{self.line_end}")
        return f"page {self.page}, {lines}" if self.page is not None else lines


def _fuse(*rankings: list[tuple[int, float]]) -> list[tuple[int, float]]:
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, (chunk_id, _score) in enumerate(ranking):
            scores[chunk_id] = scores.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank + 1)
    return sorted(scores.items(), key=lambda item: -item[1])


def search(store: KnowledgeStore, base: KnowledgeBase, query: str, top_k: int = 8,
           query_vector: list[float] | None = None) -> list[Hit]:
    """The ``top_k`` best chunks for ``query``, best first. ``query_vector``: the
    query's embedding (hybrid ranking); None: full text only."""
    ranked = full_text(store, base, query, max(top_k, CANDIDATES), enough=top_k)
    if query_vector is not None:
        similar = nearest(store, base.id, base.indexed_at, query_vector,
                          max(top_k, CANDIDATES))
        ranked = _fuse(ranked, similar)
    ranked = ranked[:top_k]
    if not ranked:
        return []
    marks = ",".join("?" * len(ranked))
    rows = {r["id"]: r for r in store.db.query(
        "SELECT c.id, c.page, c.line_start, c.line_end, c.text, f.path FROM knowledge_chunks c"
        f" JOIN knowledge_files f ON f.id = c.file_id WHERE c.id IN ({marks})",
        tuple(chunk_id for chunk_id, _ in ranked))}
    return [Hit(path=rows[i]["path"], page=rows[i]["page"], line_start=rows[i]["line_start"],
                line_end=rows[i]["line_end"], text=rows[i]["text"], score=score)
            for i, score in ranked if i in rows]


def search_base(store: KnowledgeStore, base: KnowledgeBase, query: str,
                top_k: int = 8) -> list[Hit]:
    """:func:`search`, embedding the query when the base has an embedding model."""
    vector = None
    if base.embedding is not None:
        vector = embed(base.embedding, [query], store.api_key(base.embedding),
                       proxy=store.proxy)[0]
    return search(store, base, query, top_k, vector)


def embed_missing(store: KnowledgeStore, base: KnowledgeBase, batch: int = 256,
                  cancel: threading.Event | None = None) -> int:
    """Embed the base's chunks that have no vector yet; returns how many (``cancel``
    stops between batches: what is embedded stays)."""
    if base.embedding is None:
        return 0
    done = 0
    while cancel is None or not cancel.is_set():
        rows = store.db.query("SELECT id, text FROM knowledge_chunks WHERE base_id = ? AND "
                              "embedding IS NULL LIMIT ?", (base.id, batch))
        if not rows:
            break
        vectors = embed(base.embedding, [r["text"] for r in rows],
                        store.api_key(base.embedding), proxy=store.proxy)
        with store.db.transaction() as conn:
            conn.executemany("UPDATE knowledge_chunks SET embedding = ? WHERE id = ?",
                             [(to_blob(v), r["id"]) for v, r in zip(vectors, rows, strict=True)])
        done += len(rows)
    if done:  # new vectors: the cached matrix (keyed by indexed_at) is stale
        with store.db.transaction() as conn:
            conn.execute("UPDATE knowledge_bases SET indexed_at = ? WHERE id = ?",
                         (time.time(), base.id))
    return done
