"""Assistants: named system prompts with a default provider, model, temperature and tools.

A chat started from an assistant records its id (``SessionInfo.assistant_id``);
the chat's own ``system_prompt``, when set, overrides the assistant's. Deleting
an assistant leaves its chats intact (they fall back to the defaults).
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Sequence
from typing import Any

from desktop.core.errors import StorageError
from desktop.core.messages import new_id
from desktop.core.records import Assistant
from desktop.storage.database import Database

_COLUMNS = (
    "id, position, name, description, system_prompt, provider_id, model, temperature, "
    "enabled_tools, created_at, updated_at, extra"
)


class AssistantStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    def list_assistants(self) -> list[Assistant]:
        """All assistants in display order."""
        rows = self._db.query(f"SELECT {_COLUMNS} FROM assistants ORDER BY position, rowid")
        return [_from_row(row) for row in rows]

    def get(self, assistant_id: str) -> Assistant | None:
        row = self._db.query_one(f"SELECT {_COLUMNS} FROM assistants WHERE id = ?", (assistant_id,))
        return _from_row(row) if row is not None else None

    def save(self, assistant: Assistant) -> Assistant:
        """Insert or update by id (a new one goes last; an existing one keeps its place)."""
        name = " ".join(assistant.name.split())
        if not name:
            raise StorageError("An assistant needs a name.", code="assistant_name_needed")
        if assistant.temperature is not None and not 0.0 <= assistant.temperature <= 2.0:
            raise StorageError("The temperature must be between 0 and 2.",
                               code="temperature_range")
        now = time.time()
        values = {
            "id": assistant.id,
            "name": name,
            "description": assistant.description,
            "system_prompt": assistant.system_prompt,
            "provider_id": assistant.provider_id,
            "model": assistant.model,
            "temperature": assistant.temperature,
            "enabled_tools": (
                json.dumps(list(assistant.enabled_tools))
                if assistant.enabled_tools is not None
                else None
            ),
            "created_at": assistant.created_at or now,
            "updated_at": now,
            "extra": json.dumps(assistant.extra, separators=(",", ":")),
        }
        with self._db.transaction() as conn:
            conn.execute(
                f"INSERT INTO assistants ({_COLUMNS}) VALUES (:id, "
                "(SELECT COALESCE(MAX(position), -1) + 1 FROM assistants), :name, :description, "
                ":system_prompt, :provider_id, :model, :temperature, :enabled_tools, "
                ":created_at, :updated_at, :extra) "
                "ON CONFLICT (id) DO UPDATE SET name = excluded.name, "
                "description = excluded.description, system_prompt = excluded.system_prompt, "
                "provider_id = excluded.provider_id, model = excluded.model, "
                "temperature = excluded.temperature, enabled_tools = excluded.enabled_tools, "
                "updated_at = excluded.updated_at, extra = excluded.extra",
                values,
            )
        saved = self.get(assistant.id)
        if saved is None:  # pragma: no cover - just written
            raise StorageError(f"Assistant {assistant.id} could not be saved.",
                               code="assistant_not_saved", params={"assistant": assistant.id})
        return saved

    def create(self, name: str, system_prompt: str = "", **fields: Any) -> Assistant:
        return self.save(Assistant(name=name, system_prompt=system_prompt, **fields))

    def duplicate(self, assistant_id: str) -> Assistant:
        original = self.get(assistant_id)
        if original is None:
            raise StorageError(f"Assistant {assistant_id} does not exist.",
                               code="assistant_missing", params={"assistant": assistant_id})
        return self.save(
            dataclasses.replace(
                original, id=new_id("asst_"), name=f"{original.name} (copy)", created_at=0.0
            )
        )

    def delete(self, assistant_id: str) -> bool:
        """Delete; chats started from it keep their messages and own system prompt."""
        with self._db.transaction() as conn:
            removed = conn.execute("DELETE FROM assistants WHERE id = ?", (assistant_id,)).rowcount
            conn.execute(
                "UPDATE sessions SET assistant_id = NULL WHERE assistant_id = ?", (assistant_id,)
            )
        return removed > 0

    def reorder(self, assistant_ids: Sequence[str]) -> None:
        """Put the listed assistants first, in that order; others keep their order."""
        current = [a.id for a in self.list_assistants()]
        wanted = [aid for aid in dict.fromkeys(assistant_ids) if aid in current]
        order = wanted + [aid for aid in current if aid not in wanted]
        with self._db.transaction() as conn:
            conn.executemany(
                "UPDATE assistants SET position = ? WHERE id = ?",
                [(position, aid) for position, aid in enumerate(order)],
            )


def _from_row(row: Any) -> Assistant:
    tools = json.loads(row["enabled_tools"]) if row["enabled_tools"] else None
    try:
        extra = json.loads(row["extra"]) if row["extra"] else {}
    except ValueError:
        extra = {}
    return Assistant(
        id=row["id"],
        position=int(row["position"]),
        name=row["name"],
        description=row["description"],
        system_prompt=row["system_prompt"],
        provider_id=row["provider_id"],
        model=row["model"],
        temperature=float(row["temperature"]) if row["temperature"] is not None else None,
        enabled_tools=tuple(str(t) for t in tools) if isinstance(tools, list) else None,
        created_at=float(row["created_at"]),
        updated_at=float(row["updated_at"]),
        extra=extra if isinstance(extra, dict) else {},
    )
