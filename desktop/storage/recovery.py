"""Opening the database at startup, surviving a damaged file.

:func:`open_database` opens (and upgrades) the database. When the file is
damaged — not a database, or ``PRAGMA quick_check`` fails — it is moved
aside into ``backups/damaged-<time>/`` (never deleted), a fresh database is
created, and every row that can still be read from the damaged copy is
copied into it (chats, messages, settings, providers, assistants). The
result says what happened, in a sentence the window can show.
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Literal

import msgspec

from desktop.core.errors import StorageError
from desktop.storage import tree
from desktop.storage.backup import list_backups, move_aside
from desktop.storage.database import Database
from desktop.storage.integrity_check import VERIFY_AUTO_MAX_BYTES
from desktop.storage.migration_set import Migrations
from desktop.storage.migrations import STORAGE_MIGRATIONS
from desktop.storage.paths import DataPaths
from desktop.storage.sqlite_files import DatabaseCorruptError

log = logging.getLogger(__name__)

SALVAGE_TABLES = ("sessions", "messages", "settings", "providers", "assistants")


class OpenedDatabase(msgspec.Struct, weakref=True):
    """The database opened at start-up, and whether it had to be recovered."""

    db: Database
    status: Literal["ok", "recovered"] = "ok"
    notice: str | None = None  # for the user when status is "recovered"
    damaged_copy: Path | None = None  # where the damaged file now is
    salvaged: dict[str, int] = msgspec.field(default_factory=dict)  # rows copied, per table


def open_database(
    paths: DataPaths, *, verify: bool | None = None, read_only: bool = False,
    migrations: Sequence[Migrations] = STORAGE_MIGRATIONS,
) -> OpenedDatabase:
    """Open the data folder's database; recover from a damaged file (see module doc).

    ``verify`` runs ``PRAGMA quick_check`` first; ``None`` (default) does so only for
    files under :data:`VERIFY_AUTO_MAX_BYTES` — pass ``True`` when the previous run
    did not shut down cleanly (``InstanceLock.previous_unclean``). A read-only open
    never moves files: it raises instead. Other problems (newer schema, failed
    upgrade, locked file) raise :class:`StorageError` with a message for the user.
    """
    if verify is None:
        try:
            verify = paths.db_path.stat().st_size < VERIFY_AUTO_MAX_BYTES
        except OSError:
            verify = False
    try:
        return OpenedDatabase(Database(paths.db_path, verify=verify, read_only=read_only,
                                       migrations=migrations))
    except DatabaseCorruptError as exc:
        if read_only:
            raise
        reason = str(exc)
    log.error("%s Moving it aside and starting a new database.", reason)
    try:
        moved = move_aside(paths.db_path, "damaged")
    except OSError as exc:
        raise StorageError(
            f"{reason} It could not be moved aside ({exc.strerror or exc}); move it away "
            "yourself and start Assista again.",
            code="database_unmovable",
            params={"path": str(paths.db_path), "detail": exc.strerror or str(exc)}
        ) from exc
    db = Database(paths.db_path, migrations=migrations)
    salvaged = salvage(moved, db)
    chats = salvaged.get("sessions", 0)
    notice = (
        f"The database was damaged. It was moved aside to {moved} and a new one was "
        f"created; {chats} chat{'s' if chats != 1 else ''} and "
        f"{salvaged.get('messages', 0)} messages could be copied from it."
    )
    backups = list_backups(paths.db_path)
    if backups:
        notice += f" The copy made before the last upgrade is {backups[0]}."
    return OpenedDatabase(db, "recovered", notice, moved, salvaged)


def salvage(damaged: Path, db: Database) -> dict[str, int]:
    """Copy every readable row of the known tables from ``damaged`` into ``db``."""
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="assista-salvage-") as scratch:
        copy = Path(scratch) / damaged.name
        for suffix in ("", "-wal"):
            source = Path(f"{damaged}{suffix}")
            if source.exists():
                shutil.copyfile(source, Path(f"{copy}{suffix}"))
        try:
            source_conn = sqlite3.connect(copy)
        except sqlite3.Error:
            return counts
        try:
            with db.transaction() as conn:
                for table in SALVAGE_TABLES:
                    counts[table] = _copy_table(source_conn, conn, table)
                if counts.get("messages"):
                    _mend_messages(conn)
                tree.repair_leaves(conn)
        except StorageError as exc:
            log.error("Salvaging %s failed: %s", damaged, exc)
            return {}
        finally:
            source_conn.close()
    log.info("Salvaged from %s: %s", damaged, counts)
    return counts


def _readable_rows(conn: sqlite3.Connection, table: str) -> Iterator[sqlite3.Row]:
    """Rows readable from the start, then from the end (around a damaged page)."""
    seen: set[int] = set()
    for order in ("ASC", "DESC"):
        try:
            cursor = conn.execute(f"SELECT rowid AS _rowid_, * FROM {table} ORDER BY rowid {order}")
            for row in cursor:
                if row["_rowid_"] in seen:
                    return
                seen.add(row["_rowid_"])
                yield row
        except sqlite3.DatabaseError as exc:
            log.warning("Reading %s stopped (%s)", table, exc)


def _copy_table(source: sqlite3.Connection, target: sqlite3.Connection, table: str) -> int:
    source.row_factory = sqlite3.Row
    try:
        source_columns = {r[1] for r in source.execute(f"PRAGMA table_info({table})")}
    except sqlite3.DatabaseError:
        return 0
    target_columns = [r[1] for r in target.execute(f"PRAGMA table_info({table})")]
    columns = [c for c in target_columns if c in source_columns]
    if not columns:
        return 0
    if table == "messages":
        _add_missing_sessions(source, target)
    sql = (
        f"INSERT OR IGNORE INTO {table} ({', '.join(columns)}) "
        f"VALUES ({', '.join('?' * len(columns))})"
    )
    count = 0
    for row in _readable_rows(source, table):
        try:
            count += target.execute(sql, [row[c] for c in columns]).rowcount
        except sqlite3.Error as exc:  # e.g. a NULL in a damaged row
            log.warning("Skipped a damaged %s row: %s", table, exc)
    return count


def _add_missing_sessions(source: sqlite3.Connection, target: sqlite3.Connection) -> None:
    """Messages whose chat row was lost get a placeholder chat."""
    for row in _readable_rows(source, "messages"):
        session_id = row["session_id"]
        if (
            session_id is None
            or target.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone()
        ):
            continue
        when = row["created_at"] or 0.0
        target.execute(
            "INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
            (session_id, "Recovered chat", when, when),
        )


def _mend_messages(conn: sqlite3.Connection) -> None:
    """Messages whose parent was lost, and chats saved before branches existed (no
    parents at all), follow the message before them, so each chat reads whole again."""
    conn.execute(
        """
        UPDATE messages SET parent_id = prev.before_id
        FROM (SELECT id, LAG(id) OVER (PARTITION BY session_id ORDER BY seq) AS before_id
              FROM messages) AS prev
        WHERE messages.id = prev.id AND prev.before_id IS NOT NULL AND (
            (messages.parent_id IS NOT NULL
             AND messages.parent_id NOT IN (SELECT id FROM messages))
            OR messages.session_id IN (SELECT session_id FROM messages GROUP BY session_id
                                       HAVING COUNT(parent_id) = 0))
        """
    )
