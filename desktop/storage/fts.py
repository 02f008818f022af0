"""The full-text search index: FTS5 tables kept in sync by triggers.

Two FTS5 tables share one row numbering:

* ``search_fts`` (``unicode61 remove_diacritics 2``) indexes every message and
  every session title. Words in Latin, Cyrillic, Greek and other spaced
  scripts are found case- and (for Latin) accent-insensitively.
* ``search_cjk`` (``trigram`` when this SQLite has it) indexes only the texts
  that contain characters of scripts written without spaces (Chinese,
  Japanese, Korean, Thai, Lao, Khmer, Myanmar), so a word inside a run of
  such characters is found as a substring.

Row ids: a message is indexed under its ``messages.num`` (positive), a
session title under ``-sessions.num`` (negative). Both ``num`` columns are
``INTEGER PRIMARY KEY``, so they survive ``VACUUM``.

The indexed body of a message is the text of its text parts, the name and
arguments of its tool calls and the name and content of its tool results (reasoning,
images and sources are not indexed). Messages still ``streaming`` are not
indexed; they are when their status changes (complete, stopped, interrupted).

The SQL here is used by migration 4; never change it in place (a change needs
a new migration that drops and rebuilds the index).
"""

from __future__ import annotations

import logging
import sqlite3

from desktop.storage.sql_script import split_sql

log = logging.getLogger(__name__)

# Unicode ranges of scripts written without spaces between words.
UNSEGMENTED_RANGES: tuple[tuple[int, int], ...] = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x1780, 0x17FF),  # Khmer
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3100, 0x31FF),  # Bopomofo, Hangul compatibility Jamo, Katakana extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana
    (0x20000, 0x3134F),  # CJK extensions B-G
)

UNSEGMENTED_GLOB = "*[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in UNSEGMENTED_RANGES) + "]*"


def has_unsegmented(text: str) -> bool:
    """Whether ``text`` has a character of a script written without spaces."""
    return any(a <= ord(ch) <= b for ch in text for a, b in UNSEGMENTED_RANGES)


def body_sql(parts: str) -> str:
    """SQL computing the indexed text from the JSON ``parts`` column expression."""
    safe = f"CASE WHEN json_valid({parts}) THEN {parts} ELSE '[]' END"
    return (
        "(SELECT group_concat(t, char(10)) FROM ("
        "SELECT CASE json_extract(j.value, '$.type')"
        " WHEN 'text' THEN json_extract(j.value, '$.text')"
        " WHEN 'tool_call' THEN json_extract(j.value, '$.name') || ' '"
        " || json_extract(j.value, '$.arguments')"
        " WHEN 'tool_result' THEN json_extract(j.value, '$.name') || ' '"
        " || json_extract(j.value, '$.content')"
        f" END AS t FROM json_each({safe}) AS j))"
    )


_GLOB = UNSEGMENTED_GLOB.replace("'", "''")


def _index_message(prefix: str) -> str:
    body = body_sql(f"{prefix}.parts")
    return (
        f"INSERT INTO search_fts (rowid, body) SELECT {prefix}.num, b FROM (SELECT {body} AS b)"
        f" WHERE {prefix}.status <> 'streaming' AND b IS NOT NULL;\n"
        f"INSERT INTO search_cjk (rowid, body) SELECT rowid, body FROM search_fts"
        f" WHERE rowid = {prefix}.num AND body GLOB '{_GLOB}';\n"
    )


def _unindex(rowid: str) -> str:
    return (
        f"DELETE FROM search_fts WHERE rowid = {rowid};\n"
        f"DELETE FROM search_cjk WHERE rowid = {rowid};\n"
    )


def _index_title(prefix: str) -> str:
    return (
        f"INSERT INTO search_fts (rowid, body) VALUES (-{prefix}.num, {prefix}.title);\n"
        f"INSERT INTO search_cjk (rowid, body) SELECT -{prefix}.num, {prefix}.title"
        f" WHERE {prefix}.title GLOB '{_GLOB}';\n"
    )


TRIGGERS_SQL = f"""
CREATE TRIGGER messages_search_insert AFTER INSERT ON messages BEGIN
{_index_message("new")}END;
CREATE TRIGGER messages_search_update AFTER UPDATE OF parts, status ON messages BEGIN
{_unindex("old.num")}{_index_message("new")}END;
CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
{_unindex("old.num")}END;
CREATE TRIGGER sessions_search_insert AFTER INSERT ON sessions BEGIN
{_index_title("new")}END;
CREATE TRIGGER sessions_search_update AFTER UPDATE OF title ON sessions BEGIN
{_unindex("-old.num")}{_index_title("new")}END;
CREATE TRIGGER sessions_search_delete AFTER DELETE ON sessions BEGIN
{_unindex("-old.num")}END;
"""

FILL_SQL = f"""
INSERT INTO search_fts (rowid, body)
    SELECT num, b FROM (SELECT num, status, {body_sql("parts")} AS b FROM messages)
    WHERE status <> 'streaming' AND b IS NOT NULL;
INSERT INTO search_cjk (rowid, body)
    SELECT rowid, body FROM search_fts WHERE body GLOB '{_GLOB}';
INSERT INTO search_fts (rowid, body) SELECT -num, title FROM sessions;
INSERT INTO search_cjk (rowid, body)
    SELECT -num, title FROM sessions WHERE title GLOB '{_GLOB}';
"""

WORD_TOKENIZER = "unicode61 remove_diacritics 2"


def create_search_index(conn: sqlite3.Connection) -> None:
    """Migration step: create both tables and the triggers, then index existing data."""
    conn.execute(
        f"CREATE VIRTUAL TABLE search_fts USING fts5 (body, tokenize = '{WORD_TOKENIZER}')"
    )
    try:
        conn.execute("CREATE VIRTUAL TABLE search_cjk USING fts5 (body, tokenize = 'trigram')")
    except sqlite3.OperationalError as exc:  # SQLite < 3.34: substring scans instead
        log.warning("SQLite has no trigram tokenizer (%s); CJK search will scan", exc)
        conn.execute(
            f"CREATE VIRTUAL TABLE search_cjk USING fts5 (body, tokenize = '{WORD_TOKENIZER}')"
        )
    _run_script(conn, TRIGGERS_SQL)
    _run_script(conn, FILL_SQL)


def cjk_uses_trigram(conn: sqlite3.Connection) -> bool:
    row = conn.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'search_cjk'"
    ).fetchone()
    return bool(row and "trigram" in str(row[0]))


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    for statement in split_sql(script):
        conn.execute(statement)
