"""File → Export chat… / Export all chats… / Import…, off the UI thread.

Exports are written by :func:`desktop.storage.export.export_sessions` in a worker
thread (``asyncio.to_thread``) to a temporary file that then replaces the target,
so a failed export never leaves half a file. Imports read an Assista JSON export or
a ChatGPT ``conversations.json`` / ``.zip`` (:func:`desktop.storage.importer.import_file`).
File dialogs open without a nested event loop (``open()``), so a running answer keeps
streaming while one is shown.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import tempfile
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from desktop.chat.chat_transfer import ExportFormat, ImportReport, export_sessions
from desktop.chat.chat_transfer import import_file as import_chats
from desktop.core.errors import AssistaError
from desktop.ui import locale_format
from desktop.ui.error_text import exception_text

if TYPE_CHECKING:
    from desktop.chat.saved_chats import SessionStore
    from desktop.ui.window.controller import ChatController

log = logging.getLogger(__name__)

# (translated where the file dialogs open)
JSON_FILTER = str(QT_TRANSLATE_NOOP("ChatFiles", "Assista JSON, lossless (*.json)"))
MARKDOWN_FILTER = str(QT_TRANSLATE_NOOP("ChatFiles", "Markdown, readable (*.md)"))
IMPORT_FILTER = str(QT_TRANSLATE_NOOP(
    "ChatFiles", "Chat exports (*.json *.zip);;Assista JSON export (*.json);;"
    "ChatGPT export (conversations.json *.zip);;All files (*)"))


def format_for(path: str, name_filter: str = "") -> ExportFormat:
    """Markdown for ``.md`` / ``.markdown`` files or the Markdown filter, else JSON."""
    suffix = Path(path).suffix.lower()
    if suffix in (".md", ".markdown"):
        return "markdown"
    if suffix == ".json":
        return "json"
    # (by its pattern: the filter's words are translated)
    return "markdown" if "(*.md)" in name_filter else "json"


def with_suffix(path: str, fmt: ExportFormat) -> Path:
    """``path`` with the format's extension when it has none."""
    target = Path(path)
    return target if target.suffix else target.with_suffix(".md" if fmt == "markdown" else ".json")


def file_name_for(title: str) -> str:
    """A safe file name (without extension) from a chat title."""
    cleaned = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', " ", title).strip(" .")
    return " ".join(cleaned.split())[:80] or "chat"


def write_export(store: SessionStore, session_ids: Sequence[str] | None, fmt: ExportFormat,
                 target: Path) -> int:
    """Export to ``target`` atomically; returns the number of bytes written."""
    text = export_sessions(store, session_ids, fmt)
    data = text.encode("utf-8")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".assista-export-", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(data)


class ImportExport(QObject):
    """The window's import and export commands. Results come as one-line messages."""

    finished = Signal(str)  # what was done, for the status bar
    failed = Signal(str)  # one-line error
    imported = Signal(object)  # ImportReport

    def __init__(self, controller: ChatController, parent: QWidget) -> None:
        super().__init__(parent)
        self.controller = controller
        self.window = parent
        self.task: asyncio.Future[None] | None = None
        self.dialog: QFileDialog | None = None

    # -- commands ----------------------------------------------------------------------

    def export_current(self) -> None:
        session_id = self.controller.session_id
        info = self.controller.services.sessions.get_session(session_id) if session_id else None
        if info is None:
            self.failed.emit(self.tr("Open a chat to export it (or use Export all chats…)."))
            return
        self._ask_save(self.tr("Export chat"), file_name_for(info.title), [info.id])

    def export_all(self) -> None:
        self._ask_save(self.tr("Export all chats"), "assista-chats", None)

    def import_file(self) -> None:
        dialog = QFileDialog(self.window, self.tr("Import chats"))
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilter(QCoreApplication.translate("ChatFiles", IMPORT_FILTER))
        self._show(dialog, lambda path: self.start_import(Path(path)))

    def _ask_save(self, title: str, name: str, session_ids: list[str] | None) -> None:
        dialog = QFileDialog(self.window, title)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        markdown_filter = QCoreApplication.translate("ChatFiles", MARKDOWN_FILTER)
        dialog.setNameFilters([QCoreApplication.translate("ChatFiles", JSON_FILTER),
                               markdown_filter])
        dialog.selectFile(f"{name}.json")
        dialog.setDefaultSuffix("json")
        dialog.filterSelected.connect(
            lambda chosen: dialog.setDefaultSuffix("md" if format_for("", chosen) == "markdown"
                                                   else "json"))

        def chosen(path: str) -> None:
            fmt = format_for(path, dialog.selectedNameFilter())
            self.start_export(session_ids, with_suffix(path, fmt), fmt)

        self._show(dialog, chosen)

    def _show(self, dialog: QFileDialog, on_file: Callable[[str], object]) -> None:
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        dialog.fileSelected.connect(on_file)
        dialog.finished.connect(lambda _r: setattr(self, "dialog", None))
        self.dialog = dialog
        dialog.open()

    # -- work ---------------------------------------------------------------------------

    def start_export(self, session_ids: Sequence[str] | None, target: Path,
                     fmt: ExportFormat) -> asyncio.Future[None]:
        store = self.controller.services.sessions
        what = (self.tr("all chats") if session_ids is None
                else self.tr("%n chats", "", len(session_ids)))

        async def run() -> None:
            try:
                size = await asyncio.to_thread(write_export, store, session_ids, fmt, target)
            except (AssistaError, OSError, ValueError) as exc:
                self._fail(self.tr("Export to {file} failed: {error}").format(
                    file=target.name, error=exception_text(exc)))
                return
            label = "Markdown" if fmt == "markdown" else "JSON"
            self.finished.emit(self.tr("Exported {what} as {format} to {file} ({size} bytes).")
                               .format(what=what, format=label, file=target,
                                       size=locale_format.integer(size)))

        return self._run(run())

    def start_import(self, path: Path) -> asyncio.Future[None]:
        store = self.controller.services.sessions

        async def run() -> None:
            try:
                report: ImportReport = await asyncio.to_thread(import_chats, store, path)
            except (AssistaError, OSError, ValueError) as exc:
                self._fail(self.tr("Import of {file} failed: {error}").format(
                    file=path.name, error=exception_text(exc)))
                return
            self.controller.sessionsChanged.emit()
            self.imported.emit(report)
            self.finished.emit(report.summary())
            self._tell(self.tr("Import finished"), report.summary())

        return self._run(run())

    def _run(self, work: Coroutine[Any, Any, None]) -> asyncio.Future[None]:
        self.task = asyncio.ensure_future(work)
        return self.task

    def _fail(self, text: str) -> None:
        log.warning("%s", text)
        self.failed.emit(text)

    def _tell(self, title: str, text: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Information, title, text,
                          QMessageBox.StandardButton.Ok, self.window)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.message_box = box
        box.open()
