"""The request inspector panel of one answer: each request it took (tool rounds are
requests of their own), with the request (pretty JSON, searchable), the response, the
event timeline, the timings, Copy as curl and Replay. Everything is plain text."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QSize, Qt
from PySide6.QtGui import QCloseEvent, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.inspection import curl_command
from desktop.ui import locale_format
from desktop.ui.inspector.event_tables import EventsPage, RawPage
from desktop.ui.inspector.find_text import FindableText
from desktop.ui.inspector.replay_view import ReplayView
from desktop.ui.plain_text import plain_label

if TYPE_CHECKING:
    from desktop.chat.inspector_service import ExchangeRecord, InspectorService



def _ms(value: float | None) -> str:
    return "-" if value is None else f"{locale_format.decimal(value * 1000, 1)} ms"


def request_text(record: ExchangeRecord) -> str:
    body = record.body_json
    pretty = body if isinstance(body, str) else json.dumps(body, indent=2, ensure_ascii=False)
    headers = "\n".join(f"{k}: {v}" for k, v in record.request_headers)
    return f"{record.method} {record.url}\n{headers}\n\n{pretty}\n"


def response_text(panel: QWidget, record: ExchangeRecord) -> str:
    lines = [QCoreApplication.translate("InspectorPanel", "HTTP status: %1").replace(
        "%1", str(record.status) if record.status is not None else "-")]
    lines += [f"{k}: {v}" for k, v in record.response_headers]
    if record.retries:
        lines += ["", QCoreApplication.translate("InspectorPanel", "Retries:")]
        # (QCoreApplication.translate written out: lupdate reads no other spelling, and
        # panel.tr() would look under the panel's class name at run time)
        attempt = QCoreApplication.translate("InspectorPanel",
                                             "  attempt %1 at %2, waited %3 s: %4")
        lines += [attempt.replace("%1", str(r["attempt"])).replace("%2", _ms(r["at_s"])).replace(
            "%3", locale_format.decimal(r["delay_s"], 2)).replace("%4", str(r["reason"]))
            for r in record.retries]
    if record.error:
        lines += ["", QCoreApplication.translate("InspectorPanel", "Error: %1").replace(
            "%1", record.error)]
    return "\n".join(lines) + "\n"


class ExchangeView(QTabWidget):
    """The tabs of one recorded request."""

    def __init__(self, inspection: InspectorService, record: ExchangeRecord,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.record = record
        self.request = FindableText(self.tr("Find in the request"), self.tr("Request"))
        self.request.set_text(request_text(record))
        self.response = FindableText(self.tr("Find in the response"), self.tr("Response"))
        self.response.set_text(response_text(self, record))
        events = EventsPage(record)
        self.events, self.event_text = events.table, events.detail
        raw = RawPage(record)
        self.raw, self.raw_text = raw.table, raw.detail
        self.replay = ReplayView(inspection, record)
        self.addTab(self.request, self.tr("Request"))
        self.addTab(self.response, self.tr("Response"))
        self.addTab(events.widget, self.tr("Events (%1)").replace("%1",
                                                                  str(len(events.events))))
        self.addTab(raw.widget, self.tr("Raw bytes (%1)").replace("%1", str(len(record.chunks))))
        self.addTab(self._timings(record), self.tr("Timings"))
        self.addTab(self.replay, self.tr("Replay"))

    def _timings(self, record: ExchangeRecord) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        speed = record.tokens_per_s
        tokens = "-" if record.output_tokens is None else str(record.output_tokens)
        if record.tokens_estimated and record.output_tokens is not None:
            tokens = self.tr("%1 (counted from the events)").replace("%1", tokens)
        rows = (
            (self.tr("Time to headers"), _ms(record.headers_s)),
            (self.tr("Time to first token"), _ms(record.first_token_s)),
            (self.tr("Time to last token"), _ms(record.last_token_s)),
            (self.tr("Total"), _ms(record.end_s)),
            (self.tr("Output tokens"), tokens),
            (self.tr("Tokens per second"), locale_format.decimal(speed, 1) if speed else "-"),
            (self.tr("Retries"), str(len(record.retries))),
        )
        for name, value in rows:
            form.addRow(plain_label(name), plain_label(value))
        return page


class InspectorPanel(QDialog):
    def __init__(self, inspection: InspectorService, records: list[ExchangeRecord],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Request inspector"))
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.records = records
        self.choice = QComboBox()
        self.choice.setAccessibleName(self.tr("Request"))
        self.stack = QStackedWidget()
        self.views: list[ExchangeView] = []
        for n, record in enumerate(records, 1):
            status = record.status if record.status is not None else "-"
            self.choice.addItem(self.tr("Request %1 of %2: %3 · %4 · HTTP %5").replace(
                "%1", str(n)).replace("%2", str(len(records))).replace(
                "%3", record.provider).replace("%4", record.model).replace("%5", str(status)))
            view = ExchangeView(inspection, record)
            self.views.append(view)
            self.stack.addWidget(view)
        self.choice.currentIndexChanged.connect(self._show)
        self.heading: QLabel = plain_label()  # whose request, its status and duration
        self.heading.setObjectName("messageHeader")
        self.summary: QLabel = plain_label()
        self.copy_curl = QPushButton(self.tr("Copy as curl"))
        self.copy_curl.setToolTip(self.tr("The request as a curl command; the key is an "
                                          "environment variable, never the key itself"))
        self.copy_json = QPushButton(self.tr("Copy as JSON"))
        self.copy_json.setToolTip(self.tr("Everything recorded for this request, redacted"))
        self.copy_curl.clicked.connect(self.copy_as_curl)
        self.copy_json.clicked.connect(self.copy_as_json)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.choice, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.copy_curl)
        bottom.addWidget(self.copy_json)
        bottom.addWidget(self.summary, 1)
        bottom.addWidget(buttons)
        column = QVBoxLayout(self)
        column.addLayout(top)
        column.addWidget(self.stack, 1)
        column.addLayout(bottom)
        self.choice.setVisible(len(records) > 1)
        self._show(0)
        size = QSize(900, 640)  # within the window it comes from, when that is smaller
        if parent is not None:
            size = size.boundedTo(parent.size() - QSize(40, 40)).expandedTo(QSize(480, 360))
        self.resize(size)

    def _show(self, index: int) -> None:
        self.stack.setCurrentIndex(index)
        record = self.records[index]
        status = str(record.status) if record.status is not None else "-"
        total = (f"{locale_format.decimal(record.end_s, 2)} s" if record.end_s is not None
                 else "-")
        self.heading.setText(self.tr("%1 · %2 · HTTP %3 · %4").replace(
            "%1", record.provider).replace("%2", record.model).replace(
            "%3", status).replace("%4", total))

    @property
    def current(self) -> ExchangeView:
        return self.views[max(self.choice.currentIndex(), 0)]

    def copy_as_curl(self) -> None:
        QGuiApplication.clipboard().setText(curl_command(self.current.record))
        self.summary.setText(self.tr("Copied the curl command."))

    def copy_as_json(self) -> None:
        document = json.dumps(self.current.record.to_json(), indent=2, ensure_ascii=False)
        QGuiApplication.clipboard().setText(document)
        self.summary.setText(self.tr("Copied the record as JSON."))

    def closeEvent(self, event: QCloseEvent) -> None:  # a replay under way stops with it
        for view in self.views:
            view.replay.cancel()
        super().closeEvent(event)
