"""Opening the request inspector for an answer (its messages' recorded requests)."""

from __future__ import annotations

import logging
import sqlite3
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop.core.errors import StorageError
from desktop.ui.error_text import exception_text
from desktop.ui.inspector.panel import InspectorPanel

if TYPE_CHECKING:
    from desktop.chat.inspector_service import InspectorService

log = logging.getLogger(__name__)

FLUSH_WAIT_S = 2.0


def open_inspector(inspection: InspectorService, message_ids: list[str],
                   parent: QWidget | None) -> InspectorPanel | None:
    """The panel, shown; None (and a note saying why) when nothing was recorded."""
    problem = ""
    records = []
    if not message_ids:
        problem = QCoreApplication.translate(
            "RequestInspector", "There is no answer in this chat to inspect yet.")
    else:
        try:
            records = inspection.records_for(message_ids, wait_s=FLUSH_WAIT_S)
        except (StorageError, sqlite3.Error) as exc:
            log.warning("cannot read the request inspector's records: %s", exc)
            problem = QCoreApplication.translate(
                "RequestInspector", "The recorded requests cannot be read: %1").replace(
                "%1", exception_text(exc))
        if not records and not problem:
            problem = QCoreApplication.translate(
                "RequestInspector", "No request was recorded for this answer. Recording may "
                "be off in Settings, or the record is older than the retention period.")
    if problem:
        note = QMessageBox(QMessageBox.Icon.Information,
                           QCoreApplication.translate("RequestInspector", "Request inspector"),
                           problem,
                           QMessageBox.StandardButton.Ok, parent)
        note.setTextFormat(Qt.TextFormat.PlainText)
        note.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        note.open()  # not modal-blocking: the window goes on streaming
        return None
    panel = InspectorPanel(inspection, records, parent)
    panel.show()
    return panel
