"""Which fields of chats, assistants, projects (and their files), memories and settings
sync, read and written as database values.

Left out on purpose: a chat's and a project's ``workspace`` and every provider id
(paths and provider configurations belong to one machine; providers carry keys), a
project's ``files_base`` and a file's ``path`` (this machine's), and the
settings that name local things (workspace, active provider, MCP servers with
their commands and tokens). API keys are never in these tables at all.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from desktop.storage.settings_store import APP_SETTINGS_KEY

SESSION = "s"
MESSAGE = "m"
ASSISTANT = "a"
SETTINGS = "g"
PROJECT = "p"
PROJECT_FILE = "pf"
MEMORY = "r"  # desktop.storage.memories
#: The kinds whose fields sync, in the order they are sent.
FIELD_KINDS = (SESSION, ASSISTANT, PROJECT, PROJECT_FILE, MEMORY, SETTINGS)

SESSION_FIELDS = (
    "title", "created_at", "updated_at", "model", "extra", "system_prompt", "assistant_id",
    "pinned", "archived", "deleted_at", "active_leaf_id", "project_id",
)
ASSISTANT_FIELDS = (
    "position", "name", "description", "system_prompt", "model", "temperature",
    "enabled_tools", "created_at", "updated_at", "extra",
)
PROJECT_FIELDS = (
    "position", "name", "instructions", "knowledge", "model", "tools", "created_at",
    "updated_at", "extra",
)
PROJECT_FILE_FIELDS = ("project_id", "name", "content", "size", "created_at")
MEMORY_FIELDS = (
    "text", "project_id", "created_at", "updated_at", "source_session_id",
    "source_message_id", "enabled",
)
# (the base font size suits one machine's screen)
LOCAL_SETTINGS = frozenset({"workspace", "active_provider_id", "mcp_servers", "base_font_pt"})

# The most recent value wins for these whatever the stamps say: "last active" order.
MAX_FIELDS = frozenset({"updated_at"})

_TABLES = {SESSION: ("sessions", SESSION_FIELDS), ASSISTANT: ("assistants", ASSISTANT_FIELDS),
           PROJECT: ("projects", PROJECT_FIELDS),
           PROJECT_FILE: ("project_files", PROJECT_FILE_FIELDS),
           MEMORY: ("memories", MEMORY_FIELDS)}
# The row a field of an entity not here yet is written into.
_NEW_ROW = {
    SESSION: "INSERT OR IGNORE INTO sessions (id, created_at, updated_at) VALUES (?, 0, 0)",
    ASSISTANT: "INSERT OR IGNORE INTO assistants (id, position, name, created_at, updated_at) "
               "VALUES (?, 0, '', 0, 0)",
    PROJECT: "INSERT OR IGNORE INTO projects (id, name, created_at, updated_at) "
             "VALUES (?, '', 0, 0)",
    PROJECT_FILE: "INSERT OR IGNORE INTO project_files (id, project_id, name, created_at) "
                  "VALUES (?, '', '', 0)",
    MEMORY: "INSERT OR IGNORE INTO memories (id, text, created_at, updated_at) "
            "VALUES (?, '', 0, 0)",
}


def encode(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def read_fields(conn: sqlite3.Connection, kind: str, ids: list[str]) -> dict[str, dict[str, Any]]:
    """Current synced field values of existing entities, by id."""
    if kind == SETTINGS:
        settings = read_settings(conn)
        return {APP_SETTINGS_KEY: settings} if settings is not None else {}
    if kind not in _TABLES:
        return {}  # a kind of a newer version of the app: nothing of it here
    table, fields = _TABLES[kind]
    found: dict[str, dict[str, Any]] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(
            f"SELECT id, {', '.join(fields)} FROM {table} WHERE id IN ({marks})", chunk
        ):
            found[str(row[0])] = dict(zip(fields, tuple(row)[1:], strict=True))
    return found


def all_ids(conn: sqlite3.Connection, kind: str) -> list[str]:
    if kind == SETTINGS:
        return [APP_SETTINGS_KEY]
    table = _TABLES[kind][0]
    return [str(r[0]) for r in conn.execute(f"SELECT id FROM {table}")]


def read_settings(conn: sqlite3.Connection) -> dict[str, Any] | None:
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (APP_SETTINGS_KEY,)).fetchone()
    if row is None:
        return None
    try:
        doc = json.loads(row[0])
    except ValueError:
        return None
    if not isinstance(doc, dict):
        return None
    return {k: v for k, v in doc.items() if k not in LOCAL_SETTINGS}


def write_field(
    conn: sqlite3.Connection, kind: str, entity_id: str, field: str, value: Any
) -> bool:
    """Set one field, creating the entity if needed; ``False`` for an unknown field."""
    if kind == SETTINGS:
        if field in LOCAL_SETTINGS:
            return False
        row = conn.execute(
            "SELECT value FROM settings WHERE key = ?", (APP_SETTINGS_KEY,)
        ).fetchone()
        doc = json.loads(row[0]) if row is not None else {}
        doc = doc if isinstance(doc, dict) else {}
        doc[field] = value
        conn.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (APP_SETTINGS_KEY, json.dumps(doc, separators=(",", ":"))),
        )
        return True
    if kind not in _TABLES:
        return False  # a kind of a newer version of the app: left alone
    table, fields = _TABLES[kind]
    if field not in fields:
        return False
    conn.execute(_NEW_ROW[kind], (entity_id,))
    if field in MAX_FIELDS:
        conn.execute(
            f"UPDATE {table} SET {field} = MAX(COALESCE({field}, 0), ?) WHERE id = ?",
            (value, entity_id),
        )
    else:
        conn.execute(f"UPDATE {table} SET {field} = ? WHERE id = ?", (value, entity_id))
    return True


def delete_entity(conn: sqlite3.Connection, kind: str, entity_id: str) -> None:
    if kind == SESSION:
        conn.execute("DELETE FROM sessions WHERE id = ?", (entity_id,))  # messages cascade
    elif kind == MEMORY:
        conn.execute("DELETE FROM memories WHERE id = ?", (entity_id,))
    elif kind == ASSISTANT:
        conn.execute("DELETE FROM assistants WHERE id = ?", (entity_id,))
        conn.execute(
            "UPDATE sessions SET assistant_id = NULL WHERE assistant_id = ?", (entity_id,)
        )
    elif kind == PROJECT:  # its chats move out (kept); its files go with it
        conn.execute("UPDATE sessions SET project_id = NULL WHERE project_id = ?", (entity_id,))
        conn.execute("DELETE FROM project_files WHERE project_id = ?", (entity_id,))
        conn.execute("DELETE FROM projects WHERE id = ?", (entity_id,))
    elif kind == PROJECT_FILE:
        conn.execute("DELETE FROM project_files WHERE id = ?", (entity_id,))
