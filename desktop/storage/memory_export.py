"""Memories in a JSON export (``"memories"``: one object per memory, every field) and
back in an import: a memory whose id is already here is skipped."""

from __future__ import annotations

from typing import Any

import msgspec

from desktop.core.errors import StorageError
from desktop.storage.database import Database
from desktop.storage.memories import Memory, MemoryStore, clean_text


def export_memories(db: Database) -> list[dict[str, Any]]:
    return [msgspec.structs.asdict(m) for m in reversed(MemoryStore(db).all())]  # oldest first


def import_memories(db: Database, doc: Any) -> int:
    """Add the export's memories that are not here yet; how many were added."""
    entries = doc.get("memories") if isinstance(doc, dict) else None
    if entries is None:
        return 0
    if not isinstance(entries, list):
        raise StorageError("The memories in the export are not readable.",
                           code="export_memories_malformed")
    store = MemoryStore(db)
    added = 0
    for entry in entries:
        try:
            memory = _memory(entry)
        except (KeyError, TypeError, ValueError) as exc:
            raise StorageError(f"A memory in the export is not readable: {exc}",
                               code="export_memories_malformed",
                               params={"detail": str(exc)}) from exc
        added += store.put(memory)
    return added


def _memory(entry: Any) -> Memory:
    if not isinstance(entry, dict) or not isinstance(entry["id"], str):
        raise TypeError("not an object with an id")
    project = entry.get("project_id")
    optional = [entry.get(k) for k in ("source_session_id", "source_message_id")]
    return Memory(
        id=entry["id"], text=clean_text(str(entry["text"])),
        project_id=str(project) if project is not None else None,
        created_at=float(entry["created_at"]), updated_at=float(entry["updated_at"]),
        source_session_id=str(optional[0]) if optional[0] is not None else None,
        source_message_id=str(optional[1]) if optional[1] is not None else None,
        enabled=bool(entry.get("enabled", True)))
