"""Importing chats: our JSON export (lossless) or a ChatGPT data export.

Accepted files: an Assista JSON export (``assista export --format json``), a
ChatGPT ``conversations.json`` (a list of conversations, or one), or the
ChatGPT export ``.zip`` that contains it. A chat whose id is already in the
database is skipped (importing the same file twice adds nothing); an Assista
chat whose message ids are used by another chat is imported as a copy with
new ids. Each chat is written in its own transaction.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import stat
import zipfile
from pathlib import Path
from typing import Any, Literal

import msgspec

from desktop.core.errors import StorageError
from desktop.storage.chatgpt import looks_like_chatgpt, parse_chatgpt
from desktop.storage.export import EXPORT_FORMAT, parse_export_document
from desktop.storage.memory_export import import_memories
from desktop.storage.projects import ProjectStore
from desktop.storage.records import SessionRecord, ids_taken, with_new_ids
from desktop.storage.sessions import SessionStore

log = logging.getLogger(__name__)

Source = Literal["assista", "chatgpt"]
#: The most JSON read from one import file (unzipped). The largest ChatGPT exports seen
#: are a few hundred MB; parsing takes several times the size in memory again.
MAX_IMPORT_BYTES = 512 * 1024 * 1024


class ImportReport(msgspec.Struct, weakref=True):
    """What an import added and skipped, with a summary for the user."""

    source: Source
    imported: list[str] = msgspec.field(default_factory=list)  # session ids, in file order
    skipped: list[tuple[str, str]] = msgspec.field(default_factory=list)  # (title, reason)
    messages: int = 0
    projects: int = 0  # projects added (with their files)
    memories: int = 0  # memories added

    def summary(self) -> str:
        what = "ChatGPT export" if self.source == "chatgpt" else "Assista export"
        n = len(self.imported)
        text = (
            f"Imported {n} chat{'s' if n != 1 else ''} ({self.messages} messages) from the {what}."
        )
        if self.projects:
            text += f" Added {self.projects} project{'s' if self.projects != 1 else ''}."
        if self.memories:
            text += f" Added {self.memories} memor{'ies' if self.memories != 1 else 'y'}."
        if self.skipped:
            text += f" Skipped {len(self.skipped)}: " + "; ".join(
                f"{title} ({reason})" for title, reason in self.skipped[:5]
            )
            if len(self.skipped) > 5:
                text += f"; and {len(self.skipped) - 5} more"
            text += "."
        return text


def read_import_file(path: Path) -> Any:
    """The JSON document in ``path`` (a ``.zip`` must contain ``conversations.json``).

    At most :data:`MAX_IMPORT_BYTES` are read (after unzipping): a file, or a zip entry
    that inflates a thousandfold, must not take all the memory; parsed JSON takes
    several times its size again."""
    limit = MAX_IMPORT_BYTES
    too_large = StorageError(
        f"{path.name} holds more than {limit // (1024 * 1024)} MB of chats, more than "
        "Assista imports at once; split the export or import the chats in parts.",
        code="import_too_large", params={"file": path.name, "limit": limit // (1024 * 1024)}
    )
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a device, a pipe: no end, or no size
            raise StorageError(f"{path} is not a file (a folder, a device or a pipe); "
                               "import reads an export file.",
                               code="import_not_file", params={"file": str(path)})
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                infos = [
                    i for i in archive.infolist()
                    if i.filename.rsplit("/", 1)[-1] == "conversations.json"
                ]
                if not infos:
                    raise StorageError(f"{path.name} has no conversations.json inside.",
                                       code="import_no_conversations", params={"file": path.name})
                if infos[0].file_size > limit:
                    raise too_large
                with archive.open(infos[0]) as entry:  # the declared size may lie
                    raw = entry.read(limit + 1)
        else:
            if path.stat().st_size > limit:
                raise too_large
            with path.open("rb") as handle:
                raw = handle.read(limit + 1)
    except OSError as exc:
        raise StorageError(f"Cannot read {path}: {exc.strerror or exc}",
                           code="file_unreadable",
                           params={"file": str(path), "detail": exc.strerror or str(exc)}) from exc
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError) as exc:
        raise StorageError(f"{path.name} is a damaged zip file: {exc}",
                           code="import_bad_zip",
                           params={"file": path.name, "detail": str(exc)}) from exc
    if len(raw) > limit:
        raise too_large
    try:
        return json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise StorageError(f"{path.name} is not a JSON file: {exc}",
                           code="import_not_json",
                           params={"file": path.name, "detail": str(exc)}) from exc


def parse_document(doc: Any) -> tuple[Source, list[SessionRecord]]:
    if isinstance(doc, dict) and doc.get("format") == EXPORT_FORMAT:
        return "assista", parse_export_document(doc)
    if looks_like_chatgpt(doc):
        try:
            return "chatgpt", parse_chatgpt(doc)
        except (TypeError, AttributeError) as exc:  # Python's words mean nothing here
            log.warning("ChatGPT export with fields of unexpected types: %s", exc)
            raise StorageError("The ChatGPT export could not be read: a conversation in it "
                               "has fields of the wrong type (not what ChatGPT writes); "
                               "nothing was imported.", code="chatgpt_wrong_types") from exc
        except ValueError as exc:
            raise StorageError(f"The ChatGPT export could not be read: {exc}",
                               code="chatgpt_unreadable", params={"detail": str(exc)}) from exc
    raise StorageError("This file is neither an Assista export nor a ChatGPT conversations.json.",
                       code="import_unknown_format")


def import_document(store: SessionStore, doc: Any) -> ImportReport:
    source, records = parse_document(doc)
    report = ImportReport(source)
    known = _import_projects(store, doc, report) if source == "assista" else set()
    for parsed in records:
        title = parsed.info.title
        if parsed.info.project_id is not None and parsed.info.project_id not in known:
            parsed.info = dataclasses.replace(parsed.info, project_id=None)
        record = parsed
        if store.get_session(parsed.info.id, include_deleted=True) is not None:
            report.skipped.append((title, "already imported"))
            continue
        with store.db.snapshot() as conn:
            taken = ids_taken(conn, parsed)
        if taken:  # the messages exist in another chat: import a copy with new ids
            record = with_new_ids(parsed)
        try:
            info = store.import_record(record)
        except StorageError as exc:
            report.skipped.append((title, str(exc)))
            continue
        report.imported.append(info.id)
        report.messages += len(record.messages)
    if source == "assista":
        report.memories = import_memories(store.db, doc)
    return report


def _import_projects(store: SessionStore, doc: dict[str, Any], report: ImportReport) -> set[str]:
    """Add the export's projects not here yet; the ids of every project there is now."""
    projects = ProjectStore(store.db)
    entries = doc.get("projects")
    for entry in entries if isinstance(entries, list) else ():
        try:
            if projects.import_entry(entry) is not None:
                report.projects += 1
        except StorageError as exc:
            name = entry.get("name") if isinstance(entry, dict) else None
            report.skipped.append((f"project {name or '?'}", str(exc)))
    return {p.id for p in projects.list_projects()}


def import_file(store: SessionStore, path: str | Path) -> ImportReport:
    """Import every chat in ``path``; raises :class:`StorageError` for an unreadable file."""
    return import_document(store, read_import_file(Path(path)))
