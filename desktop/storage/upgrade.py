"""Applying schema migrations: all missing ones in one transaction, after a backup.

A process killed during an upgrade leaves the previous schema intact (the
transaction never committed). A failed upgrade is rolled back and the backup
made just before it is restored, so even a step that escaped the transaction
cannot leave a half-upgraded file; the error says so in one sentence.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path

from desktop.core.errors import StorageError
from desktop.storage.backup import KEEP_BACKUPS, make_backup, restore_backup
from desktop.storage.migrations import Migration, MigrationStep
from desktop.storage.sql_script import split_sql

log = logging.getLogger(__name__)


def apply_migrations(
    conn: sqlite3.Connection,
    path: Path,
    migrations: Sequence[Migration],
    *,
    keep_backups: int = KEEP_BACKUPS,
) -> Path | None:
    """Bring the database open on ``conn`` (autocommit mode) up to date.

    Returns the backup made before upgrading (``None`` when nothing was missing or
    the database was new). Raises :class:`StorageError` when the backup or the
    upgrade fails; the database is then as it was.
    """
    if not pending(conn, migrations):
        return None
    start = recorded_version(conn)
    backup: Path | None = None
    if start > 0 or has_user_tables(conn):
        try:
            backup = make_backup(conn, path, f"v{start}", keep=keep_backups)
        except (OSError, sqlite3.Error) as exc:
            raise StorageError(
                f"Cannot back up the database {path} before upgrading it ({exc}). "
                "The database was not modified; free some disk space and try again.",
                code="backup_failed", params={"path": str(path), "detail": str(exc)}
            ) from exc
    version = start
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
        )
        for migration in pending(conn, migrations):  # again: another process may have upgraded
            version = migration.version
            log.info("Applying database migration %d to %s", version, path)
            run_step(conn, migration.step)
            conn.execute(
                "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                (version, time.time()),
            )
        problems = conn.execute("PRAGMA foreign_key_check").fetchall()
        if problems:
            raise StorageError(f"{len(problems)} foreign key problem(s) after the upgrade",
                               code="upgrade_foreign_keys", params={"count": len(problems)})
        conn.execute("COMMIT")
    except BaseException as exc:
        with suppress(sqlite3.Error):
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        if not isinstance(exc, Exception):
            raise
        raise _failed(conn, path, exc, version=version, start=start, backup=backup) from exc
    return backup


def _failed(
    conn: sqlite3.Connection,
    path: Path,
    exc: Exception,
    *,
    version: int,
    start: int,
    backup: Path | None,
) -> StorageError:
    detail = " ".join(str(exc).split()) or type(exc).__name__
    what = f"Upgrading the database {path} (migration {version}) failed: {detail}."
    if backup is None:
        return StorageError(f"{what} The database was left at version {start}.",
                            code="upgrade_failed",
                            params={"path": str(path), "migration": version, "version": start,
                                    "detail": detail})
    try:
        restore_backup(conn, backup)
    except (OSError, sqlite3.Error) as restore_exc:
        log.error("Restoring %s from %s failed: %s", path, backup, restore_exc)
        return StorageError(
            f"{what} Restoring the backup also failed ({restore_exc}); your data is "
            f"safe in {backup}.",
            code="upgrade_restore_failed",
            params={"path": str(path), "migration": version, "backup": str(backup),
                    "detail": f"{detail}; {restore_exc}"}
        )
    log.error("%s Restored the backup %s", what, backup)
    return StorageError(
        f"{what} The database was restored as it was (version {start}); a copy is kept in "
        f"{backup}.",
        code="upgrade_restored",
        params={"path": str(path), "migration": version, "version": start, "backup": str(backup),
                "detail": detail}
    )


def run_step(conn: sqlite3.Connection, step: MigrationStep) -> None:
    if callable(step):
        step(conn)
        if not conn.in_transaction:
            raise StorageError("a migration step ended the transaction it runs in",
                               code="migration_step_broken")
        return
    for statement in split_sql(step):
        conn.execute(statement)


def pending(conn: sqlite3.Connection, migrations: Sequence[Migration]) -> list[Migration]:
    applied: set[int] = set()
    if has_table(conn, "schema_migrations"):
        applied = {int(r[0]) for r in conn.execute("SELECT version FROM schema_migrations")}
    return [m for m in migrations if m.version not in applied]


def has_table(conn: sqlite3.Connection, name: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return row is not None


def has_user_tables(conn: sqlite3.Connection) -> bool:
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchone()
    return row is not None


def recorded_version(conn: sqlite3.Connection) -> int:
    """The newest migration recorded in the file (0 for a new file)."""
    if not has_table(conn, "schema_migrations"):
        return 0
    row = conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def checked_migrations(migrations: Sequence[tuple[int, MigrationStep]]) -> list[Migration]:
    result = [Migration(int(version), step) for version, step in migrations]
    versions = [m.version for m in result]
    if any(v <= 0 for v in versions) or versions != sorted(set(versions)):
        raise ValueError(f"migration versions must be positive and increasing: {versions}")
    return result
