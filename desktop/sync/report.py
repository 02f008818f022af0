"""What one sync run did, in numbers and in one line."""

from __future__ import annotations

import msgspec

from desktop.sync.merge import MergeCounts


class SyncReport(msgspec.Struct, weakref=True):
    """What one sync run did: queued, sent, received and merged."""

    device: str
    queued: int = 0  # operations queued by this run
    uploaded: int = 0  # files uploaded (segments and snapshot parts)
    bytes_up: int = 0
    downloaded: int = 0  # files downloaded from other devices
    bytes_down: int = 0
    merged: MergeCounts = msgspec.field(default_factory=MergeCounts)
    compacted: bool = False
    # The target lacked what this device had sent (a new or emptied target, or a server
    # that lost uploads): everything this device holds was sent again.
    resent: bool = False
    stale_parts: int = 0  # unfinished uploads of earlier runs removed from the target
    seconds: float = 0.0

    def summary(self) -> str:
        return (
            f"Synced in {self.seconds:.2f} s: sent {self.uploaded} segments "
            f"({self.bytes_up / 1e6:.2f} MB), received {self.downloaded} "
            f"({self.bytes_down / 1e6:.2f} MB); {self.merged.summary()}"
            + ("; the target lacked this device's earlier uploads: sent everything again"
               if self.resent else "")
            + ("; compacted" if self.compacted else "")
        )
