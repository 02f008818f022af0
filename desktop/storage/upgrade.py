"""Applying schema migrations: all missing ones in one transaction, after a backup.

A process killed during an upgrade leaves the previous schema intact (the
transaction never committed). A failed upgrade is rolled back and the backup
made just before it is restored, so even a step that escaped the transaction
cannot leave a half-upgraded file; the error says so in one sentence.

Each feature's steps are recorded in ``_migrations`` as ``(name, version)``. A file
of the app from before (one counter in ``schema_migrations``, versions 1-8) counts a
step as applied when it records the app-wide number the step once had; nothing runs
twice and nothing is converted. The first upgrade adds the row
:data:`~desktop.storage.migration_set.FEATURE_FORMAT` to ``schema_migrations``, so
that app refuses the file from then on, unaltered ("written by a newer version"), as
an app refuses any newer schema. A file with a step newer than a registered feature
knows is refused the same way; a feature this app does not register is left alone.
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
from desktop.storage.migration_set import (
    FEATURE_FORMAT,
    LEGACY_LATEST,
    Migration,
    Migrations,
    MigrationStep,
)
from desktop.storage.sql_script import split_sql

log = logging.getLogger(__name__)

LEGACY_TABLE = "schema_migrations"  # the single app-wide counter, versions 1-8
TABLE = "_migrations"  # (name, version) of every applied step of every feature


def apply_migrations(
    conn: sqlite3.Connection,
    path: Path,
    sets: Sequence[Migrations],
    *,
    keep_backups: int = KEEP_BACKUPS,
) -> Path | None:
    """Bring the database open on ``conn`` (autocommit mode) up to date.

    Returns the backup made before upgrading (``None`` when nothing was missing or
    the database was new). Raises :class:`StorageError` when the backup or the
    upgrade fails; the database is then as it was.
    """
    if not pending(conn, sets):
        return None
    start = describe(recorded_versions(conn, sets))
    backup: Path | None = None
    if has_user_tables(conn):
        try:
            backup = make_backup(conn, path, backup_label(conn, sets), keep=keep_backups)
        except (OSError, sqlite3.Error) as exc:
            raise StorageError(
                f"Cannot back up the database {path} before upgrading it ({exc}). "
                "The database was not modified; free some disk space and try again.",
                code="backup_failed", params={"path": str(path), "detail": str(exc)}
            ) from exc
    step = ""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(f"CREATE TABLE IF NOT EXISTS {LEGACY_TABLE} ("
                     " version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)")
        conn.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} ("
                     " name TEXT NOT NULL, version INTEGER NOT NULL, applied_at REAL NOT NULL,"
                     " PRIMARY KEY (name, version))")
        # An app from before feature-owned migrations reads this as a newer schema.
        conn.execute(f"INSERT OR IGNORE INTO {LEGACY_TABLE} (version, applied_at) VALUES (?, ?)",
                     (FEATURE_FORMAT, time.time()))
        for feature, migration in pending(conn, sets):  # again: another process may have
            step = f"{feature.name} {migration.version}"  # upgraded meanwhile
            log.info("Applying database migration %s to %s", step, path)
            run_step(conn, migration.step)
            conn.execute(f"INSERT INTO {TABLE} (name, version, applied_at) VALUES (?, ?, ?)",
                         (feature.name, migration.version, time.time()))
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
        raise _failed(conn, path, exc, step=step, start=start, backup=backup) from exc
    return backup


def _failed(
    conn: sqlite3.Connection,
    path: Path,
    exc: Exception,
    *,
    step: str,
    start: str,
    backup: Path | None,
) -> StorageError:
    detail = " ".join(str(exc).split()) or type(exc).__name__
    what = f"Upgrading the database {path} (migration {step}) failed: {detail}."
    if backup is None:
        return StorageError(f"{what} The database was left as it was ({start}).",
                            code="upgrade_failed",
                            params={"path": str(path), "migration": step, "version": start,
                                    "detail": detail})
    try:
        restore_backup(conn, backup)
    except (OSError, sqlite3.Error) as restore_exc:
        log.error("Restoring %s from %s failed: %s", path, backup, restore_exc)
        return StorageError(
            f"{what} Restoring the backup also failed ({restore_exc}); your data is "
            f"safe in {backup}.",
            code="upgrade_restore_failed",
            params={"path": str(path), "migration": step, "backup": str(backup),
                    "detail": f"{detail}; {restore_exc}"}
        )
    log.error("%s Restored the backup %s", what, backup)
    return StorageError(
        f"{what} The database was restored as it was ({start}); a copy is kept in {backup}.",
        code="upgrade_restored",
        params={"path": str(path), "migration": step, "version": start, "backup": str(backup),
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


def pending(conn: sqlite3.Connection,
            sets: Sequence[Migrations]) -> list[tuple[Migrations, Migration]]:
    """The steps not applied yet, in order: set by set, each set's in its order.

    A step counts as applied when ``_migrations`` records it, or when it was once the
    app-wide migration N and ``schema_migrations`` records N."""
    done = applied(conn)
    legacy = legacy_versions(conn)
    return [(feature, m) for feature in sets for m in feature.steps
            if m.version not in done.get(feature.name, set())
            and feature.legacy.get(m.version) not in legacy]


def applied(conn: sqlite3.Connection) -> dict[str, set[int]]:
    """Every feature's applied versions recorded in ``_migrations``."""
    found: dict[str, set[int]] = {}
    if has_table(conn, TABLE):
        for name, version in conn.execute(f"SELECT name, version FROM {TABLE}"):
            found.setdefault(str(name), set()).add(int(version))
    return found


