"""One SQLite database file in WAL mode, with numbered migrations.

The connection is opened with ``check_same_thread=False`` and every use goes
through one re-entrant lock, so the stores may be called from the asyncio
thread and from worker threads alike. All writes are short transactions
started with ``BEGIN IMMEDIATE``; a process killed in the middle of one loses
only that transaction (WAL + ``synchronous=NORMAL`` keep committed data
across an application crash; a power loss may drop the last few commits).

Opening applies every missing migration in **one** transaction, after a backup
of the file (see :mod:`desktop.storage.backup`): a process killed during an
upgrade leaves the old schema intact, and a failed upgrade is rolled back and
the backup restored. A file written by a newer app is refused, not altered. A
damaged file raises :class:`DatabaseCorruptError` (see
:func:`desktop.storage.recovery.open_database`, which moves it aside).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType
from typing import Any

from desktop.core.errors import ReadOnlyStorageError, StorageError
from desktop.core.waits import wait_scale
from desktop.storage.backup import KEEP_BACKUPS
from desktop.storage.migration_set import Migrations, checked_sets
from desktop.storage.migrations import STORAGE_MIGRATIONS
from desktop.storage.sqlite_files import (
    SQLITE_CANTOPEN,
    SQLITE_READONLY,
    DatabaseCorruptError,
    connect,
    disk_full_note,
    error_code,
    is_corruption,
    wrap,
)
from desktop.storage.upgrade import (
    apply_migrations,
    describe,
    newer_than_known,
    pending,
    recorded_versions,
)

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000

Params = Sequence[Any] | dict[str, Any]

class Database:
    """An open database. Use as a context manager or call :meth:`close`."""

    def __init__(
        self,
        path: str | Path,
        *,
        migrations: Sequence[Migrations] = STORAGE_MIGRATIONS,
        busy_timeout_ms: int | None = None,
        verify: bool = False,
        read_only: bool = False,
        keep_backups: int = KEEP_BACKUPS,
    ) -> None:
        """Open ``path``, creating and upgrading it as needed.

        ``verify`` runs ``PRAGMA quick_check`` first (a damaged file raises
        :class:`DatabaseCorruptError`). ``read_only`` opens without writing
        anything (no upgrade, no journal-mode change); every write then raises
        :class:`StorageError`. ``migrations`` are the features' sets, in order: storage's
        own by default, the composition root adds the other features'.
        """
        self.path = Path(path)
        self.read_only = read_only
        self.backup_path: Path | None = None  # the backup made before an upgrade
        self._migrations = checked_sets(migrations)
        self._keep_backups = keep_backups
        self._lock = threading.RLock()
        self._depth = 0
        self._closed = False
        if busy_timeout_ms is None:  # the app's wait, or shorter (desktop.core.waits)
            busy_timeout_ms = max(1, round(BUSY_TIMEOUT_MS * wait_scale()))
        try:
            self._conn = connect(self.path, busy_timeout_ms, read_only)
        except sqlite3.Error as exc:
            raise StorageError(f"Cannot open the database {self.path}: {exc}",
                               code="database_open_failed",
                               params={"path": str(self.path), "detail": str(exc)}) from exc
        try:
            self._conn.row_factory = sqlite3.Row
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            self._conn.execute("PRAGMA foreign_keys = ON")
            # Check the version before anything can modify the file.
            self._check_not_newer()
            if verify:
                self._verify()
            if read_only:
                self._conn.execute("PRAGMA query_only = ON")
                self._check_current()
            else:
                self._set_journal_mode()
                self._conn.execute("PRAGMA synchronous = NORMAL")
                self._migrate()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            if is_corruption(exc):
                raise DatabaseCorruptError(
                    f"The database {self.path} cannot be used ({exc}). It may be damaged or "
                    "not an Assista database.",
                    code="database_unusable", params={"path": str(self.path), "detail": str(exc)}
                ) from exc
            full = disk_full_note(self.path, exc)
            if (error_code(exc) in (SQLITE_READONLY, SQLITE_CANTOPEN) or full) \
                    and self.path.is_file():
                raise ReadOnlyStorageError(
                    f"The database {self.path} cannot be written "
                    f"({'the disk holding it is full' if full else exc}).",
                    code="database_disk_full" if full else "database_unwritable",
                    params={"path": str(self.path), "detail": str(exc)}
                ) from exc
            raise StorageError(f"Cannot open the database {self.path}: {exc}",
                               code="database_open_failed",
                               params={"path": str(self.path), "detail": str(exc)}) from exc
        except BaseException:
            self._conn.close()
            raise

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        migrations: Sequence[Migrations] = STORAGE_MIGRATIONS,
        busy_timeout_ms: int | None = None,
        verify: bool = False,
        read_only: bool = False,
    ) -> Database:
        """Same as the constructor: open (creating/migrating as needed) ``path``."""
        return cls(
            path,
            migrations=migrations,
            busy_timeout_ms=busy_timeout_ms,
            verify=verify,
            read_only=read_only,
        )

    # -- public API -----------------------------------------------------------------

    @property
    def latest_versions(self) -> dict[str, int]:
        """The newest version of each feature's schema this app knows."""
        return {feature.name: feature.latest for feature in self._migrations}

    @property
    def schema_versions(self) -> dict[str, int]:
        """The newest migration of each feature recorded in the file (0: none)."""
        with self._lock:
            return recorded_versions(self._conn, self._migrations)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (``BEGIN IMMEDIATE``); nested uses join the outer one.

        Commits on success, rolls back on any exception. sqlite3 errors are
        re-raised as :class:`StorageError`.
        """
        with self._lock:
            self._ensure_open()
            if self.read_only:
                raise StorageError(
                    f"The database {self.path} is open read-only (its folder cannot be "
                    "written); this change was not saved.",
                    code="database_read_only", params={"path": str(self.path)}
                )
            if self._depth:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StorageError(f"The database is busy or unavailable: {exc}",
                                   code="database_busy", params={"detail": str(exc)}) from exc
            self._depth = 1
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException as exc:
                with suppress(sqlite3.Error):
                    if self._conn.in_transaction:
                        self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise wrap(exc, self.path, "Database write failed") from exc
                raise
            finally:
                self._depth = 0

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every query inside sees the same committed state.

        Works on a read-only database too; inside :meth:`transaction` it joins it.
        """
        with self._lock:
            self._ensure_open()
            if self._depth or self._conn.in_transaction:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            try:
                self._conn.execute("BEGIN")
            except sqlite3.Error as exc:
                raise wrap(exc, self.path, "Database read failed") from exc
            self._depth = 1
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise wrap(exc, self.path, "Database read failed") from exc
            finally:
                self._depth = 0
                with suppress(sqlite3.Error):
                    if self._conn.in_transaction:
                        self._conn.execute("COMMIT")

    def query(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Run a read statement and return all rows."""
        with self._lock:
            self._ensure_open()
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise wrap(exc, self.path, "Database read failed") from exc

    def query_one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def execute(self, sql: str, params: Params = ()) -> int:
        """Run one write statement in its own transaction; return the changed row count."""
        with self.transaction() as conn:
            return conn.execute(sql, params).rowcount

    def integrity_check(self) -> list[str]:
        """``PRAGMA integrity_check`` results: ``["ok"]`` for a healthy file."""
        return [str(row[0]) for row in self.query("PRAGMA integrity_check")]

    def quick_check(self) -> list[str]:
        """``PRAGMA quick_check`` results: ``["ok"]`` for a healthy file (faster than
        :meth:`integrity_check`: it skips matching indexes against tables)."""
        return [str(row[0]) for row in self.query("PRAGMA quick_check")]

    def checkpoint(self) -> None:
        """Fold the WAL back into the main file (e.g. before a backup)."""
        with self._lock:
            self._ensure_open()
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            with suppress(sqlite3.Error):
                self._conn.execute("PRAGMA optimize")
            self._conn.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Database:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- opening --------------------------------------------------------------------

    def _ensure_open(self) -> None:
        if self._closed:
            raise StorageError("The database is closed.", code="database_closed")

    def _check_not_newer(self) -> None:
        newer = newer_than_known(self._conn, self._migrations)
        if newer:
            raise StorageError(
                f"The database {self.path} was written by a newer version of Assista "
                f"({newer[0]}). "
                "Update Assista, or start it with --data-dir pointing to another folder. "
                "The database was not modified.",
                code="database_newer",
                params={"path": str(self.path), "schema": newer[1], "known": newer[2]}
            )

    def _set_journal_mode(self) -> None:
        row = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()
        mode = str(row[0]).lower() if row else ""
        if mode != "wal" and str(self.path) != ":memory:":
            log.warning("SQLite WAL mode unavailable for %s (journal_mode=%s)", self.path, mode)

    def _verify(self) -> None:
        rows = [str(r[0]) for r in self._conn.execute("PRAGMA quick_check(20)")]
        if rows != ["ok"]:
            first = " ".join(rows[0].split()) if rows else "no result"
            raise DatabaseCorruptError(
                f"The database {self.path} is damaged ({first}"
                f"{f' and {len(rows) - 1} more problems' if len(rows) > 1 else ''}).",
                code="database_damaged", params={"path": str(self.path), "detail": first}
            )

    def _check_current(self) -> None:
        missing = pending(self._conn, self._migrations)
        if missing:
            steps = describe({feature.name: m.version for feature, m in missing})
            raise StorageError(
                f"The database {self.path} needs an upgrade (to {steps}) and cannot be "
                "opened read-only.",
                code="database_needs_upgrade",
                params={"path": str(self.path),
                        "schema": describe(recorded_versions(self._conn, self._migrations)),
                        "known": steps}
            )

    def _migrate(self) -> None:
        self.backup_path = apply_migrations(
            self._conn, self.path, self._migrations, keep_backups=self._keep_backups
        )
