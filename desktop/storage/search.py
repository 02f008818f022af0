"""Full-text search over messages (every branch) and chat titles.

The query is what the user types: words (each of three letters or more matched
as a word prefix, so ``conf`` finds "configuration"), and ``"quoted phrases"``.
All must match.
Words in Greek or Cyrillic also match with or without accents (``καλημερα``
finds "καλημέρα", ``елка`` finds "ёлка"); Latin accents are ignored by the
tokenizer. Words containing Chinese, Japanese, Korean, Thai... characters are
matched as substrings through the trigram table (see :mod:`desktop.storage.fts`).

Results: title matches first, then messages, newest first. Each hit carries
a snippet of plain text (the message's markdown as the chat shows it: no marks,
link targets or fences) around its first match, and the ``(start, end)`` spans to
highlight in it.
"""

from __future__ import annotations

import functools
import re
import sqlite3
import unicodedata
from typing import Any

import msgspec

from desktop.core.errors import StorageError
from desktop.core.markdown_text import markdown_plain
from desktop.storage.database import Database
from desktop.storage.fts import cjk_uses_trigram, has_unsegmented

SNIPPET_CHARS = 160
MAX_TITLE_HITS = 10
MAX_VARIANTS = 32
MIN_PREFIX_CHARS = 3

_ACCENTED = {
    "α": "ά",
    "ε": "έ",
    "η": "ή",
    "ι": "ίϊΐ",
    "ο": "ό",
    "υ": "ύϋΰ",
    "ω": "ώ",  # Greek
    "е": "ё",  # Cyrillic
}
_GREEK_OR_CYRILLIC = re.compile(r"[\u0370-\u03ff\u1f00-\u1fff\u0400-\u04ff]")


class SearchHit(msgspec.Struct, frozen=True):
    """One search result: a chat's title or one of its messages, with a snippet."""

    session_id: str
    session_title: str
    message_id: str | None  # None: the chat's title matched
    role: str | None
    snippet: str
    highlights: tuple[tuple[int, int], ...]  # spans of ``snippet`` to show in bold
    created_at: float  # the message's time (the chat's last update for a title hit)
    archived: bool


class Term(msgspec.Struct, frozen=True):
    """One word or quoted phrase of a search query."""

    text: str
    phrase: bool  # typed in quotes: matched exactly, not as a prefix

    @property
    def unsegmented(self) -> bool:
        return has_unsegmented(self.text)


def parse_query(query: str) -> list[Term]:
    """Words and quoted phrases (an unclosed quote runs to the end)."""
    terms: list[Term] = []
    for match in re.finditer(r'"([^"]*)"?|([^\s"]+)', query):
        phrase, word = match.group(1), match.group(2)
        text = " ".join((phrase if phrase is not None else word).split())
        if text:
            terms.append(Term(text, phrase is not None))
    return terms


