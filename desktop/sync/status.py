"""What the status line shows about sync: last sync, pending changes, the last error."""

from __future__ import annotations

import msgspec

from desktop.storage.database import Database
from desktop.sync import state
from desktop.sync.changes import pending_count


class SyncStatus(msgspec.Struct, frozen=True):
    """What the status line shows: the last sync, pending changes, the last error."""

    last_sync_at: float | None  # epoch seconds of the last run that succeeded
    pending: int  # local changes not on the target yet
    error: str | None  # why the last run failed (None when it succeeded)

    def label(self) -> str:
        if self.error:
            return f"Sync failed: {self.error}"
        if self.last_sync_at is None:
            return "Not synced yet"
        pending = f", {self.pending} changes pending" if self.pending else ""
        return f"Synced{pending}"


def read_status(db: Database) -> SyncStatus:
    with db.snapshot() as conn:
        last = state.get_meta(conn, state.LAST_SYNC_AT)
        return SyncStatus(
            last_sync_at=float(last) if last else None,
            pending=pending_count(conn),
            error=state.get_meta(conn, state.LAST_ERROR),
        )
