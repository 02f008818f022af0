"""What a device writes to the target: numbered segments and snapshots of operations.

Layout on the target (every file but ``sync.json`` encrypted, see :mod:`desktop.sync.crypto`)::

    sync.json                                  KDF salt and cost, key check
    devices/<device>/seg-000000000007.bin      the 7th batch of changes of <device>
    devices/<device>/snap-000000000120-0001-0003.bin
                                               part 1 of 3 of the compaction of 1..120

Segments are written once under a temporary name and then renamed (or PUT whole,
on S3), so a half-written file never has a name readers accept. A snapshot counts
only when all its parts are there.

A segment's plaintext is zlib-compressed JSON ``{"v": 1, "ops": [...]}``; an op is
one of::

    ["f", kind, id, field, value, stamp]   a field of a chat (s), assistant (a) or
                                           the settings (g), last writer wins by stamp
    ["m", chat_id, {message columns}]      a message: immutable, merged as a tree node
    ["t", kind, id, stamp]                 a deletion (s, m, a); wins over older edits
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterator
from typing import Any

import msgspec

from desktop.sync.errors import CorruptDataError

PAYLOAD_VERSION = 1
DEVICES_DIR = "devices"

Op = list[Any]

_SEGMENT_RE = re.compile(r"^seg-(\d{12})\.bin$")
_SNAPSHOT_RE = re.compile(r"^snap-(\d{12})-(\d{4})-(\d{4})\.bin$")


class RemoteFile(msgspec.Struct, frozen=True):
    """A file of one device's folder, by what its name says."""

    device: str
    name: str  # the file's name inside the device's folder
    seq: int  # segment number, or the last segment a snapshot covers
    part: int = 0  # snapshot part (1-based); 0 for a segment
    parts: int = 0

    @property
    def path(self) -> str:
        return device_path(self.device, self.name)

    @property
    def is_snapshot(self) -> bool:
        return self.parts > 0


def device_dir(device: str) -> str:
    return f"{DEVICES_DIR}/{device}"


def device_path(device: str, name: str) -> str:
    return f"{device_dir(device)}/{name}"


def segment_name(seq: int) -> str:
    return f"seg-{seq:012d}.bin"


def snapshot_name(seq: int, part: int, parts: int) -> str:
    return f"snap-{seq:012d}-{part:04d}-{parts:04d}.bin"


def parse_name(device: str, name: str) -> RemoteFile | None:
    """The file a name stands for; ``None`` for temporary or foreign files."""
    match = _SEGMENT_RE.match(name)
    if match:
        return RemoteFile(device, name, int(match.group(1)))
    match = _SNAPSHOT_RE.match(name)
    if match:
        seq, part, parts = (int(g) for g in match.groups())
        if 1 <= part <= parts:
            return RemoteFile(device, name, seq, part, parts)
    return None


class DeviceFiles(msgspec.Struct, frozen=True):
    """What to read of one device: its newest complete snapshot and later segments."""

    device: str
    snapshot: list[RemoteFile]  # all parts, in order; empty when none is complete
    segments: list[RemoteFile]  # every segment, in order

    @property
    def snapshot_seq(self) -> int:
        return self.snapshot[0].seq if self.snapshot else 0

    @property
    def last_seq(self) -> int:
        return max([self.snapshot_seq] + [f.seq for f in self.segments])

    def to_read(self, cursor: int) -> list[RemoteFile]:
        """Files holding what came after segment ``cursor`` (already merged)."""
        if cursor < self.snapshot_seq:
            later = [f for f in self.segments if f.seq > self.snapshot_seq]
            return self.snapshot + later
        return [f for f in self.segments if f.seq > cursor]


def device_files(device: str, names: list[str]) -> DeviceFiles:
    files = [f for f in (parse_name(device, n) for n in names) if f is not None]
    segments = sorted((f for f in files if not f.is_snapshot), key=lambda f: f.seq)
    # By number and count of parts: a snapshot restarted in more, smaller parts (the
    # server refused one as too large) leaves the first try's parts beside it.
    complete: dict[tuple[int, int], list[RemoteFile]] = {}
    for snap in (f for f in files if f.is_snapshot):
        complete.setdefault((snap.seq, snap.parts), []).append(snap)
    snapshot: list[RemoteFile] = []
    for seq, count in sorted(complete, reverse=True):
        parts = sorted(complete[(seq, count)], key=lambda f: f.part)
        if [p.part for p in parts] == list(range(1, count + 1)):
            snapshot = parts
            break
    return DeviceFiles(device, snapshot, segments)


class OpTooLargeError(Exception):
    """One operation alone is larger than a file may be (``size`` bytes, sealed)."""

    def __init__(self, op: Op, size: int) -> None:
        super().__init__(f"an operation of {size} bytes")
        self.op = op
        self.size = size


def pack(ops: list[Op], limit: int, overhead: int) -> Iterator[tuple[bytes, int]]:
    """``ops`` as compressed bodies of consecutive runs, each at most ``limit`` bytes
    once ``overhead`` (encryption) is added; with each, how many operations it holds.
    Raises :class:`OpTooLargeError` for an operation too large alone."""
    body = encode_ops(ops)
    if len(body) + overhead <= limit or not ops:
        yield body, len(ops)
        return
    if len(ops) == 1:
        raise OpTooLargeError(ops[0], len(body) + overhead)
    middle = len(ops) // 2
    yield from pack(ops[:middle], limit, overhead)
    yield from pack(ops[middle:], limit, overhead)


def encode_ops(ops: list[Op]) -> bytes:
    text = json.dumps({"v": PAYLOAD_VERSION, "ops": ops}, separators=(",", ":"))
    return zlib.compress(text.encode("utf-8"), 3)


def decode_ops(name: str, data: bytes) -> list[Op]:
    try:
        doc = json.loads(zlib.decompress(data))
    except (zlib.error, ValueError) as exc:
        raise CorruptDataError(f"{name} on the sync target cannot be read ({exc}).",
                               code="sync_file_damaged",
                               params={"file": name, "detail": str(exc)}) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("ops"), list):
        raise CorruptDataError(f"{name} on the sync target is not a segment of changes.",
                               code="sync_file_damaged", params={"file": name})
    if doc.get("v") != PAYLOAD_VERSION:
        raise CorruptDataError(
            f"{name} was written by a newer version of Assista; update Assista to sync.",
            code="sync_file_newer", params={"file": name}
        )
    return [op for op in doc["ops"] if isinstance(op, list) and op]
