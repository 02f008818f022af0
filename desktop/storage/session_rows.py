"""Rows of the ``sessions`` and ``messages`` tables and their Python values.

Parts, usage and provider data are stored as the JSON of the pydantic models
(ASCII-escaped, so lone surrogates from a broken stream stay storable), so
``Message.model_validate`` gives back an equal message.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from desktop.core.messages import Message
from desktop.core.records import SessionInfo

DEFAULT_TITLE = "New chat"


SESSION_COLUMNS = (
    "id, title, created_at, updated_at, provider_id, model, workspace, extra, system_prompt, "
    "assistant_id, pinned, archived, deleted_at, active_leaf_id, project_id"
)
SESSION_SELECT = (
    f"SELECT {SESSION_COLUMNS}, "
    "(SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count "
    "FROM sessions s"
)

MESSAGE_COLUMNS = (
    "id, parent_id, role, status, created_at, model, provider, usage, error, finish_reason, "
    "parts, provider_data"
)

INSERT_MESSAGE = """
INSERT INTO messages (id, session_id, seq, parent_id, selected_at, role, status, created_at,
                      model, provider, usage, error, finish_reason, parts, provider_data)
VALUES (:id, :session_id,
        (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = :session_id),
        :parent_id, :selected_at, :role, :status, :created_at, :model, :provider, :usage,
        :error, :finish_reason, :parts, :provider_data)
"""

UPDATE_MESSAGE = """
UPDATE messages SET role = :role, status = :status, created_at = :created_at, model = :model,
    provider = :provider, usage = :usage, error = :error, finish_reason = :finish_reason,
    parts = :parts, provider_data = :provider_data
WHERE id = :id AND session_id = :session_id
"""


def clean_title(title: str) -> str:
    cleaned = " ".join(title.split())
    return cleaned or DEFAULT_TITLE


def dumps(value: Any) -> str:
    # ASCII escapes keep lone surrogates (broken streams) storable and lossless.
    return json.dumps(value, separators=(",", ":"))


def short_error(exc: Exception) -> str:
    text = str(exc).splitlines()
    return text[0] if text else type(exc).__name__


def session_values(info: SessionInfo) -> dict[str, Any]:
    """Column values for an INSERT of ``info`` (named like the columns)."""
    return {
        "id": info.id,
        "title": clean_title(info.title),
        "created_at": info.created_at,
        "updated_at": info.updated_at,
        "provider_id": info.provider_id,
        "model": info.model,
        "workspace": info.workspace,
        "extra": dumps(info.extra),
        "system_prompt": info.system_prompt,
        "assistant_id": info.assistant_id,
        "pinned": int(info.pinned),
        "archived": int(info.archived),
        "deleted_at": info.deleted_at,
        "active_leaf_id": info.active_leaf_id,
        "project_id": info.project_id,
    }


INSERT_SESSION = (
    f"INSERT INTO sessions ({SESSION_COLUMNS}) VALUES ("
    + ", ".join(f":{name.strip()}" for name in SESSION_COLUMNS.split(","))
    + ")"
)


def session_from_row(row: sqlite3.Row) -> SessionInfo:
    try:
        extra = json.loads(row["extra"]) if row["extra"] else {}
    except ValueError:
        extra = {}
    if not isinstance(extra, dict):
        extra = {}
    return SessionInfo(
        id=row["id"],
        title=row["title"],
        created_at=float(row["created_at"]),
        updated_at=float(row["updated_at"]),
        provider_id=row["provider_id"],
        model=row["model"],
        workspace=row["workspace"],
        message_count=int(row["message_count"]),
        extra=extra,
        system_prompt=row["system_prompt"],
        assistant_id=row["assistant_id"],
        pinned=bool(row["pinned"]),
        archived=bool(row["archived"]),
        deleted_at=float(row["deleted_at"]) if row["deleted_at"] is not None else None,
        active_leaf_id=row["active_leaf_id"],
        project_id=row["project_id"],
    )


def message_values(session_id: str, message: Message) -> dict[str, Any]:
    data = message.model_dump(mode="json")
    return {
        "id": message.id,
        "session_id": session_id,
        "parent_id": message.parent_id,
        "role": message.role,
        "status": message.status,
        "created_at": message.created_at,
        "model": message.model,
        "provider": message.provider,
        "usage": dumps(data["usage"]) if data["usage"] is not None else None,
        "error": message.error,
        "finish_reason": message.finish_reason,
        "parts": dumps(data["parts"]),
        "provider_data": dumps(data["provider_data"]),
    }


def message_from_row(row: sqlite3.Row) -> Message:
    return Message.model_validate(
        {
            "id": row["id"],
            "parent_id": row["parent_id"],
            "role": row["role"],
            "status": row["status"],
            "created_at": row["created_at"],
            "model": row["model"],
            "provider": row["provider"],
            "usage": json.loads(row["usage"]) if row["usage"] else None,
            "error": row["error"],
            "finish_reason": row["finish_reason"],
            "parts": json.loads(row["parts"]) if row["parts"] else [],
            "provider_data": json.loads(row["provider_data"]) if row["provider_data"] else {},
        }
    )
