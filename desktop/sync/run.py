"""One sync run: queue local changes, merge the other devices', upload, compact.

Every step is safe to interrupt: queued changes stay in the database until their
segment is on the target; segments are merged only after every new file has been
downloaded and authenticated, in one transaction, so a failed or corrupt transfer
changes nothing here; the cursor of each device moves in that same transaction.
A run receives before it sends: a device whose uploads the target refuses still
gets the other devices' changes. What a run sends is read back from the target's
listing before the run reports success (see :mod:`desktop.sync.push`).
"""

from __future__ import annotations

import logging
import time

from desktop.storage.database import Database
from desktop.sync import state
from desktop.sync.changes import queue_changes
from desktop.sync.compaction import compact
from desktop.sync.crypto import KEY_FILE, key_from_file, new_key_file, open_sealed
from desktop.sync.errors import SyncError
from desktop.sync.guard import claim_device, device_home, run_lock
from desktop.sync.merge import Merger
from desktop.sync.push import MAX_UPLOAD, Pusher, remove_stale_parts
from desktop.sync.report import SyncReport
from desktop.sync.segments import (
    DEVICES_DIR,
    RemoteFile,
    decode_ops,
    device_dir,
    device_files,
)
from desktop.sync.targets.base import FILE_LIMIT, KEY_FILE_LIMIT, Target

__all__ = ["COMPACT_AFTER", "SyncEngine", "SyncReport"]

log = logging.getLogger(__name__)

COMPACT_AFTER = 100  # small segments of this device before it compacts them
SMALL_SEGMENTS = state.SMALL_SEGMENTS


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
        max_upload: int = MAX_UPLOAD,
    ) -> None:
        """``lock_wait_s``: how long :meth:`run` waits while another run of this data
        folder (the window, ``assista sync``) finishes, before raising
        :class:`~desktop.sync.guard.SyncBusyError`. ``max_upload``: the largest file
        uploaded, in bytes (changes are split below it, and below what the target
        accepts)."""
        self.db = db
        self.target = target
        self._passphrase = passphrase
        self._compact_after = compact_after
        self._lock_wait_s = lock_wait_s
        self.max_upload = max_upload
        self._key: bytes | None = None
        self._key_file: bytes | None = None  # the key file self._key was derived from

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
            self._pull(key, report)
            pusher = Pusher(self.db, self.target, key, report, self.max_upload)
            pusher.push()
            self._maybe_compact(key, pusher)
        except SyncError as exc:
            self._record(str(exc))
            raise
        report.seconds = time.perf_counter() - started
        self._record(None)
        log.info("%s", report.summary())
        return report

    def unlock(self) -> bytes:
        """The key: from the target's key file, which this call creates on a new target.

        Raises :class:`WrongPassphraseError` before anything is written. The key file is
        read on every call: a target emptied and set up again has a new one."""
        data = self.target.read(KEY_FILE, KEY_FILE_LIMIT)
        if data is not None and data == self._key_file and self._key is not None:
            return self._key
        if data is None:
            doc, key = new_key_file(self._passphrase)
            if self.target.create(KEY_FILE, doc):
                self._key, self._key_file = key, doc
                return key
            data = self.target.read(KEY_FILE, KEY_FILE_LIMIT)  # another device set it up
            if data is None:
                raise SyncError(f"Sync target {self.target.description} lost {KEY_FILE}.",
                                code="sync_key_lost",
                                params={"target": self.target.description, "file": KEY_FILE})
        self._key = key_from_file(self._passphrase, data)
        self._key_file = data
        return self._key

    # -- pull ----------------------------------------------------------------------

    def _pull(self, key: bytes, report: SyncReport) -> None:
        rows = self.db.query("SELECT device, seq FROM sync_cursors")
        cursors = {str(r[0]): int(r[1]) for r in rows}
        plan: list[tuple[str, int, list[RemoteFile]]] = []
        for device in self.target.list(DEVICES_DIR):
            if device == report.device or device.startswith("."):
                continue
            entries = self.target.entries(device_dir(device))
            remove_stale_parts(self.target, device_dir(device), entries, report)
            files = device_files(device, [e.name for e in entries])
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
        data = self.target.read(remote.path, FILE_LIMIT)
        if data is None:
            raise SyncError(
                f"{remote.path} disappeared from the sync target during the sync (its device "
                "was compacting); nothing was changed here, the next sync will read it.",
                code="sync_file_vanished", params={"file": remote.path}
            )
        report.downloaded += 1
        report.bytes_down += len(data)
        return open_sealed(key, remote.path, data)

    # -- compaction ----------------------------------------------------------------

    def _maybe_compact(self, key: bytes, pusher: Pusher) -> None:
        with self.db.snapshot() as conn:
            small = int(state.get_meta(conn, SMALL_SEGMENTS) or 0)
        if small < self._compact_after:
            return
        files = pusher.own_files()
        covered = files.last_seq
        payloads = [(f.path, self._fetch(key, f, pusher.report)) for f in files.to_read(0)]
        kept = pusher.write_snapshot(covered, lambda: compact(payloads))
        pusher.verify()  # only now that the snapshot is whole and held may what it covers go
        pusher.delete_covered(covered, kept)
        with self.db.transaction() as conn:
            state.set_meta(conn, SMALL_SEGMENTS, "0")
        pusher.report.compacted = True

    def _record(self, error: str | None) -> None:
        with self.db.transaction() as conn:
            state.set_meta(conn, state.LAST_ERROR, error)
            if error is None:
                state.set_meta(conn, state.LAST_SYNC_AT, repr(time.time()))
