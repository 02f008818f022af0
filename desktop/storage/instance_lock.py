"""One running Assista per data folder: an OS-level lock on ``assista.lock``.

The lock is held by an open file (``flock`` on POSIX, ``msvcrt.locking`` on
Windows), so the operating system releases it when the process ends in any
way, ``kill -9`` included. A marker file ``assista.running`` (holding the pid)
exists while the lock is held; finding it when acquiring the lock means the
previous run did not shut down cleanly (crash, kill, power loss), which is
the moment to check the database (``open_database(..., verify=True)``).
"""

from __future__ import annotations

import contextlib
import os
import sys
from types import TracebackType
from typing import IO

from desktop.storage.paths import DataPaths

LOCK_FILENAME = "assista.lock"
RUNNING_FILENAME = "assista.running"


class InstanceLock:
    """Held until :meth:`release` (or process exit). Use as a context manager."""

    def __init__(self, paths: DataPaths, handle: IO[bytes], previous_unclean: bool) -> None:
        self.path = paths.root / LOCK_FILENAME
        self.marker = paths.root / RUNNING_FILENAME
        self.previous_unclean = previous_unclean
        self._handle: IO[bytes] | None = handle

    @property
    def held(self) -> bool:
        return self._handle is not None

    def release(self) -> None:
        """Mark a clean shutdown and unlock. Idempotent."""
        handle, self._handle = self._handle, None
        if handle is None:
            return
        with contextlib.suppress(OSError):
            self.marker.unlink()
        with contextlib.suppress(OSError):
            unlock(handle)
        handle.close()

    def __enter__(self) -> InstanceLock:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def acquire_instance_lock(paths: DataPaths) -> InstanceLock | None:
    """Take the data folder's lock, or return ``None`` when another process holds it.

    Raises ``OSError`` only when the lock file cannot be created at all.
    """
    paths.ensure()
    handle = open(paths.root / LOCK_FILENAME, "a+b")  # noqa: SIM115 - held while running
    try:
        locked = try_lock(handle)
    except BaseException:
        handle.close()
        raise
    if not locked:
        handle.close()
        return None
    marker = paths.root / RUNNING_FILENAME
    previous_unclean = marker.exists()
    with contextlib.suppress(OSError):  # the lock still works without the marker
        marker.write_text(f"{os.getpid()}\n", encoding="ascii")
    return InstanceLock(paths, handle, previous_unclean)


def running_pid(paths: DataPaths) -> int | None:
    """The pid written by the lock holder, if readable (to name it in a message)."""
    try:
        return int((paths.root / RUNNING_FILENAME).read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None


# try_lock / unlock are shared with the sync run's lock (desktop/sync/guard.py).
if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def try_lock(handle: IO[bytes]) -> bool:
        handle.seek(0)
        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def unlock(handle: IO[bytes]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def try_lock(handle: IO[bytes]) -> bool:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def unlock(handle: IO[bytes]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
