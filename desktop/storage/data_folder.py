"""Opening a data folder: its logs, its instance lock, its database.

A folder that cannot be written (a read-only mount, an immutable file, no permission)
raises :class:`ReadOnlyStorageError` with one line saying so; it can then be opened
with ``read_only=True``: no lock, no log file, nothing created, the database opened
read-only (every write raises :class:`StorageError`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from desktop.core.errors import ReadOnlyStorageError, StorageError
from desktop.storage.database import Database
from desktop.storage.instance_lock import LOCK_FILENAME, InstanceLock, acquire_instance_lock
from desktop.storage.logs import SecretRedactor, setup_logging
from desktop.storage.migration_set import Migrations
from desktop.storage.migrations import STORAGE_MIGRATIONS
from desktop.storage.paths import DataPaths, cannot_write
from desktop.storage.recovery import open_database


class OpenedFolder(NamedTuple):
    paths: DataPaths
    db: Database
    lock: InstanceLock | None
    notice: str | None  # a repair to tell the user about


def open_data_folder(data_dir: str | None, redactor: SecretRedactor, *, log_to_stderr: bool,
                     lock: InstanceLock | None = None, verify: bool | None = None,
                     read_only: bool = False,
                     migrations: Sequence[Migrations] = STORAGE_MIGRATIONS) -> OpenedFolder:
    """The folder's paths, database and lock (None in a second process, or read-only).
    ``migrations``: every feature's, in order (the composition root's)."""
    if read_only:
        return _open_read_only(data_dir, redactor, log_to_stderr, migrations)
    paths = DataPaths.resolve(data_dir)
    setup_logging(paths, stderr=log_to_stderr, redactor=redactor)
    if lock is None:
        try:
            lock = acquire_instance_lock(paths)
        except OSError as exc:
            if cannot_write(exc):
                raise ReadOnlyStorageError(f"The data folder {paths.root} cannot be written "
                                           f"({exc.strerror or exc}).",
                                           code="data_folder_read_only",
                                           params={"folder": str(paths.root),
                                                   "detail": exc.strerror or str(exc)}) from exc
            raise StorageError(f"Cannot use {paths.root / LOCK_FILENAME}: "
                               f"{exc.strerror or exc}",
                               code="data_folder_lock_failed",
                               params={"file": str(paths.root / LOCK_FILENAME),
                                       "detail": exc.strerror or str(exc)}) from exc
    if lock is None:
        return OpenedFolder(paths, Database.open(paths.db_path, migrations=migrations), None,
                            None)
    try:
        if verify is None and lock.previous_unclean:
            verify = True
        opened = open_database(paths, verify=verify, migrations=migrations)
    except BaseException:
        lock.release()
        raise
    return OpenedFolder(paths, opened.db, lock, opened.notice)


def _open_read_only(data_dir: str | None, redactor: SecretRedactor,
                    log_to_stderr: bool, migrations: Sequence[Migrations]) -> OpenedFolder:
    paths = DataPaths.resolve(data_dir, create=False)
    if not paths.root.is_dir():
        raise StorageError(f"The data folder {paths.root} does not exist.",
                           code="data_folder_missing", params={"folder": str(paths.root)})
    if not paths.db_path.is_file():
        raise StorageError(f"The data folder {paths.root} holds no Assista database.",
                           code="data_folder_empty", params={"folder": str(paths.root)})
    setup_logging(paths, stderr=log_to_stderr, redactor=redactor, to_file=False)
    return OpenedFolder(paths, Database.open(paths.db_path, read_only=True,
                                                      migrations=migrations), None, None)
