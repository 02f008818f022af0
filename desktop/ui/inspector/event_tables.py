"""The stream tabs of the inspector: the events the server sent (one row per SSE event
or NDJSON line, its JSON data pretty-printed below) and the raw network pieces they
came in (any size, as they arrived)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QSplitter, QTableWidget, QTableWidgetItem, QWidget

from desktop.chat.stream_events import StreamEvent, parse_stream
from desktop.ui import locale_format
from desktop.ui.inspector.find_text import FindableText

if TYPE_CHECKING:
    from desktop.chat.inspector_service import ExchangeRecord

MAX_EVENT_ROWS = 5000  # a longer timeline shows its first rows (the CLI's --json has all)
EVENT_PREVIEW = 400  # characters of an event in its row (the pane below shows it whole)


def record_events(record: ExchangeRecord) -> list[StreamEvent]:
    """The events of a recorded response, parsed from its pieces."""
    content_type = next((v for k, v in record.response_headers
                         if k.lower() == "content-type"), "")
    return parse_stream([(c.at_s, c.data) for c in record.chunks], content_type)


def _arrived(at_s: float) -> str:
    return f"+{locale_format.decimal(at_s * 1000, 1)} ms"


def _table(rows: Sequence[Sequence[str]], headers: list[str], name: str) -> QTableWidget:
    table = QTableWidget(len(rows), len(headers))
    table.setAccessibleName(name)
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 6)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
    table.setWordWrap(False)  # one line per row; the whole of it shows below
    table.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    table.horizontalHeader().setStretchLastSection(True)
    for row, cells in enumerate(rows):
        for col, value in enumerate(cells):
            table.setItem(row, col, QTableWidgetItem(value))  # items are plain text
    for col in range(len(headers) - 1):
        table.resizeColumnToContents(col)
    return table


def _page(table: QTableWidget, detail: FindableText, texts: Callable[[int], str]) -> QSplitter:
    page = QSplitter(Qt.Orientation.Vertical)
    page.addWidget(table)
    page.addWidget(detail)
    page.setStretchFactor(0, 3)
    page.setStretchFactor(1, 2)
    table.currentCellChanged.connect(lambda row, *_: detail.set_text(texts(row)))
    if table.rowCount():
        table.setCurrentCell(0, table.columnCount() - 1)
    return page


class EventsPage:
    """The parsed events: Arrived, Event, Data; the chosen event below, its JSON
    pretty-printed."""

    def __init__(self, record: ExchangeRecord) -> None:
        self.events = record_events(record)
        shown = self.events[:MAX_EVENT_ROWS]
        rows = [(_arrived(e.at_s), e.name, e.summary(EVENT_PREVIEW)) for e in shown]
        # (the texts of the panel's tabs: translated in its context)
        self.table = _table(rows, [QCoreApplication.translate("ExchangeView", "Arrived"),
                                   QCoreApplication.translate("ExchangeView", "Event"),
                                   QCoreApplication.translate("ExchangeView", "Data")],
                            QCoreApplication.translate("ExchangeView", "Stream events"))
        self.detail = FindableText(
            QCoreApplication.translate("ExchangeView", "Find in this event"),
            QCoreApplication.translate("ExchangeView", "Event"))

        def text(row: int) -> str:
            if not 0 <= row < len(shown):
                return ""
            event = shown[row]
            head = f"event: {event.name}\n\n" if event.name not in ("", "message") else ""
            return head + event.pretty_data()

        self.widget: QWidget = _page(self.table, self.detail, text)


class RawPage:
    """The network pieces as they arrived: Arrived, Bytes, Data."""

    def __init__(self, record: ExchangeRecord) -> None:
        shown = record.chunks[:MAX_EVENT_ROWS]
        rows = [(_arrived(c.at_s), locale_format.integer(len(c.data)),
                 c.text[:EVENT_PREVIEW].replace("\n", "⏎")) for c in shown]
        self.table = _table(rows, [QCoreApplication.translate("ExchangeView", "Arrived"),
                                   QCoreApplication.translate("ExchangeView", "Bytes"),
                                   QCoreApplication.translate("ExchangeView", "Data")],
                            QCoreApplication.translate("ExchangeView", "Raw bytes received"))
        self.detail = FindableText(
            QCoreApplication.translate("ExchangeView", "Find in these bytes"),
            QCoreApplication.translate("ExchangeView", "Raw bytes"))
        self.widget: QWidget = _page(
            self.table, self.detail, lambda row: shown[row].text if 0 <= row < len(shown)
            else "")
