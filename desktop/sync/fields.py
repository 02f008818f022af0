"""Which fields of chats, assistants, memories and settings sync, read and written as
database values.

Left out on purpose: a chat's ``workspace`` and every provider id (paths and
provider configurations belong to one machine; providers carry keys), and the
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
MEMORY = "r"  # desktop.storage.memories

SESSION_FIELDS = (
    "title", "created_at", "updated_at", "model", "extra", "system_prompt", "assistant_id",
    "pinned", "archived", "deleted_at", "active_leaf_id",
)
ASSISTANT_FIELDS = (
    "position", "name", "description", "system_prompt", "model", "temperature",
    "enabled_tools", "created_at", "updated_at", "extra",
)
MEMORY_FIELDS = (
    "text", "project_id", "created_at", "updated_at", "source_session_id",
    "source_message_id", "enabled",
)
# (the base font size suits one machine's screen)
LOCAL_SETTINGS = frozenset({"workspace", "active_provider_id", "mcp_servers", "base_font_pt"})

# The most recent value wins for these whatever the stamps say: "last active" order.
MAX_FIELDS = frozenset({"updated_at"})

_TABLES = {SESSION: ("sessions", SESSION_FIELDS), ASSISTANT: ("assistants", ASSISTANT_FIELDS),
           MEMORY: ("memories", MEMORY_FIELDS)}
#: The kinds whose fields sync, in the order they are sent.
FIELD_KINDS = (SESSION, ASSISTANT, MEMORY, SETTINGS)


def encode(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def read_fields(conn: sqlite3.Connection, kind: str, ids: list[str]) -> dict[str, dict[str, Any]]:
    """Current synced field values of existing entities, by id."""
    if kind == SETTINGS:
        settings = read_settings(conn)
        return {APP_SETTINGS_KEY: settings} if settings is not None else {}
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
    table, fields = _TABLES[kind]
    if field not in fields:
        return False
    if kind == SESSION:
        conn.execute(
            "INSERT OR IGNORE INTO sessions (id, created_at, updated_at) VALUES (?, 0, 0)",
            (entity_id,),
        )
    elif kind == MEMORY:
        conn.execute(
            "INSERT OR IGNORE INTO memories (id, text, created_at, updated_at) "
            "VALUES (?, '', 0, 0)",
            (entity_id,),
        )
    else:
        conn.execute(
            "INSERT OR IGNORE INTO assistants (id, position, name, created_at, updated_at) "
            "VALUES (?, 0, '', 0, 0)",
            (entity_id,),
        )
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
