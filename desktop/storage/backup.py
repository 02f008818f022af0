"""Copies of the database file made with SQLite's online backup API.

A backup is taken before every schema upgrade (kept in ``backups/`` next to the
database, the newest :data:`KEEP_BACKUPS` per database name) and a damaged
database is moved into the same folder before a fresh one replaces it.
Backups are written to a ``.partial`` file first and renamed when complete, so
a process killed mid-backup never leaves a half copy that looks usable.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import time
from pathlib import Path

BACKUP_DIRNAME = "backups"
KEEP_BACKUPS = 5


def backup_dir_for(db_path: Path) -> Path:
    return db_path.parent / BACKUP_DIRNAME


def list_backups(db_path: Path) -> list[Path]:
    """Upgrade backups of ``db_path``, newest first."""
    directory = backup_dir_for(db_path)
    if not directory.is_dir():
        return []
    found = [p for p in directory.glob(f"{db_path.stem}-v*.sqlite3") if p.is_file()]
    return sorted(found, key=lambda p: (p.stat().st_mtime_ns, p.name), reverse=True)


def make_backup(
    conn: sqlite3.Connection, db_path: Path, label: str, *, keep: int = KEEP_BACKUPS
) -> Path:
    """Copy the database open on ``conn`` to ``backups/<stem>-<label>-<time>.sqlite3``.

    The copy is a consistent snapshot (it includes committed data still in the
    WAL) in rollback-journal mode, so it is one self-contained file. Older
    backups beyond ``keep`` are deleted. Raises ``OSError`` / ``sqlite3.Error``.
    """
    directory = ensure_private_dir(backup_dir_for(db_path))
    for stale in directory.glob(f"{db_path.stem}-v*.sqlite3.partial*"):  # from a killed run
        with contextlib.suppress(OSError):
            stale.unlink()
    final = _unique(directory, f"{db_path.stem}-{label}-{_stamp()}", ".sqlite3")
    partial = final.with_name(final.name + ".partial")
    try:
        dest = sqlite3.connect(partial)
        try:
            conn.backup(dest)
            dest.execute("PRAGMA journal_mode = DELETE")
        finally:
            dest.close()
        _make_private(partial)
        os.replace(partial, final)
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
    _rotate(db_path, keep)
    return final


def restore_backup(conn: sqlite3.Connection, backup: Path) -> None:
    """Overwrite the database open on ``conn`` with the content of ``backup``."""
    source = sqlite3.connect(f"{backup.absolute().as_uri()}?mode=ro", uri=True)
    try:
        source.backup(conn)
    finally:
        source.close()


def move_aside(db_path: Path, reason: str) -> Path:
    """Move ``db_path`` and its ``-wal``/``-shm`` files into ``backups/<reason>-<time>/``.

    Returns the new location of the database file. Raises ``OSError``.
    """
    directory = ensure_private_dir(backup_dir_for(db_path))
    target = _unique(directory, f"{reason}-{_stamp()}", "")
    target.mkdir(mode=0o700)
    for suffix in ("", "-wal", "-shm", "-journal"):
        source = Path(f"{db_path}{suffix}")
        if source.exists():
            os.replace(source, target / source.name)
    return target / db_path.name


def ensure_private_dir(path: Path) -> Path:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def _stamp() -> str:
    now = time.time()
    return time.strftime("%Y%m%d-%H%M%S", time.localtime(now)) + f"-{int(now % 1 * 1000):03d}"


def _unique(directory: Path, stem: str, suffix: str) -> Path:
    candidate = directory / f"{stem}{suffix}"
    n = 1
    while candidate.exists() or Path(f"{candidate}.partial").exists():
        n += 1
        candidate = directory / f"{stem}-{n}{suffix}"
    return candidate


def _make_private(path: Path) -> None:
    if os.name == "posix":
        with contextlib.suppress(OSError):
            os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)


def _rotate(db_path: Path, keep: int) -> None:
    for old in list_backups(db_path)[max(keep, 1) :]:
        with contextlib.suppress(OSError):
            old.unlink()