def fold(text: str) -> str:
    """Lower case without diacritics (what the snippet matcher compares)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


def variants(word: str) -> list[str]:
    """``word`` in lower case with and without each possible Greek/Cyrillic accent."""
    if not _GREEK_OR_CYRILLIC.search(word):
        return [word]
    base = fold(word)
    found = [base]
    for i, ch in enumerate(base):
        for accented in _ACCENTED.get(ch, ""):
            found.append(base[:i] + accented + base[i + 1 :])
    return found[:MAX_VARIANTS]


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _prefix(term: Term) -> bool:
    """Bare words of 3+ characters match as prefixes (shorter prefixes would expand to
    thousands of index terms; "ok" or "AI" match exactly)."""
    last = re.split(r"[^\w]+", term.text.strip())[-1] if term.text.strip() else ""
    return not term.phrase and len(last) >= MIN_PREFIX_CHARS


def _word_expression(terms: list[Term]) -> str:
    parts = []
    for term in terms:
        star = "*" if _prefix(term) else ""
        options = [f"{_quote(v)}{star}" for v in variants(term.text)]
        parts.append(options[0] if len(options) == 1 else "(" + " OR ".join(options) + ")")
    return " AND ".join(parts)


class _Plan(msgspec.Struct, weakref=True):
    """The table that drives a search query, and its filters with their parameters."""

    table: str
    where: list[str]
    params: list[Any]


def _plan(conn: sqlite3.Connection, terms: list[Term]) -> _Plan:
    """Which table drives the query (rows come newest first, lazily) and the filters.

    Terms of Chinese, Japanese... shorter than a trigram (or without a trigram
    table) have no index: they are checked with ``instr`` on the texts that have
    such characters (``search_cjk``), which then drives the query. Sets used as
    filters are written ``+f.rowid IN (...)`` so SQLite builds them once instead
    of looking each of their rows up in the driving full-text query.
    """
    words = [t for t in terms if not t.unsegmented]
    cjk = [t for t in terms if t.unsegmented]
    trigram = cjk_uses_trigram(conn)
    indexed = [t for t in cjk if trigram and len(t.text) >= 3]
    scanned = [t for t in cjk if t not in indexed]
    word_match = _word_expression(words) if words else ""
    cjk_match = " AND ".join(_quote(t.text) for t in indexed)
    if scanned or not words:
        plan = _Plan("search_cjk", [], [])
        if cjk_match:
            plan.where.append("search_cjk MATCH ?")
            plan.params.append(cjk_match)
        if word_match:
            plan.where.append("+f.rowid IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ?)")
            plan.params.append(word_match)
        for term in scanned:
            plan.where.append("instr(lower(f.body), lower(?)) > 0")
            plan.params.append(term.text)
        return plan
    plan = _Plan("search_fts", ["search_fts MATCH ?"], [word_match])
    if cjk_match:
        plan.where.append("+f.rowid IN (SELECT rowid FROM search_cjk WHERE search_cjk MATCH ?)")
        plan.params.append(cjk_match)
    return plan


def search_messages(
    db: Database,
    query: str,
    *,
    limit: int = 50,
    include_archived: bool = True,
    session_id: str | None = None,
) -> list[SearchHit]:
    terms = parse_query(query)
    if not terms or limit <= 0:
        return []
    filters = " AND s.deleted_at IS NULL"
    extra: list[Any] = []
    if not include_archived:
        filters += " AND s.archived = 0"
    if session_id is not None:
        filters += " AND s.id = ?"
        extra.append(session_id)
    with db.snapshot() as conn:
        plan = _plan(conn, terms)
        where = " AND ".join(plan.where) or "1"
        title_rows: list[sqlite3.Row] = []
        if session_id is None:
            title_rows = _run(
                conn,
                f"""
                SELECT CAST(f.body AS BLOB) AS body, s.id AS session_id, s.title, NULL AS id,
                       NULL AS role, s.updated_at AS created_at, s.archived
                FROM {plan.table} f JOIN sessions s ON s.num = -f.rowid
                WHERE {where} AND f.rowid < 0{filters}
                ORDER BY s.updated_at DESC LIMIT ?""",
                [*plan.params, *extra, MAX_TITLE_HITS],
            )
        message_rows = _run(
            conn,
            f"""
            SELECT CAST(f.body AS BLOB) AS body, m.session_id, s.title, m.id, m.role,
                   m.created_at, s.archived
            FROM {plan.table} f JOIN messages m ON m.num = f.rowid
                 JOIN sessions s ON s.id = m.session_id
            WHERE {where} AND f.rowid > 0{filters}
            ORDER BY f.rowid DESC LIMIT ?""",
            [*plan.params, *extra, limit],
        )
    hits = [_hit(row, terms) for row in [*title_rows, *message_rows]]
    return hits[:limit]


def _run(conn: sqlite3.Connection, sql: str, params: list[Any]) -> list[sqlite3.Row]:
    try:
        return conn.execute(sql, params).fetchall()
    except sqlite3.OperationalError as exc:
        if "fts5" in str(exc).lower():  # a query FTS5 cannot parse: no results
            return []
        raise StorageError(f"Search failed: {exc}",
                           code="search_failed", params={"detail": str(exc)}) from exc


def _hit(row: sqlite3.Row, terms: list[Term]) -> SearchHit:
    raw = row["body"]
    text = bytes(raw).decode("utf-8", "replace") if raw is not None else ""
    if row["id"] is not None:  # a message: what the chat shows, not its markdown
        text = markdown_plain(text)
    snippet, spans = make_snippet(text, terms)
    return SearchHit(
        session_id=row["session_id"],
        session_title=row["title"],
        message_id=row["id"],
        role=row["role"],
        snippet=snippet,
        highlights=spans,
        created_at=float(row["created_at"]),
        archived=bool(row["archived"]),
    )


def make_snippet(
    text: str, terms: list[Term], width: int = SNIPPET_CHARS
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A window of ``text`` around the first match, with the matched spans."""
    folded, index = _folded_with_index(text)
    spans: list[tuple[int, int]] = []
    for term in terms:
        needle = fold(term.text)
        if not needle:
            continue
        for m in re.finditer(re.escape(needle), folded):
            start = m.start()
            if not term.unsegmented and start > 0 and folded[start - 1].isalnum():
                continue  # words match at word starts, like the index
            end = m.end()
            if (
                not (term.unsegmented or _prefix(term))
                and end < len(folded)
                and folded[end].isalnum()
            ):
                continue  # short words and phrases match whole words
            if index is None:
                spans.append((start, end))
            else:
                spans.append((index[start], index[end - 1] + 1))
    spans.sort()
    flat = text.replace("\r", " ").replace("\n", " ").replace("\t", " ")
    if len(flat) <= width:
        return flat, tuple(spans)
    anchor = spans[0][0] if spans else 0
    start = max(0, min(anchor - width // 3, len(flat) - width))
    if start > 0:
        space = flat.rfind(" ", max(0, start - 20), start + 1)
        start = space + 1 if space >= 0 else start
    end = min(len(flat), start + width)
    if end < len(flat):
        space = flat.find(" ", end - 20, end)
        end = space if space > start else end
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(flat) else ""
    shift = len(prefix) - start
    inside = tuple(
        (max(a, start) + shift, min(b, end) + shift) for a, b in spans if a < end and b > start
    )
    return prefix + flat[start:end] + suffix, inside


def _folded_with_index(text: str) -> tuple[str, list[int] | None]:
    """``fold(text)`` and, for each of its characters, the index in ``text`` it came
    from (``None`` when they are the same: ASCII text)."""
    if text.isascii():
        return text.lower(), None
    out: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        piece = ch.lower() if ch.isascii() else _fold_char(ch)
        out.append(piece)
        index.extend([i] * len(piece))
    return "".join(out), index


@functools.lru_cache(maxsize=4096)
def _fold_char(ch: str) -> str:
    return fold(ch)
