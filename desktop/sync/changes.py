"""Turn local changes into operations queued in ``sync_outbox`` (no network here).

The triggers of :mod:`desktop.storage.sync_tables` say which entities changed; each
is compared with the values last synced (``sync_fields``) so only the fields that
really changed are stamped and sent. The first time, everything already in the
database is queued. Queued segments survive being offline: they are uploaded by
the next run that reaches the target.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import msgspec

from desktop.sync import fields
from desktop.sync.clock import HybridClock
from desktop.sync.fields import FIELD_KINDS, MESSAGE, SETTINGS
from desktop.sync.segments import Op, encode_ops
from desktop.sync.state import SEEDED, get_meta, load_clock, save_clock, set_meta

MESSAGES_PER_SEGMENT = 5000
OPS_PER_SEGMENT = 20000

MESSAGE_OP_COLUMNS = (
    "id, parent_id, role, status, created_at, model, provider, usage, error, finish_reason, "
    "parts, provider_data, selected_at"
)
_MESSAGE_KEYS = tuple(c.strip() for c in MESSAGE_OP_COLUMNS.split(","))


class Touched(msgspec.Struct, frozen=True):
    """An entity the sync log says changed: its kind, id, chat (a message's) and time."""

    kind: str
    id: str
    owner: str | None
    at: float  # when it changed; 0 for data from before sync was set up


def queue_changes(conn: sqlite3.Connection) -> int:
    """Queue every change not yet queued; returns how many operations. Call inside a
    write transaction."""
    clock = load_clock(conn)
    seeded = get_meta(conn, SEEDED) is not None
    last = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM sync_log").fetchone()[0]
    touched = _logged(conn, last) if seeded else _everything(conn)
    count = 0
    batch: list[Op] = []
    for op in _field_ops(conn, clock, touched):
        batch.append(op)
        if len(batch) >= OPS_PER_SEGMENT:
            count += _enqueue(conn, batch)
            batch = []
    count += _enqueue(conn, batch)
    count += _queue_messages(conn, clock, touched if seeded else None)
    conn.execute("DELETE FROM sync_log WHERE seq <= ?", (last,))
    set_meta(conn, SEEDED, "1")
    save_clock(conn, clock)
    return count


def pending_count(conn: sqlite3.Connection) -> int:
    """Changes not on the target yet: logged entities and queued operations."""
    logged = conn.execute("SELECT COUNT(*) FROM (SELECT DISTINCT kind, id FROM sync_log)")
    queued = conn.execute("SELECT COALESCE(SUM(ops), 0) FROM sync_outbox")
    return int(logged.fetchone()[0]) + int(queued.fetchone()[0])


def _enqueue(conn: sqlite3.Connection, ops: list[Op]) -> int:
    if ops:
        conn.execute(
            "INSERT INTO sync_outbox (body, ops) VALUES (?, ?)", (encode_ops(ops), len(ops))
        )
    return len(ops)


def _logged(conn: sqlite3.Connection, last: int) -> list[Touched]:
    rows = conn.execute(
        "SELECT kind, id, MAX(owner), MAX(at), MIN(seq) AS first FROM sync_log "
        "WHERE seq <= ? GROUP BY kind, id ORDER BY first",
        (last,),
    )
    return [Touched(str(r[0]), str(r[1]), r[2], float(r[3])) for r in rows]


def _everything(conn: sqlite3.Connection) -> list[Touched]:
    return [
        # Stamped as old as can be: what a device had before joining loses to what the
        # others already share (a fresh install's default settings must not win).
        Touched(kind, entity_id, None, 0.0)
        for kind in FIELD_KINDS
        for entity_id in fields.all_ids(conn, kind)
    ]


def _field_ops(
    conn: sqlite3.Connection, clock: HybridClock, touched: list[Touched]
) -> Iterator[Op]:
    for kind in FIELD_KINDS:
        mine = [t for t in touched if t.kind == kind]
        current = fields.read_fields(conn, kind, [t.id for t in mine])
        for item in mine:
            values = current.get(item.id)
            if values is None:
                yield from _tombstone(conn, clock, item)
            else:
                yield from _changed_fields(conn, clock, item, values)


def _changed_fields(
    conn: sqlite3.Connection, clock: HybridClock, item: Touched, values: dict[str, Any]
) -> Iterator[Op]:
    synced = {
        str(r[0]): r[1]
        for r in conn.execute(
            "SELECT field, value FROM sync_fields WHERE kind = ? AND id = ?", (item.kind, item.id)
        )
    }
    for name, value in values.items():
        encoded = fields.encode(value)
        if synced.get(name) == encoded:
            continue
        stamp = clock.stamp(item.at)
        conn.execute(
            "INSERT INTO sync_fields (kind, id, field, value, stamp) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (kind, id, field) DO UPDATE SET value = excluded.value, "
            "stamp = excluded.stamp",
            (item.kind, item.id, name, encoded, stamp),
        )
        yield ["f", item.kind, item.id, name, value, stamp]


def _tombstone(conn: sqlite3.Connection, clock: HybridClock, item: Touched) -> Iterator[Op]:
    if item.kind == SETTINGS:
        return
    stamp = clock.stamp(item.at)
    conn.execute("DELETE FROM sync_fields WHERE kind = ? AND id = ?", (item.kind, item.id))
    record_tombstone(conn, item.kind, item.id, stamp)
    yield ["t", item.kind, item.id, stamp]


def record_tombstone(conn: sqlite3.Connection, kind: str, entity_id: str, stamp: str) -> None:
    conn.execute(
        "INSERT INTO sync_tombstones (kind, id, stamp) VALUES (?, ?, ?) "
        "ON CONFLICT (kind, id) DO UPDATE SET stamp = MAX(stamp, excluded.stamp)",
        (kind, entity_id, stamp),
    )


def _queue_messages(
    conn: sqlite3.Connection, clock: HybridClock, touched: list[Touched] | None
) -> int:
    """Messages in creation order (parents before children), in segments."""
    count = 0
    batch: list[Op] = []
    for op in _message_ops(conn, clock, touched):
        batch.append(op)
        if len(batch) >= MESSAGES_PER_SEGMENT:
            count += _enqueue(conn, batch)
            batch = []
    return count + _enqueue(conn, batch)


def _message_ops(
    conn: sqlite3.Connection, clock: HybridClock, touched: list[Touched] | None
) -> Iterator[Op]:
    select = f"SELECT num, session_id, {MESSAGE_OP_COLUMNS} FROM messages"
    if touched is None:
        rows = conn.execute(f"{select} WHERE status <> 'streaming' ORDER BY num").fetchall()
        for row in rows:
            yield message_op(row)
        return
    mine = [t for t in touched if t.kind == MESSAGE]
    found: dict[str, sqlite3.Row] = {}
    for start in range(0, len(mine), 500):
        chunk = [t.id for t in mine[start : start + 500]]
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(f"{select} WHERE id IN ({marks}) ORDER BY num", chunk):
            found[str(row["id"])] = row
    for row in sorted(found.values(), key=lambda r: int(r["num"])):
        if row["status"] != "streaming":
            yield message_op(row)
    live_chats = {t.owner for t in mine if t.id not in found}
    live_chats = {
        c for c in live_chats if c and conn.execute(
            "SELECT 1 FROM sessions WHERE id = ?", (c,)).fetchone()
    }
    for item in mine:
        # A message of a chat erased as a whole goes with the chat's own deletion.
        if item.id not in found and item.owner in live_chats:
            stamp = clock.stamp(item.at)
            record_tombstone(conn, MESSAGE, item.id, stamp)
            yield ["t", MESSAGE, item.id, stamp]


def message_op(row: sqlite3.Row) -> Op:
    return ["m", row["session_id"], {key: row[key] for key in _MESSAGE_KEYS}]
