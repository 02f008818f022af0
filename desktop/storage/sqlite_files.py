"""Opening SQLite files, and what their errors mean: a damaged file, a full disk, a
folder that cannot be written (for :class:`desktop.storage.database.Database` and the
readers that open a file read-only beside it)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from desktop.core.errors import StorageError

SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_FULL = 13
NEARLY_FULL = 64 * 1024  # bytes free: less and SQLite's writes fail
SQLITE_CORRUPT = 11
SQLITE_CANTOPEN = 14
SQLITE_NOTADB = 26


class DatabaseCorruptError(StorageError):
    """The database file is damaged or is not a database at all."""


def error_code(exc: BaseException) -> int:
    """The primary SQLite result code of ``exc`` (-1: none)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else -1


def is_corruption(exc: BaseException) -> bool:
    """Whether a sqlite3 error means a damaged file (not a busy or missing one)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB)
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


def connect_read_only(path: Path, timeout_s: float) -> sqlite3.Connection:
    """A connection that never writes to ``path`` or next to it.

    A WAL database needs its ``-shm`` file, which SQLite cannot make in a folder that
    cannot be written (a read-only mount): the file is then opened as immutable,
    which it is for as long as nobody can write there."""
    for options in ("mode=ro", "mode=ro&immutable=1"):
        conn = sqlite3.connect(f"{path.absolute().as_uri()}?{options}", uri=True,
                               timeout=timeout_s, isolation_level=None,
                               check_same_thread=False)
        try:
            conn.execute("PRAGMA schema_version").fetchone()
        except sqlite3.OperationalError as exc:
            conn.close()
            if error_code(exc) not in (SQLITE_CANTOPEN, SQLITE_IOERR):  # (IOERR: a full disk)
                raise
            if not path.is_file():
                raise sqlite3.OperationalError(f"{path} does not exist") from exc
            wal = path.with_name(path.name + "-wal")
            if wal.is_file() and wal.stat().st_size:  # immutable would not see its changes
                raise sqlite3.OperationalError(
                    f"{path} has changes in {wal.name} that cannot be read without "
                    "writing next to it") from exc
            continue
        return conn
    raise sqlite3.OperationalError(f"{path} cannot be opened read-only")


def connect(path: Path, busy_timeout_ms: int, read_only: bool) -> sqlite3.Connection:
    """The connection a :class:`~desktop.storage.database.Database` works through."""
    if read_only and str(path) != ":memory:":
        return connect_read_only(path, busy_timeout_ms / 1000)
    return sqlite3.connect(
        path,
        timeout=busy_timeout_ms / 1000,
        isolation_level=None,  # we issue BEGIN/COMMIT ourselves
        check_same_thread=False,
    )


def wrap(exc: sqlite3.Error, path: Path, what: str) -> StorageError:
    """``exc`` as the error the app shows: damaged, disk full, or failed."""
    if is_corruption(exc):
        return DatabaseCorruptError(
            f"The database {path} is damaged ({exc}). Restart Assista to recover it.",
            code="database_damaged_restart", params={"path": str(path), "detail": str(exc)}
        )
    note = disk_full_note(path, exc)
    return StorageError(f"{what}: {exc}{note}",
                        code="database_disk_full" if note else "database_failed",
                        params={"path": str(path), "detail": str(exc)})


def disk_full_note(path: Path, exc: sqlite3.Error) -> str:
    """" (the disk holding it is full)" when that is why a write failed: SQLite often
    says only "disk I/O error" then."""
    if error_code(exc) not in (SQLITE_IOERR, SQLITE_FULL) or str(path) == ":memory:":
        return ""
    try:
        free = shutil.disk_usage(path.parent).free
    except OSError:
        return ""
    return " (the disk holding it is full)" if free < NEARLY_FULL else ""
