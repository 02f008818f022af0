"""Memories: facts about the user kept across chats (migration 8).

A memory is global (``project_id`` NULL) or belongs to a project (its ``project_id``,
the id of a row of the ``projects`` table; no foreign key, so a memory stays readable
whatever happens to projects). A chat in project P sees the global memories and P's;
every other chat sees only the global ones (:meth:`MemoryStore.for_chat`).

An FTS5 index (kept by triggers) finds the memories relevant to a question once
there are too many to send them all. Sync (kind ``r``) carries them like chats:
the triggers here note each change in ``sync_log``.

Memories are local: they leave this database only in an export or through sync
(encrypted), and in the system prompt of a chat that may read them.
"""

from __future__ import annotations

import re
import sqlite3
import time
import uuid

import msgspec

from desktop.core.errors import ConfigError
from desktop.storage.database import Database
from desktop.storage.memory_schema import MEMORY_TABLES

__all__ = ["MEMORY_TABLES", "Memory", "MemoryStore", "project_id_by_name",
           "session_project_id"]

#: Up to this many memories a chat may see are all sent; beyond, the most relevant.
ALL_WHILE_AT_MOST = 30
#: How many memories are sent when there are more than :data:`ALL_WHILE_AT_MOST`.
RELEVANT_COUNT = 20
MAX_TEXT = 2000  # characters of one memory

_COLUMNS = ("id, text, project_id, created_at, updated_at, source_session_id, "
            "source_message_id, enabled")
_WORD = re.compile(r"\w+", re.UNICODE)


class Memory(msgspec.Struct, frozen=True):
    """One memory: a fact about the user, global or a project's, and where it came from."""

    id: str
    text: str
    project_id: str | None
    created_at: float
    updated_at: float
    source_session_id: str | None = None
    source_message_id: str | None = None
    enabled: bool = True


def _memory(row: sqlite3.Row) -> Memory:
    r = tuple(row)
    return Memory(id=str(r[0]), text=str(r[1]), project_id=r[2], created_at=float(r[3]),
                  updated_at=float(r[4]), source_session_id=r[5], source_message_id=r[6],
                  enabled=bool(r[7]))


def clean_text(text: str) -> str:
    """One memory's text: blanks collapsed, at most :data:`MAX_TEXT` characters;
    raises ConfigError when nothing is left."""
    flat = " ".join(text.split())
    if not flat:
        raise ConfigError("A memory needs some text.", code="memory_empty")
    return flat[:MAX_TEXT]


