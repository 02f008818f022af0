"""Checkpoints of the files the agent writes, so a turn's changes can be undone.

Before a tool writes a file (``write_file``, ``create_file``, ``edit_file``: every
path a tool declares in ``paths_written``), the file as it was — or the fact that it
did not exist — is kept; after the call, the file as the tool left it is noted by its
hash. Undoing a turn puts every file back as it was before the turn's first write
(a file the turn created is deleted), but only when none of them changed since the
agent wrote it: then nothing is touched and the changed files are named.

Kept in the data folder, not the chats database (no lock to wait for on the event
loop, nothing to sync): ``checkpoints/<session id>/<run id>.json`` says what one
turn wrote, ``checkpoints/blobs/<sha256>`` holds the old contents (shared by equal
files). Files larger than :data:`MAX_FILE_BYTES` are noted as too large and cannot
be undone (said so when asked). Turns older than the trash's retention are pruned
when the data folder opens. ``run_command`` can change any file of the workspace: its
changes are found by walking the workspace before and after it
(:mod:`desktop.tools.workspace_snapshot`, which keeps old contents in the same blobs)
and noted here like a write's, with the folders it created (removed again on undo
when empty).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

if TYPE_CHECKING:
    from desktop.tools.workspace_snapshot import CommandChanges

MAX_FILE_BYTES = 64 * 1024 * 1024
DIRNAME = "checkpoints"


def _umask_mode() -> int:
    """What a new file gets by default (0666 less the process's umask)."""
    if os.name != "posix":
        return 0o666
    try:  # (Linux says it without changing it: os.umask would, for a moment, in every thread)
        with open("/proc/self/status", encoding="ascii") as status:
            mask = next(int(line.split()[1], 8) for line in status if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError, IndexError):
        mask = os.umask(0o022)
        os.umask(mask)
    return 0o666 & ~mask


_USER_MODE = _umask_mode()


class UndoRefused(Exception):
    """The turn cannot be undone as a whole; nothing was changed."""


class FileCheckpoint(msgspec.Struct):
    """One file a turn changed: as it was before the turn and as it was left."""

    path: str  # absolute
    existed: bool
    blob: str | None = None  # sha256 of the content before the turn
    after: str | None = None  # sha256 as the agent left it (None: absent)
    too_large: bool = False
    mode: int | None = None  # permission bits before the turn (None: not noted)


class TurnChanges(msgspec.Struct):
    """The files and folders one turn changed, kept for undo."""

    run_id: str
    session_id: str
    turn_id: str
    created_at: float
    files: list[FileCheckpoint] = msgspec.field(default_factory=list)
    call_ids: list[str] = msgspec.field(default_factory=list)
    undone_at: float | None = None
    dirs_created: list[str] = msgspec.field(default_factory=list)  # by commands (absolute)


UndoAction = Literal["restored", "deleted", "unchanged"]


class UndoResult(msgspec.Struct, frozen=True):
    """What undo did to one file: restored, deleted or left unchanged."""

    path: str
    action: UndoAction


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _state(path: Path) -> tuple[bool, bytes | None, bool]:
    """(exists, content or None when too large, too large)."""
    try:
        size = path.stat().st_size
    except (FileNotFoundError, NotADirectoryError):  # (a file where a folder was)
        return False, None, False
    if size > MAX_FILE_BYTES:
        return True, None, True
    return True, path.read_bytes(), False


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None


def write_atomically(path: Path, data: bytes, mode: int | None = None, *,
                      sync: bool = True) -> None:
    """Replace ``path`` with ``data``; ``mode``: its permission bits (None: private, 600,
    as for the checkpoint folder's own files); ``sync``: on disk before it replaces."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".assista-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            if sync:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class CheckpointStore:
    """Every turn's checkpoints under ``root`` (``<data folder>/checkpoints``)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()

    def begin(self, session_id: str, turn_id: str) -> TurnCheckpoint:
        """A recorder for one turn (nothing is written until a file is)."""
        return TurnCheckpoint(self, TurnChanges(uuid.uuid4().hex, session_id, turn_id,
                                                time.time()))

    # -- reading ------------------------------------------------------------------------

    def turns(self, session_id: str) -> list[TurnChanges]:
        """The session's turns that wrote files, oldest first."""
        folder = self.root / _safe_name(session_id)
        found: list[TurnChanges] = []
        for manifest in folder.glob("*.json") if folder.is_dir() else ():
            changes = _load(manifest)
            if changes is not None and changes.files:
                found.append(changes)
        return sorted(found, key=lambda c: c.created_at)

    def find(self, session_id: str, turn: str | None = None,
             call_ids: Iterable[str] = ()) -> TurnChanges | None:
        """The last turn not yet undone; with ``turn``, the last one whose turn id is
        ``turn`` or that made one of ``call_ids`` (the calls of a message)."""
        calls = set(call_ids)
        for changes in reversed(self.turns(session_id)):
            if changes.undone_at is not None:
                continue
            if turn is None or changes.turn_id == turn or calls & set(changes.call_ids):
                return changes
        return None

    # -- undoing ------------------------------------------------------------------------

    def changed_since(self, changes: TurnChanges) -> list[str]:
        """The files that are no longer as the agent left them (a folder where a command
        left none is a change, unless that command made it)."""
        changed = []
        made = set(changes.dirs_created)
        for file in changes.files:
            path = Path(file.path)
            if path.is_dir() and not path.is_symlink():
                if file.after is not None or file.path not in made:
                    changed.append(file.path)
                continue
            exists, data, too_large = _state(path)
            now = None if not exists else ("too-large" if too_large else _sha(data or b""))
            if now != file.after:
                changed.append(file.path)
        return changed

    def undo(self, changes: TurnChanges) -> list[UndoResult]:
        """Put the turn's files back; :class:`UndoRefused` (nothing touched) when one
        changed since, was too large to keep, or its old content is missing."""
        changed = self.changed_since(changes)
        if changed:
            raise UndoRefused("changed since the agent wrote them, so nothing was undone: "
                              + ", ".join(changed))
        large = [f.path for f in changes.files if f.too_large]
        if large:
            raise UndoRefused("too large to have been kept (over 64 MB, or past the "
                              "512 MB a command's snapshot keeps), so nothing was undone: "
                              + ", ".join(large))
        missing = [f.path for f in changes.files
                   if f.existed and f.after != f.blob and (f.blob is None or
                                                           not self._intact(f.blob))]
        if missing:
            raise UndoRefused("their earlier contents are missing from the checkpoint "
                              "folder, so nothing was undone: " + ", ".join(missing))
        # What the turn created goes first (files, then its folders, deepest first), so
        # that a file a command replaced by a folder (or the reverse) can come back.
        done: dict[str, UndoAction] = {}
        for file in changes.files:
            if not (file.existed and file.blob is not None) and file.after is not None:
                Path(file.path).unlink(missing_ok=True)
                done[file.path] = "deleted"
        for folder in sorted(changes.dirs_created, key=len, reverse=True):
            with contextlib.suppress(OSError):  # (only when empty: nothing else goes)
                os.rmdir(folder)
        for file in changes.files:
            path = Path(file.path)
            if file.path in done:
                continue
            if not (file.existed and file.blob is not None) or file.after == file.blob:
                done[file.path] = "unchanged"
                continue
            # (the mode it had before the turn; a turn kept by an older version did
            # not note it: the file keeps the mode it has now)
            mode = file.mode if file.mode is not None else _mode(path)
            old = self._blob(file.blob).read_bytes()
            write_atomically(path, old, _USER_MODE if mode is None else mode)
            done[file.path] = "restored"
        results = [UndoResult(f.path, done[f.path]) for f in changes.files]
        changes.undone_at = time.time()
        self._save(changes)
        return results

    def prune(self, older_than_s: float) -> int:
        """Forget turns older than ``older_than_s`` and the copies no turn needs any
        more; returns how many turns went."""
        cutoff = time.time() - older_than_s
        removed = 0
        needed: set[str] = set()
        for index in self.root.glob("workspaces/*.json"):  # (see workspace_snapshot)
            try:
                if index.stat().st_mtime < cutoff:
                    index.unlink()
                    continue
                files = json.loads(index.read_text(encoding="utf-8"))["files"]
                needed.update(str(v[5]) for v in files.values() if v[5])
            except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
                index.unlink(missing_ok=True)
        for manifest in self.root.glob("*/*.json"):
            if manifest.parent.name == "workspaces":
                continue
            changes = _load(manifest)
            if changes is None or changes.created_at < cutoff:
                manifest.unlink(missing_ok=True)
                removed += 1
                continue
            needed.update(f.blob for f in changes.files if f.blob)
        for blob in self.root.glob("blobs/*"):
            if blob.name not in needed and blob.stat().st_mtime < cutoff:
                blob.unlink(missing_ok=True)  # (a blob kept a moment ago has a new mtime)
        return removed

    # -- storage ------------------------------------------------------------------------

    def _blob(self, digest: str) -> Path:
        return self.root / "blobs" / digest

    def keep_blob(self, data: bytes, *, sync: bool = True) -> str:
        """Keep ``data`` (once); ``sync=False`` for the workspace walks' many copies:
        not flushed one by one (thousands of fsyncs), checked by their hash on undo."""
        digest = _sha(data)
        blob = self._blob(digest)
        if not blob.exists():
            write_atomically(blob, data, sync=sync)
        return digest

    def _intact(self, digest: str) -> bool:
        try:
            return _sha(self._blob(digest).read_bytes()) == digest
        except OSError:
            return False

    def _save(self, changes: TurnChanges) -> None:
        payload = {"version": 1, **msgspec.to_builtins(changes)}
        path = self.root / _safe_name(changes.session_id) / f"{changes.run_id}.json"
        with self._lock:
            write_atomically(path, json.dumps(payload, ensure_ascii=False,
                                               indent=1).encode("utf-8"))


class TurnCheckpoint:
    """Records one turn's writes (thread-safe: calls run side by side)."""

    def __init__(self, store: CheckpointStore, changes: TurnChanges) -> None:
        self.store = store
        self.changes = changes
        self._lock = threading.Lock()

    def before_write(self, call_id: str, paths: Iterable[Path]) -> None:
        """Keep each file as it is now, unless this turn kept it already."""
        with self._lock:
            known = {f.path for f in self.changes.files}
            for path in paths:
                key = str(path)
                if key in known:
                    continue
                exists, data, too_large = _state(path)
                blob = self.store.keep_blob(data) if data is not None else None
                after = None if not exists else ("too-large" if too_large else blob)
                self.changes.files.append(FileCheckpoint(key, exists, blob, after, too_large,
                                                         _mode(path) if exists else None))
                known.add(key)
            if call_id not in self.changes.call_ids:
                self.changes.call_ids.append(call_id)
            self.store._save(self.changes)

    def after_write(self, paths: Iterable[Path]) -> None:
        """Note each file as the call left it (written, or not, or failed halfway)."""
        with self._lock:
            by_path = {f.path: f for f in self.changes.files}
            for path in paths:
                file = by_path.get(str(path))
                if file is None:
                    continue
                exists, data, too_large = _state(path)
                file.after = None if not exists else (
                    "too-large" if too_large else _sha(data or b""))
                file.too_large = file.too_large or too_large
            self.store._save(self.changes)

    def note_command(self, call_id: str, found: CommandChanges) -> None:
        """Note what a command changed: a file this turn already kept gets its new
        state; another, its state before the command (see workspace_snapshot)."""
        with self._lock:
            by_path = {f.path: f for f in self.changes.files}
            for change in found.files:
                known = by_path.get(change.path)
                if known is not None:
                    known.after = change.after
                    known.too_large = known.too_large or change.after == "too-large"
                    continue
                old = change.before
                too_large = old is not None and old.sha is None
                self.changes.files.append(FileCheckpoint(
                    change.path, old is not None, None if old is None else old.sha,
                    change.after, too_large or change.after == "too-large",
                    None if old is None else old.mode))
            self.changes.dirs_created += [d for d in found.dirs_created
                                          if d not in self.changes.dirs_created]
            if call_id not in self.changes.call_ids:
                self.changes.call_ids.append(call_id)
            if self.changes.files or self.changes.dirs_created:
                self.store._save(self.changes)


def _safe_name(session_id: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in session_id) or "_"


def _load(path: Path) -> TurnChanges | None:
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
        files = [FileCheckpoint(**f) for f in raw.get("files") or []]
        return TurnChanges(str(raw["run_id"]), str(raw["session_id"]), str(raw["turn_id"]),
                           float(raw["created_at"]), files,
                           [str(c) for c in raw.get("call_ids") or []], raw.get("undone_at"),
                           [str(d) for d in raw.get("dirs_created") or []])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
