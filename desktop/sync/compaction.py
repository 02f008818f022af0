"""Compaction: a device rewrites its own segments as one snapshot (in parts).

What a later operation makes moot is left out: older values of a field, messages
deleted afterwards, everything of a chat deleted afterwards. A new device then reads
one snapshot per device instead of years of small segments. The snapshot is written
before the segments it covers are deleted, and counts only once all its parts are
there, so a device killed while compacting leaves the old segments readable.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator

from desktop.sync.changes import MESSAGE_OP_COLUMNS, message_op
from desktop.sync.fields import MESSAGE, SESSION
from desktop.sync.segments import Op, decode_ops

PART_OPS = 20000


def compact(payloads: list[tuple[str, bytes]]) -> Iterator[list[Op]]:
    """Parts of the compacted log of ``payloads`` (name, compressed plaintext), in order.

    Two passes over the compressed payloads keep memory to one segment's operations
    plus the fields and deletions (messages are never held all at once).
    """
    fields, deletions = _latest(payloads)
    # A deletion newer than every field of its entity removes the entity's fields.
    newest: dict[tuple[str, str], str] = {}
    for (kind, entity_id, _), op in fields.items():
        newest[(kind, entity_id)] = max(newest.get((kind, entity_id), ""), op[5])
    gone = {k for k, op in deletions.items() if k[0] != MESSAGE and op[3] > newest.get(k, "")}
    batch: list[Op] = [
        op for (kind, entity_id, _), op in fields.items() if (kind, entity_id) not in gone
    ]
    batch.extend(deletions.values())
    seen: set[str] = set()
    for name, payload in payloads:
        for op in decode_ops(name, payload):
            if op[0] != "m" or len(op) != 3 or not isinstance(op[2], dict):
                continue
            message_id = str(op[2].get("id"))
            if message_id in seen or (MESSAGE, message_id) in deletions:
                continue
            if (SESSION, op[1]) in gone:
                continue
            seen.add(message_id)
            batch.append(op)
            if len(batch) >= PART_OPS:
                yield batch
                batch = []
    if batch:
        yield batch


def _latest(
    payloads: list[tuple[str, bytes]],
) -> tuple[dict[tuple[str, str, str], Op], dict[tuple[str, str], Op]]:
    """The newest operation of every field and every deletion."""
    fields: dict[tuple[str, str, str], Op] = {}
    deletions: dict[tuple[str, str], Op] = {}
    for name, payload in payloads:
        for op in decode_ops(name, payload):
            if op[0] == "f" and len(op) == 6:
                key = (op[1], op[2], op[3])
                if key not in fields or fields[key][5] < op[5]:
                    fields[key] = op
            elif op[0] == "t" and len(op) == 4:
                dkey = (op[1], op[2])
                if dkey not in deletions or deletions[dkey][3] < op[3]:
                    deletions[dkey] = op
    return fields, deletions


def full_state(conn: sqlite3.Connection) -> Iterator[list[Op]]:
    """Everything this database knows, in parts: every synced field with its stamp,
    every deletion, every message (parents first). Sent as one snapshot to a target
    that lacks what this device sent before (a new or emptied target): it brings every
    device's chats there, not only this one's."""
    batch: list[Op] = []
    rows = conn.execute("SELECT kind, id, field, value, stamp FROM sync_fields "
                        "ORDER BY kind = 'g', kind = 's', kind, id, field")
    for kind, entity_id, name, value, stamp in rows:
        batch.append(["f", kind, entity_id, name, json.loads(value), stamp])
        if len(batch) >= PART_OPS:
            yield batch
            batch = []
    for kind, entity_id, stamp in conn.execute("SELECT kind, id, stamp FROM sync_tombstones"):
        batch.append(["t", kind, entity_id, stamp])
        if len(batch) >= PART_OPS:
            yield batch
            batch = []
    messages = conn.execute(f"SELECT num, session_id, {MESSAGE_OP_COLUMNS} FROM messages "
                            "WHERE status <> 'streaming' ORDER BY num")
    for row in messages:
        batch.append(message_op(row))
        if len(batch) >= PART_OPS:
            yield batch
            batch = []
    if batch:
        yield batch