def match_query(text: str) -> str | None:
    """An FTS5 query matching any word of ``text`` (None: no words)."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))[:32]
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words) or None


class MemoryStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- reading ---------------------------------------------------------------------

    def get(self, memory_id: str) -> Memory | None:
        row = self.db.query_one(f"SELECT {_COLUMNS} FROM memories WHERE id = ?", (memory_id,))
        return _memory(row) if row is not None else None

    def find(self, id_or_prefix: str) -> Memory:
        """The memory with this id, or the only one whose id starts with it (at least 4
        characters); raises ConfigError otherwise."""
        wanted = id_or_prefix.strip().lower()
        exact = self.get(wanted)
        if exact is not None:
            return exact
        rows = self.db.query(f"SELECT {_COLUMNS} FROM memories WHERE id LIKE ? ESCAPE '\\'",
                             (wanted.replace("\\", "\\\\").replace("%", "\\%")
                              .replace("_", "\\_") + "%",)) if len(wanted) >= 4 else []
        if len(rows) == 1:
            return _memory(rows[0])
        if rows:
            raise ConfigError(f"several memories have ids starting with {id_or_prefix!r}; "
                              "give more of the id", code="memory_ambiguous",
                              params={"id": id_or_prefix})
        raise ConfigError(f"no memory with id {id_or_prefix!r}", code="memory_missing",
                          params={"id": id_or_prefix})

    def all(self, project_id: str | None = None, *, everything: bool = True,
             query: str = "") -> list[Memory]:
        """Newest first. ``everything``: all scopes; else the global memories and
        ``project_id``'s. ``query``: only those with all these words (any case)."""
        where: list[str] = []
        params: list[object] = []
        if not everything:
            where.append("(project_id IS NULL OR project_id = ?)")
            params.append(project_id)
        for word in query.split():
            where.append("text LIKE ? ESCAPE '\\'")
            params.append("%" + word.replace("\\", "\\\\").replace("%", "\\%")
                          .replace("_", "\\_") + "%")
        sql = f"SELECT {_COLUMNS} FROM memories"
        if where:
            sql += " WHERE " + " AND ".join(where)
        return [_memory(r) for r in self.db.query(sql + " ORDER BY created_at DESC, num DESC",
                                                  params)]

    def in_scope(self, project_id: str | None) -> list[Memory]:
        """Exactly one scope: the global memories (None) or a project's."""
        if project_id is None:
            rows = self.db.query(f"SELECT {_COLUMNS} FROM memories WHERE project_id IS NULL "
                                 "ORDER BY created_at DESC, num DESC")
        else:
            rows = self.db.query(f"SELECT {_COLUMNS} FROM memories WHERE project_id = ? "
                                 "ORDER BY created_at DESC, num DESC", (project_id,))
        return [_memory(r) for r in rows]

    def visible(self, project_id: str | None) -> list[Memory]:
        """The enabled memories a chat in ``project_id`` may see, newest first."""
        return [m for m in self.all(project_id, everything=False) if m.enabled]

    def ranked(self, question: str, limit: int) -> list[str]:
        """Ids of the memories best matching ``question`` by full-text rank, best first."""
        match = match_query(question)
        if match is None:
            return []
        rows = self.db.query(
            "SELECT m.id FROM memories_fts f JOIN memories m ON m.num = f.rowid "
            "WHERE memories_fts MATCH ? ORDER BY f.rank LIMIT ?", (match, limit))
        return [str(r[0]) for r in rows]

    def vectors(self, model: str) -> dict[str, bytes]:
        """The stored vectors of ``model`` (a memory edited since has none)."""
        rows = self.db.query("SELECT id, embedding FROM memories WHERE embedding_model = ? "
                             "AND embedding IS NOT NULL", (model,))
        return {str(r[0]): bytes(r[1]) for r in rows}

    def set_vector(self, memory_id: str, model: str, blob: bytes) -> None:
        self.db.execute("UPDATE memories SET embedding = ?, embedding_model = ? WHERE id = ?",
                        (blob, model, memory_id))

    def for_chat(self, project_id: str | None, question: str = "") -> list[Memory]:
        """What a chat in ``project_id`` (None: in no project) is told: every enabled
        memory it may see while they are few, else the :data:`RELEVANT_COUNT` most
        relevant to ``question`` by full-text rank (the newest fill what is left)."""
        visible = self.visible(project_id)
        if len(visible) <= ALL_WHILE_AT_MOST:
            return sorted(visible, key=lambda m: (m.created_at, m.id))
        by_id = {m.id: m for m in visible}
        ranked = self.ranked(question, RELEVANT_COUNT * 4)
        chosen = [i for i in ranked if i in by_id][:RELEVANT_COUNT]
        for memory in visible:  # newest first
            if len(chosen) >= RELEVANT_COUNT:
                break
            if memory.id not in chosen:
                chosen.append(memory.id)
        return [by_id[i] for i in chosen]

    def count(self) -> int:
        row = self.db.query_one("SELECT COUNT(*) FROM memories")
        return int(row[0]) if row is not None else 0

    # -- changing --------------------------------------------------------------------

    def add(self, text: str, project_id: str | None = None, *,
            session_id: str | None = None, message_id: str | None = None) -> Memory:
        now = time.time()
        memory = Memory(id=uuid.uuid4().hex, text=clean_text(text), project_id=project_id,
                        created_at=now, updated_at=now, source_session_id=session_id,
                        source_message_id=message_id)
        self.put(memory)
        return memory

    def put(self, memory: Memory) -> bool:
        """Store ``memory`` as it is (an import); False when its id is already here."""
        changed = self.db.execute(
            f"INSERT OR IGNORE INTO memories ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (memory.id, memory.text, memory.project_id, memory.created_at, memory.updated_at,
             memory.source_session_id, memory.source_message_id, int(memory.enabled)))
        return changed > 0

    def edit(self, memory_id: str, text: str) -> Memory:
        cleaned = clean_text(text)
        if not self.db.execute("UPDATE memories SET text = ?, updated_at = ?, embedding = NULL "
                               "WHERE id = ?",
                               (cleaned, time.time(), memory_id)):
            raise ConfigError(f"no memory with id {memory_id!r}", code="memory_missing",
                              params={"id": memory_id})
        found = self.get(memory_id)
        assert found is not None
        return found

    def forget(self, memory_id: str) -> bool:
        """Delete one memory; False when it was not there (already forgotten)."""
        return self.db.execute("DELETE FROM memories WHERE id = ?", (memory_id,)) > 0

    def forget_all(self) -> int:
        return self.db.execute("DELETE FROM memories")


def project_id_by_name(db: Database, name: str) -> str:
    """The id of the project called ``name`` (any case); raises ConfigError when
    there is none (or no projects at all in this database)."""
    has_projects = db.query_one(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'projects'")
    if has_projects is not None:
        row = db.query_one("SELECT id FROM projects WHERE name = ? COLLATE NOCASE", (name,))
        if row is not None:
            return str(row[0])
    raise ConfigError(f"no project named {name!r}", code="no_project", params={"name": name})


def session_project_id(db: Database, session_id: str) -> str | None:
    """The project of a saved chat (None: in none, or no projects in this database)."""
    columns = {str(r[1]) for r in db.query("PRAGMA table_info(sessions)")}
    if "project_id" not in columns:
        return None
    row = db.query_one("SELECT project_id FROM sessions WHERE id = ?", (session_id,))
    return str(row[0]) if row is not None and row[0] is not None else None
