"""One sync run: queue local changes, upload them, merge the other devices', compact.

Every step is safe to interrupt: queued changes stay in the database until their
segment is on the target; segments are merged only after every new file has been
downloaded and authenticated, in one transaction, so a failed or corrupt transfer
changes nothing here; the cursor of each device moves in that same transaction.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from desktop.storage.database import Database
from desktop.sync import state
from desktop.sync.changes import MESSAGES_PER_SEGMENT, queue_changes
from desktop.sync.compaction import compact
from desktop.sync.crypto import KEY_FILE, key_from_file, new_key_file, open_sealed, seal
from desktop.sync.errors import SyncError
from desktop.sync.guard import claim_device, device_home, run_lock
from desktop.sync.merge import MergeCounts, Merger
from desktop.sync.segments import (
    DEVICES_DIR,
    RemoteFile,
    decode_ops,
    device_dir,
    device_files,
    device_path,
    encode_ops,
    segment_name,
    snapshot_name,
)
from desktop.sync.targets.base import Target

log = logging.getLogger(__name__)

COMPACT_AFTER = 100  # small segments of this device before it compacts them
SMALL_SEGMENT_OPS = MESSAGES_PER_SEGMENT // 5
SMALL_SEGMENTS = state.SMALL_SEGMENTS


@dataclass
class SyncReport:
    device: str
    queued: int = 0  # operations queued by this run
    uploaded: int = 0  # segments uploaded
    bytes_up: int = 0
    downloaded: int = 0  # files downloaded from other devices
    bytes_down: int = 0
    merged: MergeCounts = field(default_factory=MergeCounts)
    compacted: bool = False
    seconds: float = 0.0

    def summary(self) -> str:
        return (
            f"Synced in {self.seconds:.2f} s: sent {self.uploaded} segments "
            f"({self.bytes_up / 1e6:.2f} MB), received {self.downloaded} "
            f"({self.bytes_down / 1e6:.2f} MB); {self.merged.summary()}"
            + ("; compacted" if self.compacted else "")
        )


class SyncEngine:
    """Syncs one database with one target; keeps the derived key between runs."""

    def __init__(
        self,
        db: Database,
        target: Target,
        passphrase: str,
        *,
        compact_after: int = COMPACT_AFTER,
        lock_wait_s: float = 0.0,
    ) -> None:
        """``lock_wait_s``: how long :meth:`run` waits while another run of this data
        folder (the window, ``assista sync``) finishes, before raising
        :class:`~desktop.sync.guard.SyncBusyError`."""
        self.db = db
        self.target = target
        self._passphrase = passphrase
        self._compact_after = compact_after
        self._lock_wait_s = lock_wait_s
        self._key: bytes | None = None

    def run(self) -> SyncReport:
        """One full sync (push and pull). Raises :class:`SyncError`; the error is also
        kept for the status line (except :class:`SyncBusyError`: the run that holds the
        lock reports its own outcome)."""
        folder = self.db.path.parent
        with run_lock(folder, self._lock_wait_s):
            return self._run(device_home(folder))

    def _run(self, home: str) -> SyncReport:
        started = time.perf_counter()
        with self.db.transaction() as conn:
            report = SyncReport(device=claim_device(conn, home))
        try:
            key = self.unlock()
            with self.db.transaction() as conn:
                report.queued = queue_changes(conn)
            self._upload(key, report)
            self._pull(key, report)
            self._maybe_compact(key, report)
        except SyncError as exc:
            self._record(str(exc))
            raise
        report.seconds = time.perf_counter() - started
        self._record(None)
        log.info("%s", report.summary())
        return report

    def unlock(self) -> bytes:
        """The key: from the target's key file, which this call creates on a new target.

        Raises :class:`WrongPassphraseError` before anything is written."""
        if self._key is not None:
            return self._key
        data = self.target.read(KEY_FILE)
        if data is None:
            doc, key = new_key_file(self._passphrase)
            if self.target.create(KEY_FILE, doc):
                self._key = key
                return key
            data = self.target.read(KEY_FILE)  # another device set it up just now
            if data is None:
                raise SyncError(f"Sync target {self.target.description} lost {KEY_FILE}.")
        self._key = key_from_file(self._passphrase, data)
        return self._key

    # -- push ----------------------------------------------------------------------

    def _upload(self, key: bytes, report: SyncReport) -> None:
        nums = [int(r[0]) for r in self.db.query("SELECT num FROM sync_outbox ORDER BY num")]
        if not nums:
            return
        mine = device_files(report.device, self.target.list(device_dir(report.device)))
        with self.db.snapshot() as conn:
            recorded = int(state.get_meta(conn, state.NEXT_SEQ) or 1)
        # Never reuse a number: a run killed after its upload but before noting it here
        # left that segment on the target, and others may have read it already.
        seq = max(recorded, mine.last_seq + 1)
        for num in nums:
            row = self.db.query_one("SELECT body, ops FROM sync_outbox WHERE num = ?", (num,))
            if row is None:
                continue
            path = device_path(report.device, segment_name(seq))
            sealed = seal(key, path, bytes(row["body"]))
            self.target.write(path, sealed)
            with self.db.transaction() as conn:
                conn.execute("DELETE FROM sync_outbox WHERE num = ?", (num,))
                state.set_meta(conn, state.NEXT_SEQ, str(seq + 1))
                if int(row["ops"]) < SMALL_SEGMENT_OPS:
                    small = int(state.get_meta(conn, SMALL_SEGMENTS) or 0) + 1
                    state.set_meta(conn, SMALL_SEGMENTS, str(small))
            report.uploaded += 1
            report.bytes_up += len(sealed)
            seq += 1

    # -- pull ----------------------------------------------------------------------

    def _pull(self, key: bytes, report: SyncReport) -> None:
        rows = self.db.query("SELECT device, seq FROM sync_cursors")
        cursors = {str(r[0]): int(r[1]) for r in rows}
        plan: list[tuple[str, int, list[RemoteFile]]] = []
        for device in self.target.list(DEVICES_DIR):
            if device == report.device or device.startswith("."):
                continue
            files = device_files(device, self.target.list(device_dir(device)))
            wanted = files.to_read(cursors.get(device, 0))
            if wanted:
                plan.append((device, files.last_seq, wanted))
        payloads = [
            (remote.path, self._fetch(key, remote, report))
            for _, _, wanted in plan
            for remote in wanted
        ]
        if not payloads:
            return
        with self.db.transaction() as conn:
            clock = state.load_clock(conn)
            merger = Merger(conn, clock)
            for name, payload in payloads:
                merger.apply(decode_ops(name, payload))
            report.merged = merger.finish()
            state.save_clock(conn, clock)
            conn.executemany(
                "INSERT INTO sync_cursors (device, seq) VALUES (?, ?) "
                "ON CONFLICT (device) DO UPDATE SET seq = excluded.seq",
                [(device, last) for device, last, _ in plan],
            )

    def _fetch(self, key: bytes, remote: RemoteFile, report: SyncReport) -> bytes:
        data = self.target.read(remote.path)
        if data is None:
            raise SyncError(
                f"{remote.path} disappeared from the sync target during the sync (its device "
                "was compacting); nothing was changed here, the next sync will read it."
            )
        report.downloaded += 1
        report.bytes_down += len(data)
        return open_sealed(key, remote.path, data)

    # -- compaction ----------------------------------------------------------------

    def _maybe_compact(self, key: bytes, report: SyncReport) -> None:
        with self.db.snapshot() as conn:
            small = int(state.get_meta(conn, SMALL_SEGMENTS) or 0)
        if small < self._compact_after:
            return
        own = device_dir(report.device)
        files = device_files(report.device, self.target.list(own))
        covered = files.last_seq
        payloads = [(f.path, self._fetch(key, f, report)) for f in files.to_read(0)]
        parts = [encode_ops(ops) for ops in compact(payloads)]
        for index, body in enumerate(parts, start=1):
            path = device_path(report.device, snapshot_name(covered, index, len(parts)))
            self.target.write(path, seal(key, path, body))
        # Only now that the snapshot is whole may what it covers go.
        for remote in files.snapshot + files.segments:
            if remote.seq <= covered and not (remote.is_snapshot and remote.seq == covered):
                self.target.delete(remote.path)
        with self.db.transaction() as conn:
            state.set_meta(conn, SMALL_SEGMENTS, "0")
        report.compacted = True

    def _record(self, error: str | None) -> None:
        with self.db.transaction() as conn:
            state.set_meta(conn, state.LAST_ERROR, error)
            if error is None:
                state.set_meta(conn, state.LAST_SYNC_AT, repr(time.time()))
