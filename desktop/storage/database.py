"""One SQLite database file in WAL mode, with numbered migrations.

The connection is opened with ``check_same_thread=False`` and every use goes
through one re-entrant lock, so the stores may be called from the asyncio
thread and from worker threads alike. All writes are short transactions
started with ``BEGIN IMMEDIATE``; a process killed in the middle of one loses
only that transaction (WAL + ``synchronous=NORMAL`` keep committed data
across an application crash; a power loss may drop the last few commits).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType
from typing import Any

from desktop.core.errors import StorageError
from desktop.storage.migrations import MIGRATIONS, Migration, MigrationStep, split_sql

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000

Params = Sequence[Any] | dict[str, Any]


class Database:
    """An open database. Use as a context manager or call :meth:`close`."""

    def __init__(
        self,
        path: str | Path,
        *,
        migrations: Sequence[tuple[int, MigrationStep]] = MIGRATIONS,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    ) -> None:
        self.path = Path(path)
        self._migrations = _checked_migrations(migrations)
        self._lock = threading.RLock()
        self._depth = 0
        self._closed = False
        try:
            self._conn = sqlite3.connect(
                self.path,
                timeout=busy_timeout_ms / 1000,
                isolation_level=None,  # we issue BEGIN/COMMIT ourselves
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise StorageError(f"Cannot open the database {self.path}: {exc}") from exc
        try:
            self._conn.row_factory = sqlite3.Row
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            self._conn.execute("PRAGMA foreign_keys = ON")
            # Check the version before anything can modify the file.
            self._check_not_newer()
            self._set_journal_mode()
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._migrate()
        except sqlite3.OperationalError as exc:
            self._conn.close()
            raise StorageError(f"Cannot open the database {self.path}: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise StorageError(
                f"The database {self.path} cannot be used ({exc}). It may be damaged or "
                "not an Assista database."
            ) from exc
        except BaseException:
            self._conn.close()
            raise

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        migrations: Sequence[tuple[int, MigrationStep]] = MIGRATIONS,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    ) -> Database:
        """Same as the constructor: open (creating/migrating as needed) ``path``."""
        return cls(path, migrations=migrations, busy_timeout_ms=busy_timeout_ms)

    # -- public API -----------------------------------------------------------------

    @property
    def latest_version(self) -> int:
        """The newest schema version this app knows."""
        return self._migrations[-1].version if self._migrations else 0

    @property
    def schema_version(self) -> int:
        """The newest migration recorded in the file."""
        with self._lock:
            return _recorded_version(self._conn)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (``BEGIN IMMEDIATE``); nested uses join the outer one.

        Commits on success, rolls back on any exception. sqlite3 errors are
        re-raised as :class:`StorageError`.
        """
        with self._lock:
            self._ensure_open()
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
                raise StorageError(f"The database is busy or unavailable: {exc}") from exc
            self._depth = 1
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException as exc:
                with suppress(sqlite3.Error):
                    if self._conn.in_transaction:
                        self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise StorageError(f"Database write failed: {exc}") from exc
                raise
            finally:
                self._depth = 0

    def query(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Run a read statement and return all rows."""
        with self._lock:
            self._ensure_open()
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StorageError(f"Database read failed: {exc}") from exc

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
            raise StorageError("The database is closed.")

    def _check_not_newer(self) -> None:
        recorded = _recorded_version(self._conn)
        if recorded > self.latest_version:
            raise StorageError(
                f"The database {self.path} was written by a newer version of Assista "
                f"(schema {recorded}; this version knows up to {self.latest_version}). "
                "Update Assista, or start it with --data-dir pointing to another folder. "
                "The database was not modified."
            )

    def _set_journal_mode(self) -> None:
        row = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()
        mode = str(row[0]).lower() if row else ""
        if mode != "wal" and str(self.path) != ":memory:":
            log.warning("SQLite WAL mode unavailable for %s (journal_mode=%s)", self.path, mode)

    def _migrate(self) -> None:
        conn = self._conn
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
        )
        applied = {int(r[0]) for r in conn.execute("SELECT version FROM schema_migrations")}
        for migration in self._migrations:
            if migration.version in applied:
                continue
            log.info("Applying database migration %d to %s", migration.version, self.path)
            conn.execute("BEGIN IMMEDIATE")
            try:
                _run_step(conn, migration.step)
                conn.execute(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                    (migration.version, time.time()),
                )
                conn.execute("COMMIT")
            except BaseException as exc:
                with suppress(sqlite3.Error):
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error | StorageError):
                    raise StorageError(
                        f"Database migration {migration.version} failed for {self.path}: "
                        f"{exc}. The database was left at version "
                        f"{max(applied, default=0)}."
                    ) from exc
                raise
            applied.add(migration.version)


def _run_step(conn: sqlite3.Connection, step: MigrationStep) -> None:
    if callable(step):
        step(conn)
        if not conn.in_transaction:
            raise StorageError("a migration step ended the transaction it runs in")
        return
    for statement in split_sql(step):
        conn.execute(statement)


def _recorded_version(conn: sqlite3.Connection) -> int:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if not exists:
        return 0
    row = conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def _checked_migrations(migrations: Sequence[tuple[int, MigrationStep]]) -> list[Migration]:
    result = [Migration(int(version), step) for version, step in migrations]
    versions = [m.version for m in result]
    if any(v <= 0 for v in versions) or versions != sorted(set(versions)):
        raise ValueError(f"migration versions must be positive and increasing: {versions}")
    return result
