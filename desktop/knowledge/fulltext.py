"""Full-text ranking (FTS5 BM25) that stays fast on a large index.

FTS5 scores every row a query matches before it can return the best few, so the cost
of ``ORDER BY rank LIMIT k`` grows with the number of matches, not with ``k``. Words
found in a large share of the chunks ("the", "how", a project's own name) match
nearly everything and add almost nothing to BM25 (their IDF is near zero), so they
are left out of the query when rarer words are there. A word's document frequency is
counted only up to what matters (a window of the index tells a common word at once),
and remembered until the base is indexed again (an ``fts5vocab`` lookup scans the
whole vocabulary in this SQLite). The chunks holding every kept
word come first; when they are too few, chunks holding any of the rarest ones follow,
taking only as many words as keep the matches under :data:`OR_BUDGET`.
"""

from __future__ import annotations

import re
import threading

from desktop.knowledge.store import KnowledgeBase, KnowledgeStore

_WORD = re.compile(r"\w+", re.UNICODE)
MAX_WORDS = 32
#: A word in more than this share of the chunks is left out when rarer words remain.
COMMON_SHARE = 0.25
#: The "any of the words" query takes the rarest words while their matches stay under this.
OR_BUDGET = 5_000
#: Bonus that puts chunks with every word ahead of chunks with some (BM25 scores are
#: far below it).
ALL_WORDS_BONUS = 1000.0

#: Rows of the index a share estimate looks at (a window of consecutive chunk ids).
WINDOW = 4096
_cache: dict[tuple[str, int, float | None, str], int] = {}
_ranges: dict[tuple[str, int, float | None], tuple[int, int]] = {}
_lock = threading.Lock()
CACHE_WORDS = 4096


def words_of(text: str) -> list[str]:
    return list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))[:MAX_WORDS]


def _quoted(words: list[str], operator: str) -> str:
    return f" {operator} ".join('"' + w.replace('"', '""') + '"' for w in words)


def _id_range(store: KnowledgeStore, base: KnowledgeBase) -> tuple[int, int]:
    key = (str(store.db.path), base.id, base.indexed_at)
    if key not in _ranges:
        row = store.db.query("SELECT min(id), max(id) FROM knowledge_chunks WHERE base_id = ?",
                             (base.id,))[0]
        _ranges[key] = (row[0] or 0, row[1] or 0)
    return _ranges[key]


def _frequency(store: KnowledgeStore, base: KnowledgeBase, word: str, common: int) -> int:
    """How many chunks hold ``word``: exact up to :data:`OR_BUDGET`; a word that fills
    a large share of a window of the index is reported as ``common`` + 1 without
    counting further (counting "the" in a big index costs more than the search)."""
    match = _quoted([word], "AND")
    low, high = _id_range(store, base)
    if high - low > 2 * WINDOW:
        middle = (low + high) // 2
        seen = store.db.query(
            "SELECT count(*) FROM knowledge_fts WHERE knowledge_fts MATCH ? AND rowid "
            "BETWEEN ? AND ?", (match, middle, middle + WINDOW - 1))[0][0]
        if seen > COMMON_SHARE * WINDOW:
            return common + 1
    return int(store.db.query(
        "SELECT count(*) FROM (SELECT rowid FROM knowledge_fts WHERE knowledge_fts MATCH ? "
        "LIMIT ?)", (match, max(common, OR_BUDGET) + 1))[0][0])


def document_frequencies(store: KnowledgeStore, base: KnowledgeBase,
                         words: list[str]) -> dict[str, int]:
    """How many chunks hold each word (common words: above the common threshold),
    remembered until the base is indexed again."""
    common = int(COMMON_SHARE * max(base.chunks, 1))
    out: dict[str, int] = {}
    for word in words:
        key = (str(store.db.path), base.id, base.indexed_at, word)
        with _lock:
            known = _cache.get(key)
        if known is None:
            known = _frequency(store, base, word, common)
            with _lock:
                if len(_cache) >= CACHE_WORDS:
                    _cache.clear()
                _cache[key] = known
        out[word] = known
    return out


def _ranked(store: KnowledgeStore, base: KnowledgeBase, match: str, limit: int,
            bonus: float) -> list[tuple[int, float]]:
    rows = store.db.query(
        "SELECT c.id, bm25(knowledge_fts) AS rank FROM knowledge_fts "
        "JOIN knowledge_chunks c ON c.id = knowledge_fts.rowid "
        "WHERE knowledge_fts MATCH ? AND c.base_id = ? ORDER BY rank LIMIT ?",
        (match, base.id, limit))
    return [(row[0], -row[1] + bonus) for row in rows]


def full_text(store: KnowledgeStore, base: KnowledgeBase, query: str, limit: int,
              enough: int | None = None) -> list[tuple[int, float]]:
    """``(chunk id, score)`` best first: chunks with every informative word, then (when
    fewer than ``enough``) chunks with some of the rarest."""
    words = words_of(query)
    if not words:
        return []
    frequency = document_frequencies(store, base, words)
    present = sorted((w for w in words if frequency[w] > 0), key=lambda w: frequency[w])
    if not present:
        return []
    total = max(base.chunks, 1)
    informative = [w for w in present if frequency[w] <= COMMON_SHARE * total] or present[:2]
    found = dict(_ranked(store, base, _quoted(informative, "AND"), limit, ALL_WORDS_BONUS))
    if len(found) < (enough or limit) and len(informative) > 1:
        chosen: list[str] = []
        matches = 0
        for word in informative:
            if chosen and matches + frequency[word] > OR_BUDGET:
                break
            chosen.append(word)
            matches += frequency[word]
        for chunk_id, score in _ranked(store, base, _quoted(chosen, "OR"), limit, 0.0):
            found.setdefault(chunk_id, score)
    return sorted(found.items(), key=lambda item: -item[1])[:limit]
