"""(Re)index a knowledge base: walk its folders, convert new and changed files,
store their chunks; files gone from disk lose theirs.

Incremental: a file whose size and mtime are unchanged is not read; one whose content
hash is unchanged (touched, copied back) is not converted again. Work is committed in
batches so that a large first index does not hold one huge transaction (and readers
see progress).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from stat import S_ISREG
from typing import BinaryIO

import msgspec

from desktop.core.error_codes import ErrorInfo
from desktop.documents import DocumentError, Section, document_kind, extract_sections
from desktop.documents.extract import MAX_DOCUMENT_BYTES, decode_text
from desktop.knowledge.chunking import chunk_sections
from desktop.knowledge.store import KnowledgeBase, KnowledgeStore

#: Folders never indexed (tools, caches, version control).
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv",
                       ".mypy_cache", ".ruff_cache", ".pytest_cache", ".tox", "dist", "build",
                       ".idea", ".vscode", ".cache"})
#: Suffixes of files read as text (documents are added by desktop.documents' kinds).
TEXT_SUFFIXES = frozenset({
    ".txt", ".md", ".markdown", ".rst", ".org", ".adoc", ".tex", ".log", ".json", ".yaml", ".yml",
    ".toml", ".ini", ".cfg", ".xml", ".py", ".pyi", ".js", ".jsx", ".ts", ".tsx", ".java", ".kt",
    ".go", ".rs", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".rb", ".php", ".swift", ".scala",
    ".sh", ".bash", ".zsh", ".ps1", ".sql", ".r", ".lua", ".pl", ".m", ".css", ".scss", ".vue",
    ".svelte", ".dart", ".ex", ".exs", ".erl", ".hs", ".ml", ".clj", ".el", ".vim", ".proto",
    ".graphql", ".tf", ".dockerfile", ".mk", ".cmake",
})
BATCH_FILES = 200
#: SQLite's page cache while indexing (KiB; the default is 2 MB): FTS5 re-reads its
#: index pages as it merges segments, and a small cache made that a third of the time.
INDEX_CACHE_KIB = 65536

ProgressFn = Callable[[int, int, str], None]
"""``(done, total, path)`` after each file."""


class IndexReport(msgspec.Struct, weakref=True):
    """What one indexing run of a knowledge base did, file by file."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: dict[str, str] = msgspec.field(default_factory=dict)  # path -> reason
    failed_info: dict[str, ErrorInfo] = msgspec.field(default_factory=dict)  # path -> its code
    seconds: float = 0.0


def indexable(path: Path) -> bool:
    suffix = path.suffix.lower()
    return suffix in TEXT_SUFFIXES or document_kind(path) != "text"


def walk(paths: tuple[str, ...],
         refused: Callable[[Path, DocumentError], None] | None = None) -> Iterator[Path]:
    """Every indexable file under ``paths`` (files named directly are always taken).

    In a folder a link is followed only to a file inside that folder (never to
    ``~/.ssh/id_rsa``), and only regular files are taken (a pipe would block the read
    forever, ``/dev/zero`` never ends): the others are told to ``refused``."""
    for root in paths:
        top = Path(root)
        if top.is_file():  # (a regular file, the link resolved: the user named it)
            yield top
            continue
        inside = top.resolve()
        for folder, dirs, files in os.walk(top):  # (links to folders are not entered)
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
            for name in sorted(files):
                path = Path(folder, name)
                if name.startswith(".") or not indexable(path):
                    continue
                reason = _refusal(path, inside)
                if reason is None:
                    yield path
                elif refused is not None:
                    refused(path, reason)


def _refusal(path: Path, inside: Path) -> DocumentError | None:
    """Why ``path`` (in the folder ``inside``) is not indexed, or None."""
    file = {"file": path.name}
    if path.is_symlink():
        try:
            target = path.resolve(strict=True)
        except (OSError, RuntimeError):
            return DocumentError(f"{path.name} is a link to nothing", code="link_broken",
                                 params=file)
        if not target.is_relative_to(inside):
            return DocumentError(f"{path.name} is a link out of the folder (links are followed "
                                 "only inside it)", code="link_outside", params=file)
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        return DocumentError(f"cannot read {path.name}: {exc.strerror or exc}",
                             code="file_unreadable",
                             params={**file, "detail": exc.strerror or str(exc)})
    if not S_ISREG(mode):
        return DocumentError(f"{path.name} is not a regular file (a pipe, a device or a "
                             "socket)", code="not_a_file", params=file)
    return None


