"""Sending this device's changes, and making sure the target holds them.

The target's listing is the truth, not this database's record of what it sent. Each
run lists this device's folder on the target first: when a segment number this
device used is neither there nor covered by a snapshot there (a new target, an
emptied one, a server that lost uploads), everything this database holds is sent
again as one snapshot. After uploading, the folder is listed again and every file
written must be there with its size, or the run fails saying so (the next run sends
what is missing). Uploads are split below the largest size the target accepts
(learnt from its 413 answers, and never above the configured maximum).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator

from desktop.storage.database import Database
from desktop.sync import state
from desktop.sync.compaction import full_state
from desktop.sync.crypto import SEAL_OVERHEAD, seal
from desktop.sync.errors import SyncError
from desktop.sync.fields import MESSAGE, SESSION
from desktop.sync.report import SyncReport
from desktop.sync.segments import (
    DeviceFiles,
    Op,
    OpTooLargeError,
    decode_ops,
    device_dir,
    device_files,
    device_path,
    encode_ops,
    pack,
    parse_name,
    segment_name,
    snapshot_name,
)
from desktop.sync.targets.base import Entry, Target, UploadTooLargeError, amount

log = logging.getLogger(__name__)

MAX_UPLOAD = 16 * 1024 * 1024  # the default largest file this device uploads
MIN_UPLOAD = 16 * 1024  # a target refusing less than this is refusing everything
PART_PREFIX = ".part-"  # a WebDAV or folder upload not yet moved into place
STALE_PART_S = 3600.0  # an upload's temporary file this old belongs to a run that died
SMALL_SEGMENT_OPS = 1000  # segments of fewer operations count towards compaction
LIMIT_KEPT_S = 7 * 86400.0  # a learnt upload limit is tried again after a week


def max_upload_bytes(megabytes: float | None) -> int:
    """The configured maximum upload, in bytes (``None``: the default)."""
    if megabytes is None:
        return MAX_UPLOAD
    return max(MIN_UPLOAD, int(megabytes * 1024 * 1024))


class Pusher:
    """Writes this device's files to the target for one run."""

    def __init__(self, db: Database, target: Target, key: bytes, report: SyncReport,
                 max_upload: int) -> None:
        self.db = db
        self.target = target
        self.key = key
        self.report = report
        self.device = report.device
        with db.snapshot() as conn:
            self.record = state.target_record(conn, target.description)
        learnt = self.record.upload_limit
        if learnt and time.time() - self.record.limit_at < LIMIT_KEPT_S:
            self.limit = min(max_upload, learnt)
        else:
            self.limit = max_upload
        self.written: dict[str, int] = {}  # path -> sealed size, until verified

    # -- the run's push ------------------------------------------------------------

    def push(self) -> None:
        remove_stale_parts(self.target, "", self.target.entries(""), self.report)
        files = self.own_files(clean=True)
        with self.db.snapshot() as conn:
            recorded = int(state.get_meta(conn, state.NEXT_SEQ) or 1)
        # Never reuse a number: a run killed after its upload but before noting it here
        # left that segment on the target, and others may have read it already.
        seq = max(recorded, files.last_seq + 1)
        if _covers(files, seq - 1):
            self._send_queued(seq)
        else:
            if self.record.held or recorded > 1:
                log.warning("%s lacks segments this device sent; sending everything again",
                            self.target.description)
            self._resend(seq)
        self.verify()

    def own_files(self, *, clean: bool = False) -> DeviceFiles:
        """This device's files on the target. ``clean``: remove unfinished uploads of
        earlier runs first (a run killed mid-MOVE leaves its temporary file)."""
        own = device_dir(self.device)
        names = self.target.list(own)
        if clean:
            for name in [n for n in names if n.startswith(PART_PREFIX)]:
                self.target.delete(f"{own}/{name}")
                self.report.stale_parts += 1
        return device_files(self.device, names)

    def _send_queued(self, seq: int) -> None:
        nums = [int(r[0]) for r in self.db.query("SELECT num FROM sync_outbox ORDER BY num")]
        for num in nums:
            row = self.db.query_one("SELECT body FROM sync_outbox WHERE num = ?", (num,))
            if row is None:
                continue
            ops = decode_ops(f"queued change {num}", bytes(row["body"]))
            seq = self._send_ops(ops, seq, num)
            with self.db.transaction() as conn:
                conn.execute("DELETE FROM sync_outbox WHERE num = ?", (num,))

    def _send_ops(self, ops: list[Op], seq: int, num: int) -> int:
        """Upload ``ops`` (queued as ``num``) as segments from number ``seq``; the next
        free number. When one operation cannot be sent, what was not sent stays queued."""
        done = 0
        while done < len(ops):
            try:
                for body, count in pack(ops[done:], self.limit, SEAL_OVERHEAD):
                    self.put(device_path(self.device, segment_name(seq)), body)
                    with self.db.transaction() as conn:
                        state.set_meta(conn, state.NEXT_SEQ, str(seq + 1))
                        if count < SMALL_SEGMENT_OPS:
                            small = int(state.get_meta(conn, state.SMALL_SEGMENTS) or 0) + 1
                            state.set_meta(conn, state.SMALL_SEGMENTS, str(small))
                    seq += 1
                    done += count
            except UploadTooLargeError as exc:
                self.lower_limit(exc)
            except OpTooLargeError as exc:
                if not self._moot(exc.op):
                    with self.db.transaction() as conn:
                        conn.execute("UPDATE sync_outbox SET body = ?, ops = ? WHERE num = ?",
                                     (encode_ops(ops[done:]), len(ops) - done, num))
                    raise self._too_large(exc) from None
                del ops[done + ops[done:].index(exc.op)]
        return seq

    def _resend(self, seq: int) -> None:
        with self.db.snapshot() as conn:
            last_num = conn.execute("SELECT COALESCE(MAX(num), 0) FROM sync_outbox").fetchone()[0]

        def parts() -> Iterator[list[Op]]:
            with self.db.snapshot() as conn:
                yield from full_state(conn)

        kept = self.write_snapshot(seq, parts)
        self.verify()
        with self.db.transaction() as conn:  # all of it is in the snapshot
            conn.execute("DELETE FROM sync_outbox WHERE num <= ?", (last_num,))
            state.set_meta(conn, state.NEXT_SEQ, str(seq + 1))
            state.set_meta(conn, state.SMALL_SEGMENTS, "0")
        self.report.resent = True
        self.delete_covered(seq, kept)

    # -- files ---------------------------------------------------------------------

    def put(self, path: str, body: bytes) -> None:
        sealed = seal(self.key, path, body)
        self.target.write(path, sealed)
        self.written[path] = len(sealed)
        self.report.uploaded += 1
        self.report.bytes_up += len(sealed)

    def write_snapshot(self, seq: int, parts: Callable[[], Iterator[list[Op]]]) -> set[str]:
        """Write a snapshot covering segment ``seq`` in parts below the upload limit;
        the paths of its parts."""
        while True:
            try:
                bodies = [body for ops in parts()
                          for body, _ in pack(ops, self.limit, SEAL_OVERHEAD)]
            except OpTooLargeError as exc:
                raise self._too_large(exc) from None
            bodies = bodies or [encode_ops([])]
            paths = [device_path(self.device, snapshot_name(seq, index, len(bodies)))
                     for index in range(1, len(bodies) + 1)]
            try:
                for path, body in zip(paths, bodies, strict=True):
                    self.put(path, body)
            except UploadTooLargeError as exc:
                self.lower_limit(exc)  # the parts written so far are left out of the count
                continue
            return set(paths)

    def delete_covered(self, seq: int, kept: set[str]) -> None:
        """Remove this device's files a snapshot covering ``seq`` made moot."""
        own = device_dir(self.device)
        for name in self.target.list(own):
            remote = parse_name(self.device, name)
            if remote is not None and remote.seq <= seq and remote.path not in kept:
                self.target.delete(remote.path)

    def verify(self) -> None:
        """Every file written since the last check is on the target, whole."""
        if not self.written:
            return
        held = {e.name: e.size for e in self.target.entries(device_dir(self.device))}
        lost: list[str] = []
        for path, size in self.written.items():
            name = path.rsplit("/", 1)[-1]
            if name not in held or held[name] not in (None, size):
                lost.append(name)
        if lost:
            raise SyncError(
                f"Sync target {self.target.description} accepted {len(self.written)} "
                f"uploads but does not hold {len(lost)} of them ({lost[0]}"
                f"{', …' if len(lost) > 1 else ''}): the server lost them. Nothing is lost "
                "here; the next sync sends them again.",
                code="sync_uploads_lost",
                params={"target": self.target.description, "count": len(lost), "detail": lost[0]}
            )
        last = max((r.seq for r in (parse_name(self.device, p.rsplit("/", 1)[-1])
                                    for p in self.written) if r is not None), default=0)
        self.written.clear()
        self._save_record(held=max(self.record.held, last))

    # -- limits --------------------------------------------------------------------

    def lower_limit(self, exc: UploadTooLargeError) -> None:
        """The target refused ``exc.size`` bytes: from now on, upload at most half."""
        lower = min(self.limit, exc.size) // 2
        if lower < MIN_UPLOAD:
            raise exc
        log.info("%s refused %d bytes; uploading at most %d", self.target.description,
                 exc.size, lower)
        self.limit = lower
        self._save_record(upload_limit=lower)

    def _save_record(self, *, held: int | None = None, upload_limit: int | None = None) -> None:
        self.record = state.TargetRecord(
            self.record.held if held is None else held,
            self.record.upload_limit if upload_limit is None else upload_limit,
            self.record.limit_at if upload_limit is None else time.time(),
        )
        with self.db.transaction() as conn:
            state.save_target_record(conn, self.target.description, self.record)

    def _moot(self, op: Op) -> bool:
        """An upload too large of a message deleted since: it need not be sent."""
        if op[0] != "m" or not isinstance(op[2], dict):
            return False
        found = self.db.query_one("SELECT 1 FROM messages WHERE id = ?", (op[2].get("id"),))
        return found is None

    def _too_large(self, exc: OpTooLargeError) -> SyncError:
        op = exc.op
        chat = op[1] if op[0] == "m" else op[2] if op[1:2] == [SESSION] else None
        row = self.db.query_one("SELECT title FROM sessions WHERE id = ?", (chat,))
        what = "a message" if op[0] == "m" or op[1:2] == [MESSAGE] else "a change"
        where = f"the chat “{row['title']}”" if row is not None else "this device"
        return SyncError(
            f"{what.capitalize()} in {where} is {amount(exc.size)}, more than sync target "
            f"{self.target.description} accepts in one upload ({amount(self.limit)}); it "
            "stays on this device. Delete it, or raise the server's upload limit "
            "(nginx: client_max_body_size), to sync again.",
            code="sync_item_too_large",
            params={"size": amount(exc.size), "target": self.target.description,
                    "limit": amount(self.limit),
                    **({"chat": row["title"]} if row is not None else {})}
        )


def remove_stale_parts(target: Target, directory: str, entries: list[Entry],
                       report: SyncReport) -> None:
    """Remove the temporary files in ``directory`` of uploads that ended long ago, by
    whichever device (a run killed mid-MOVE leaves one). Best effort: a server refusing
    to delete them does not fail the sync."""
    now = time.time()
    for entry in entries:
        if (entry.name.startswith(PART_PREFIX) and entry.modified is not None
                and now - entry.modified > STALE_PART_S):
            path = f"{directory}/{entry.name}" if directory else entry.name
            try:
                target.delete(path)
            except SyncError as exc:
                log.warning("could not remove %s: %s", path, exc)
                return
            report.stale_parts += 1


def _covers(files: DeviceFiles, last: int) -> bool:
    """Whether the target has every segment up to ``last`` (or a snapshot covering it)."""
    held = {f.seq for f in files.segments}
    return all(seq in held for seq in range(files.snapshot_seq + 1, last + 1))
