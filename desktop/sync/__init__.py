"""Sync of chats between the user's devices through storage they own (no Qt).

Each device appends its changes as encrypted, immutable, numbered segments under
its own folder on a target (a folder, WebDAV or S3) and merges the other devices'
segments into its database. See :mod:`desktop.sync.run` for one sync run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.lazy import lazy_names

if TYPE_CHECKING:
    from desktop.sync.guard import SyncBusyError
    from desktop.sync.push import max_upload_bytes
    from desktop.sync.run import SyncEngine
    from desktop.sync.segments import DEVICES_DIR

#: The sync engine and what goes with it, loaded when a sync first runs (not on the way
#: to the window): `from desktop import sync` at the top, `sync.SyncEngine` where used.
_LAZY: dict[str, str] = {
    "SyncBusyError": "desktop.sync.guard",
    "max_upload_bytes": "desktop.sync.push",
    "SyncEngine": "desktop.sync.run",
    "DEVICES_DIR": "desktop.sync.segments",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


__all__ = [
    "DEVICES_DIR",
    "SyncBusyError",
    "SyncEngine",
    "max_upload_bytes",
]
