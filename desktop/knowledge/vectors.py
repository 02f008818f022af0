"""Vector search by brute force with numpy over a base's embedded chunks.

sqlite-vec cannot be used: it is a loadable extension, and Python builds without
``enable_load_extension`` (like this one) cannot load it. A normalized float32 matrix
and one matrix-vector product rank 100,000 chunks of 768 dimensions in a few
milliseconds; the matrix is cached per base until the base is indexed again.
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
    import numpy as np

    key = (str(store.db.path), base_id, indexed_at)
    with _lock:
        if key in _cache:
            return _cache[key]
        rows = store.db.query("SELECT id, embedding FROM knowledge_chunks "
                              "WHERE base_id = ? AND embedding IS NOT NULL", (base_id,))
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        if rows:
            matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
            matrix = matrix.reshape(len(rows), -1).copy()
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            matrix /= np.where(norms == 0, 1, norms)
        else:
            matrix = np.zeros((0, 1), dtype=np.float32)
        for old in [k for k in _cache if k[:2] == key[:2]]:
            del _cache[old]
        _cache[key] = (ids, matrix)
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