def legacy_versions(conn: sqlite3.Connection) -> set[int]:
    """The versions of the app-wide counter recorded in the file (with the format mark)."""
    if not has_table(conn, LEGACY_TABLE):
        return set()
    return {int(r[0]) for r in conn.execute(f"SELECT version FROM {LEGACY_TABLE}")}


def recorded_versions(conn: sqlite3.Connection, sets: Sequence[Migrations]) -> dict[str, int]:
    """Each feature's newest applied version (0: none), for the known sets and any other
    recorded in the file (``_migrations``)."""
    done = applied(conn)
    legacy = legacy_versions(conn)
    versions = {name: max(found) for name, found in done.items()}
    for feature in sets:
        from_legacy = [v for v, n in feature.legacy.items() if n in legacy]
        versions[feature.name] = max([versions.get(feature.name, 0), *from_legacy])
    return versions


def newer_than_known(conn: sqlite3.Connection,
                     sets: Sequence[Migrations]) -> tuple[str, str, int] | None:
    """What in the file a newer app wrote (``None``: nothing): the English words, the
    schema found (``9``, ``knowledge 3``) and the newest this app knows. A feature this
    app does not register is not its concern: those tables are left alone."""
    old = [v for v in legacy_versions(conn) if v != FEATURE_FORMAT]
    if max(old, default=0) > LEGACY_LATEST or max(legacy_versions(conn), default=0) > \
            FEATURE_FORMAT:
        newest = max(legacy_versions(conn))
        return (f"schema {newest}; this version knows up to {LEGACY_LATEST}", str(newest),
                LEGACY_LATEST)
    versions = recorded_versions(conn, sets)
    for feature in sets:
        if versions[feature.name] > feature.latest:
            return (f"{feature.name} schema {versions[feature.name]}; this version knows up "
                    f"to {feature.latest}", f"{feature.name} {versions[feature.name]}",
                    feature.latest)
    return None


def describe(versions: dict[str, int]) -> str:
    """``chats 4, sync 1`` (or ``a new file``)."""
    shown = [f"{name} {version}" for name, version in versions.items() if version]
    return ", ".join(shown) or "a new file"


def backup_label(conn: sqlite3.Connection, sets: Sequence[Migrations]) -> str:
    """``v8`` for a file of the app-wide counter, ``vchats4_sync1_...`` after that (the
    backups' names start with ``v``, see :func:`desktop.storage.backup.list_backups`)."""
    legacy = legacy_versions(conn)
    if legacy and FEATURE_FORMAT not in legacy:
        return f"v{max(legacy)}"
    versions = recorded_versions(conn, sets)
    return "v" + "_".join(f"{name}{version}" for name, version in versions.items() if version)


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
