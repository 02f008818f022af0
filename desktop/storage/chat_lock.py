"""One turn at a time per chat, across processes: an OS-level lock per answering chat.

The window and ``assista ask`` (any number of them) share the database. Two turns of
one chat at once -- two ``assista ask --session S``, or one beside the window --
each started from the chat as it was: the second request carried the first answer's
half as if it were finished, and the stored tree put the second question after it.
So a process holds the chat's lock while a turn of that chat runs, and another process
finding it held refuses to start one there.

The lock is a file in ``chat-locks/`` held open with ``flock`` (``msvcrt.locking`` on
Windows): the operating system releases it when the process ends in any way. Its
last holder removes the file (POSIX: while it still holds it; a process that opened
the old file meanwhile sees it is gone and opens the new one).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from pathlib import Path
from typing import IO

from desktop.storage.instance_lock import try_lock, unlock

LOCK_FOLDER = "chat-locks"
_ATTEMPTS = 8  # (each lost only to a holder removing the file meanwhile)


class ChatLock:
    """Held until :meth:`release` (or the process ends)."""

    def __init__(self, path: Path, handle: IO[bytes]) -> None:
        self.path = path
        self._handle: IO[bytes] | None = handle

    def release(self) -> None:
        """Idempotent."""
        handle, self._handle = self._handle, None
        if handle is None:
            return
        if sys.platform != "win32":  # (Windows cannot remove an open file)
            with contextlib.suppress(OSError):
                self.path.unlink()
        with contextlib.suppress(OSError):
            unlock(handle)
        handle.close()


def lock_chat(root: Path, session_id: str) -> ChatLock | None:
    """Take chat ``session_id``'s lock in the data folder ``root``; None when another
    process (or another holder in this one) has it. Raises OSError when the lock file
    cannot be made at all."""
    folder = root / LOCK_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{re.sub(r'[^A-Za-z0-9_-]', '_', session_id)}.lock"
    for _attempt in range(_ATTEMPTS):
        handle = open(path, "a+b")  # noqa: SIM115 - held while the turn runs
        try:
            if not try_lock(handle):
                handle.close()
                return None
            if _still_there(handle, path):
                return ChatLock(path, handle)
            unlock(handle)  # its holder removed it meanwhile: take the new one
        except BaseException:
            handle.close()
            raise
        handle.close()
    return None


def _still_there(handle: IO[bytes], path: Path) -> bool:
    if sys.platform == "win32":
        return True
    try:
        return os.stat(path).st_ino == os.fstat(handle.fileno()).st_ino
    except FileNotFoundError:
        return False
