"""This device's sync bookkeeping in ``sync_meta``: id, clock, next segment, last run,
and what it knows of each target it synced with."""

from __future__ import annotations

import json
import sqlite3

import msgspec

from desktop.core.messages import new_id
from desktop.sync.clock import HybridClock

DEVICE_ID = "device_id"
CLOCK = "clock"
SEEDED = "seeded"  # the data from before sync was set up has been queued once
NEXT_SEQ = "next_seq"
LAST_SYNC_AT = "last_sync_at"
LAST_ERROR = "last_error"
SMALL_SEGMENTS = "small_segments"  # small segments uploaded since the last compaction
TARGET_PREFIX = "target:"  # + the target's description: a TargetRecord


class TargetRecord(msgspec.Struct, frozen=True):
    """What this device saw of one target. ``held``: the last of its segments the target
    was seen to hold (after an upload, read back from its listing); a listing showing
    less means the target lost them (or was emptied). ``upload_limit``: the size below
    which uploads are split (learnt from a 413); 0 when it refused none. ``limit_at``:
    when it was learnt (a server's limit may be raised: it is tried again later)."""

    held: int = 0
    upload_limit: int = 0
    limit_at: float = 0.0


def target_record(conn: sqlite3.Connection, description: str) -> TargetRecord:
    raw = get_meta(conn, TARGET_PREFIX + description)
    try:
        doc = json.loads(raw) if raw else {}
        return TargetRecord(int(doc.get("held", 0)), int(doc.get("upload_limit", 0)),
                            float(doc.get("limit_at", 0.0)))
    except (ValueError, TypeError, AttributeError):
        return TargetRecord()


def save_target_record(conn: sqlite3.Connection, description: str,
                       record: TargetRecord) -> None:
    set_meta(conn, TARGET_PREFIX + description, json.dumps(msgspec.structs.asdict(record)))


def get_meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM sync_meta WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row is not None else None


def set_meta(conn: sqlite3.Connection, key: str, value: str | None) -> None:
    if value is None:
        conn.execute("DELETE FROM sync_meta WHERE key = ?", (key,))
        return
    conn.execute(
        "INSERT INTO sync_meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def device_id(conn: sqlite3.Connection) -> str:
    """This database's device id, made on first use (hex: safe in paths and stamps)."""
    existing = get_meta(conn, DEVICE_ID)
    if existing:
        return existing
    made = new_id()[:20]
    set_meta(conn, DEVICE_ID, made)
    return made


def load_clock(conn: sqlite3.Connection) -> HybridClock:
    return HybridClock(device_id(conn), int(get_meta(conn, CLOCK) or 0))


def save_clock(conn: sqlite3.Connection, clock: HybridClock) -> None:
    set_meta(conn, CLOCK, str(clock.value))
