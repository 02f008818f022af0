"""Per-path asyncio locks: writes to one file are serialized, other work is not.

One :class:`PathLocks` should be shared by every executor of the process (the
executor uses :data:`SHARED_PATH_LOCKS` unless given another), so that two chats
editing the same file also take turns. Locks are created on demand and dropped
when nobody holds or waits for them. Several paths are always taken in sorted
order, so two calls locking overlapping sets cannot deadlock.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager


class PathLocks:
    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def lock(self, path: str | os.PathLike[str]) -> asyncio.Lock:
        """The lock for ``path`` (an absolute, resolved path)."""
        key = os.path.normcase(os.fspath(path))
        found = self._locks.get(key)
        if found is None:
            found = asyncio.Lock()
            self._locks[key] = found
        return found

    def locked(self, path: str | os.PathLike[str]) -> bool:
        key = os.path.normcase(os.fspath(path))
        found = self._locks.get(key)
        return found is not None and found.locked()

    @asynccontextmanager
    async def hold(self, paths: Iterable[str | os.PathLike[str]]) -> AsyncIterator[None]:
        """Hold the locks of all ``paths`` (deduplicated, in sorted order)."""
        keys = sorted({os.path.normcase(os.fspath(p)) for p in paths})
        held: list[asyncio.Lock] = []
        try:
            for key in keys:
                lock = self.lock(key)
                await lock.acquire()
                held.append(lock)
            yield
        finally:
            for lock in reversed(held):
                lock.release()


SHARED_PATH_LOCKS = PathLocks()
"""The process-wide default (locks are bound to paths, not to chats)."""