def _open_regular(path: Path) -> BinaryIO:
    """``path`` opened to read, if it is (still) a regular file: without blocking, so a
    file swapped for a pipe since the walk cannot hang the indexing."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not S_ISREG(os.fstat(fd).st_mode):
            raise DocumentError(f"{path.name} is not a regular file",
                                code="not_a_file", params={"file": path.name})
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def _sections(path: Path, data: bytes | None) -> list[Section]:
    if data is not None:  # plain text: already read for the hash
        return [Section(decode_text(path.name, data))]
    return extract_sections(path)


def _read_and_hash(path: Path, size: int) -> tuple[str, bytes | None]:
    """The content hash, and the bytes themselves for a text file (read once)."""
    digest = hashlib.blake2b(digest_size=16)
    with _open_regular(path) as handle:
        if document_kind(path) == "text":
            data = handle.read(MAX_DOCUMENT_BYTES + 1)  # (it may have grown since stat)
            if len(data) > MAX_DOCUMENT_BYTES:
                raise DocumentError(f"{path.name} is too large to index",
                                    code="index_too_large", params={"file": path.name})
            digest.update(data)
            return digest.hexdigest(), data
        read = 0
        for block in iter(lambda: handle.read(1 << 20), b""):
            read += len(block)
            if read > MAX_DOCUMENT_BYTES:
                raise DocumentError(f"{path.name} is too large to index",
                                    code="index_too_large", params={"file": path.name})
            digest.update(block)
    return digest.hexdigest(), None


class Indexer:
    """Indexes one base; ``cancel`` stops it between files (what is done stays)."""

    def __init__(self, store: KnowledgeStore, base: KnowledgeBase,
                 progress: ProgressFn | None = None) -> None:
        self.store = store
        self.base = base
        self.progress = progress
        self.cancel = threading.Event()

    def run(self) -> IndexReport:
        db = self.store.db
        previous = db.query("PRAGMA cache_size")[0][0]
        db.execute(f"PRAGMA cache_size = -{INDEX_CACHE_KIB}")
        try:
            return self._run()
        finally:
            db.execute(f"PRAGMA cache_size = {int(previous)}")

    def _run(self) -> IndexReport:
        report = IndexReport()
        started = time.perf_counter()
        known = {row["path"]: (row["id"], row["mtime"], row["size"], row["hash"])
                 for row in self.store.db.query(
                     "SELECT id, path, mtime, size, hash FROM knowledge_files WHERE base_id = ?",
                     (self.base.id,))}

        def refuse(path: Path, reason: DocumentError) -> None:
            report.failed[str(path)] = str(reason)
            report.failed_info[str(path)] = reason.info

        files = list(walk(self.base.paths, refuse))
        seen: set[str] = set()
        pending: list[tuple[Path, os.stat_result, str, list[Section] | None, str | None]] = []
        for done, path in enumerate(files, start=1):
            if self.cancel.is_set():
                break
            key = str(path)
            seen.add(key)
            self._visit(path, known.get(key), pending, report)
            if len(pending) >= BATCH_FILES:
                self._write(pending, known)
            if self.progress is not None:
                self.progress(done, len(files), key)
        self._write(pending, known)
        if not self.cancel.is_set():
            # (a file since replaced by a link out of the folder is not seen: it goes)
            gone = [file_id for path, (file_id, *_rest) in known.items() if path not in seen]
            report.removed = len(gone)
            with self.store.db.transaction() as conn:
                conn.executemany("DELETE FROM knowledge_files WHERE id = ?",
                                 [(i,) for i in gone])
                conn.execute("UPDATE knowledge_bases SET indexed_at = ? WHERE id = ?",
                             (time.time(), self.base.id))
        report.seconds = time.perf_counter() - started
        return report

    def _visit(self, path: Path, old: tuple[int, float, int, str] | None,
               pending: list[tuple[Path, os.stat_result, str, list[Section] | None,
                                   str | None]], report: IndexReport) -> None:
        try:
            stat = path.stat()
        except OSError as exc:
            report.failed[str(path)] = f"cannot read {path.name}: {exc.strerror or exc}"
            report.failed_info[str(path)] = ErrorInfo("file_unreadable", {
                "file": path.name, "detail": exc.strerror or str(exc)})
            return  # vanished while walking: left out like a deleted file
        try:
            if old is not None and old[1] == stat.st_mtime and old[2] == stat.st_size:
                report.unchanged += 1
                return
            if stat.st_size > MAX_DOCUMENT_BYTES:
                raise DocumentError(f"{path.name} is too large to index",
                                    code="index_too_large", params={"file": path.name})
            digest, data = _read_and_hash(path, stat.st_size)
            if old is not None and old[3] == digest:
                report.unchanged += 1
                pending.append((path, stat, digest, None, None))  # only the mtime moves
                return
            sections = _sections(path, data) if stat.st_size else []
            error = None
        except (DocumentError, OSError) as exc:
            sections, error, digest = [], str(exc), ""
            report.failed[str(path)] = error
            if isinstance(exc, DocumentError):
                report.failed_info[str(path)] = exc.info
        if old is None:
            report.added += 1
        else:
            report.updated += 1
        pending.append((path, stat, digest, sections, error))

    def _write(self, pending: list[tuple[Path, os.stat_result, str, list[Section] | None,
                                         str | None]],
               known: dict[str, tuple[int, float, int, str]]) -> None:
        if not pending:
            return
        with self.store.db.transaction() as conn:
            for path, stat, digest, sections, error in pending:
                key = str(path)
                old = known.get(key)
                if sections is None and old is not None:  # same content, new mtime
                    conn.execute("UPDATE knowledge_files SET mtime = ?, size = ? WHERE id = ?",
                                 (stat.st_mtime, stat.st_size, old[0]))
                    continue
                if old is not None:
                    conn.execute("DELETE FROM knowledge_files WHERE id = ?", (old[0],))
                file_id = conn.execute(
                    "INSERT INTO knowledge_files (base_id, path, mtime, size, hash, error) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (self.base.id, key, stat.st_mtime, stat.st_size, digest, error)).lastrowid
                conn.executemany(
                    "INSERT INTO knowledge_chunks (base_id, file_id, page, line_start, "
                    "line_end, text) VALUES (?, ?, ?, ?, ?, ?)",
                    [(self.base.id, file_id, c.page, c.line_start, c.line_end, c.text)
                     for c in chunk_sections(sections or []) if c.text.strip()])
        pending.clear()
