"""What a command changed in the workspace, with the old contents kept, so that undo
covers ``run_command`` too.

Before a command runs, the workspace is walked (``os.scandir``: one ``lstat`` a file)
and every file's old contents are made sure to be in the checkpoint folder's blob
store (``checkpoints/blobs/<sha256>``, shared with the file tools' checkpoints). So
that this costs a walk, not a copy, on every command, a per-workspace index
(``checkpoints/workspaces/<hash of the folder>.json``: path -> size, mtime, ctime,
inode, mode, sha256) says which files are already kept: only a file whose
signature changed since (or whose blob was pruned) is read and kept again. The first
command in a workspace therefore copies it once (as much disk as the workspace's
kept files, equal files stored once); later ones copy what changed. After the
command a second walk finds the files it created, changed (a new size, mtime,
ctime or inode: also an in-place write that kept the mtime) or deleted, and the
folders it created; their new contents are kept too (the next command's "before").

What is not looked at: the contents of version-control and cache folders
(:data:`SKIPPED_DIRS`, and any folder holding a ``CACHEDIR.TAG``: the Cache Directory
Tagging convention) — a ``git commit`` is not undone, git keeps its own history, and
caches are rebuilt; symbolic links (never followed, not put back); files larger than
:data:`~desktop.tools.checkpoints.MAX_FILE_BYTES` and, past :data:`MAX_KEPT_BYTES`
of new copies in one walk, further files (noted as not kept: an undo that would need
them refuses and names them); anything outside the workspace (a sandboxed command
cannot write there; an unsandboxed one can, and that is not undone).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from desktop.tools.checkpoints import MAX_FILE_BYTES, write_atomically

if TYPE_CHECKING:
    from desktop.tools.checkpoints import CheckpointStore

#: Folders whose contents are never walked (version control, caches, environments).
SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".jj", "node_modules", "__pycache__", ".venv", "venv", ".tox",
    ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".gradle", ".next",
})
CACHEDIR_TAG = "CACHEDIR.TAG"
#: New copies one walk makes at most; files past it are noted as not kept.
MAX_KEPT_BYTES = 512 * 1024 * 1024
INDEX_DIR = "workspaces"


@dataclass(slots=True)
class Entry:
    """A file's signature in the workspace index, and the sha256 of its kept contents."""

    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int
    mode: int
    sha: str | None  # None: its contents were not kept (too large)

    def same_as(self, st: os.stat_result) -> bool:
        return (self.size, self.mtime_ns, self.ctime_ns, self.ino) == (
            st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


class Change(msgspec.Struct, frozen=True):
    """One file a command changed: as it was (``before``: None when it did not
    exist) and its contents' sha256 now (None: deleted; "too-large": not kept)."""
    path: str  # absolute
    before: Entry | None
    after: str | None


class Snapshot(msgspec.Struct):
    """One walk of a workspace: every file's entry and every folder."""

    root: Path
    files: dict[str, Entry]  # path relative to root (POSIX separators) -> entry
    dirs: set[str]
    copied_bytes: int = 0  # what this walk newly kept
    copied_files: int = 0


class CommandChanges(msgspec.Struct):
    """What a command changed in the workspace: files, and folders it created."""

    files: list[Change] = msgspec.field(default_factory=list)
    dirs_created: list[str] = msgspec.field(default_factory=list)  # absolute, parents first


def _scan(root: Path, skip: Path | None) -> tuple[dict[str, os.stat_result], set[str]]:
    """Every regular file under ``root`` (not following links) and every folder."""
    files: dict[str, os.stat_result] = {}
    dirs: set[str] = set()
    pending = [("", str(root))]
    while pending:
        rel, folder = pending.pop()
        try:
            with os.scandir(folder) as listing:
                items = list(listing)
        except OSError:
            continue  # (unreadable: nothing of it can be kept or put back)
        if rel and any(item.name == CACHEDIR_TAG for item in items):
            dirs.discard(rel)  # (a cache: its contents are not the workspace's)
            continue
        for item in items:
            name = f"{rel}/{item.name}" if rel else item.name
            try:
                if item.is_dir(follow_symlinks=False):
                    if item.name in SKIPPED_DIRS or (skip is not None and
                                                     Path(item.path) == skip):
                        continue
                    dirs.add(name)
                    pending.append((name, item.path))
                elif item.is_file(follow_symlinks=False):
                    files[name] = item.stat(follow_symlinks=False)
            except OSError:
                continue
    return files, dirs


class WorkspaceSnapshots:
    """The before/after walks of one workspace, keeping contents in ``store``."""

    def __init__(self, store: CheckpointStore, root: Path) -> None:
        self.store = store
        self.root = root.resolve()
        digest = hashlib.sha256(os.fsencode(self.root)).hexdigest()[:32]
        self.index_path = store.root / INDEX_DIR / f"{digest}.json"
        data_root = store.root.resolve()
        self._skip = data_root if self.root in data_root.parents else None

    def before(self) -> Snapshot:
        """The workspace as it is now, every file's contents kept (see the module)."""
        index = self._load_index()
        present = self._blobs()
        stats, dirs = _scan(self.root, self._skip)
        snapshot = Snapshot(self.root, {}, dirs)
        for rel, st in stats.items():
            known = index.get(rel)
            if known is not None and known.same_as(st) and (
                    known.sha is None or known.sha in present):
                snapshot.files[rel] = known
            else:
                snapshot.files[rel] = self._keep(rel, st, snapshot)
        self._save_index(snapshot.files)
        return snapshot

    def after(self, snapshot: Snapshot) -> CommandChanges:
        """What changed since ``snapshot`` (new contents kept for the next command)."""
        stats, dirs = _scan(self.root, self._skip)
        changes = CommandChanges()
        now: dict[str, Entry] = {}
        scratch = Snapshot(self.root, {}, set())
        for rel, st in stats.items():
            old = snapshot.files.get(rel)
            if old is not None and old.same_as(st):
                now[rel] = old
                continue
            entry = now[rel] = self._keep(rel, st, scratch)
            if old is not None and old.sha is not None and entry.sha == old.sha:
                continue  # (touched, same contents)
            after = "too-large" if entry.sha is None else entry.sha
            changes.files.append(Change(str(self.root / rel), old, after))
        for rel in sorted(set(snapshot.files) - set(stats)):
            changes.files.append(Change(str(self.root / rel), snapshot.files[rel], None))
        changes.dirs_created = [str(self.root / d) for d in sorted(dirs - snapshot.dirs)]
        self._save_index(now)
        return changes

    # -- keeping --------------------------------------------------------------------------

    def _keep(self, rel: str, st: os.stat_result, snapshot: Snapshot) -> Entry:
        entry = Entry(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino,
                      stat.S_IMODE(st.st_mode), None)
        if st.st_size > MAX_FILE_BYTES or snapshot.copied_bytes + st.st_size > MAX_KEPT_BYTES:
            return entry
        try:
            data = (self.root / rel).read_bytes()
        except OSError:
            return entry  # (unreadable: not kept)
        entry.sha = self.store.keep_blob(data, sync=False)  # (checked on undo)
        snapshot.copied_bytes += len(data)
        snapshot.copied_files += 1
        return entry

    def _blobs(self) -> set[str]:
        try:
            return set(os.listdir(self.store.root / "blobs"))
        except OSError:
            return set()

    def _load_index(self) -> dict[str, Entry]:
        try:
            raw: Any = json.loads(self.index_path.read_text(encoding="utf-8"))
            return {str(k): Entry(*v) for k, v in raw["files"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}

    def _save_index(self, files: dict[str, Entry]) -> None:
        payload = {"version": 1, "root": str(self.root),
                   "files": {k: [e.size, e.mtime_ns, e.ctime_ns, e.ino, e.mode, e.sha]
                             for k, e in files.items()}}
        write_atomically(self.index_path, json.dumps(payload, separators=(",", ":"),
                                                      ensure_ascii=False).encode("utf-8"))


__all__ = ["CACHEDIR_TAG", "MAX_KEPT_BYTES", "SKIPPED_DIRS", "Change", "CommandChanges",
           "Entry", "Snapshot", "WorkspaceSnapshots"]
