"""Vector search by brute force with numpy over a base's embedded chunks.

sqlite-vec cannot be used: it is a loadable extension, and Python builds without
``enable_load_extension`` (like this one) cannot load it. Pure Python is far too slow:
2,000 dot products of 768 dimensions took 183 ms here, about 9 s for 100,000, against
a hybrid query target of 150 ms; numpy's one matrix-vector product makes the whole
hybrid query about 70 ms (tests/bench/bench_knowledge.py), so numpy (about 73 MB
installed) stays. The matrix is cached per base until the base is indexed again.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from desktop.knowledge.store import KnowledgeStore

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

_cache: dict[tuple[str, int, float | None], tuple[NDArray[np.int64], NDArray[np.float32]]] = {}
_lock = threading.Lock()


def to_blob(vector: list[float]) -> bytes:
    import numpy as np

    return np.asarray(vector, dtype=np.float32).tobytes()


def _matrix(store: KnowledgeStore, base_id: int,
            indexed_at: float | None) -> tuple[NDArray[np.int64], NDArray[np.float32]]:

    key = (str(store.db.path), base_id, indexed_at)
    with _lock:
        if key in _cache:
            return _cache[key]
        ids, matrix = _load(store, base_id)
        for old in [k for k in _cache if k[:2] == key[:2]]:
            del _cache[old]
        _cache[key] = (ids, matrix)
        return ids, matrix


def _load(store: KnowledgeStore, base_id: int) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
    """The base's vectors, normalized, read row by row into one preallocated matrix
    (a list of 100k blobs, their join and a copy held three times the memory)."""
    import numpy as np

    with store.db.snapshot() as conn:
        count, width = conn.execute(
            "SELECT COUNT(*), MAX(LENGTH(embedding)) FROM knowledge_chunks "
            "WHERE base_id = ? AND embedding IS NOT NULL", (base_id,)).fetchone()
        dims = (width or 0) // 4
        ids = np.zeros(count, dtype=np.int64)
        matrix = np.zeros((count, max(dims, 1)), dtype=np.float32)
        rows = conn.execute("SELECT id, embedding FROM knowledge_chunks "
                            "WHERE base_id = ? AND embedding IS NOT NULL", (base_id,))
        filled = 0
        for chunk_id, blob in rows:
            if filled == count:
                break  # (a row added since the count: read at the next load)
            if len(blob) == 4 * dims:  # a vector of another model's size is left out
                ids[filled] = chunk_id
                matrix[filled] = np.frombuffer(blob, dtype=np.float32)
                filled += 1
    ids, matrix = ids[:filled], matrix[:filled]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix /= np.where(norms == 0, 1, norms)
    return ids, matrix


def nearest(store: KnowledgeStore, base_id: int, indexed_at: float | None,
            query: list[float], limit: int) -> list[tuple[int, float]]:
    """``(chunk id, cosine similarity)`` of the ``limit`` nearest chunks, best first."""
    import numpy as np

    ids, matrix = _matrix(store, base_id, indexed_at)
    if not len(ids):
        return []
    vector = np.asarray(query, dtype=np.float32)
    if vector.shape[0] != matrix.shape[1]:
        return []  # the embedding model changed since indexing: full text only
    vector /= np.linalg.norm(vector) or 1.0
    scores = matrix @ vector
    limit = min(limit, len(ids))
    top = np.argpartition(-scores, limit - 1)[:limit]
    top = top[np.argsort(-scores[top])]
    return [(int(ids[i]), float(scores[i])) for i in top]
