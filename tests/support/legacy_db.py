"""Database files as the app wrote them before feature-owned migrations: one app-wide
counter (``schema_migrations``, versions 1-8) and the steps applied in that order.

The steps are the features' own (each says which app-wide migration it was); applying
them the old way, with only the old table, writes what that app wrote. For files with
data written by that app itself, see tests/storage/data/legacy_v*.sqlite3.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from desktop.app import DATABASE_MIGRATIONS
from desktop.storage.migration_set import MigrationStep
from desktop.storage.upgrade import run_step


def legacy_steps() -> list[tuple[int, MigrationStep]]:
    """The app-wide migrations 1-8, in their order."""
    steps = {number: migration.step for feature in DATABASE_MIGRATIONS
             for migration in feature.steps
             for version, number in feature.legacy.items() if version == migration.version}
    return sorted(steps.items(), key=lambda item: item[0])


@contextmanager
def legacy_database(path: Path, upto: int) -> Iterator[sqlite3.Connection]:
    """A transaction on ``path``, a file of the app-wide migrations up to ``upto``."""
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations ("
                     " version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)")
        done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
        for number, step in legacy_steps():
            if number <= upto and number not in done:
                run_step(conn, step)
                conn.execute("INSERT INTO schema_migrations VALUES (?, ?)",
                             (number, time.time()))
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
