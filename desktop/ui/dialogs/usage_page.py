"""Settings → Usage: what each model was used for — answers, tokens in and out, cost
and median speed — over the last week, month or ever, with a total.

The figures are read from the stored messages (:mod:`desktop.storage.usage_stats`)
when the page is shown or the period changes; costs are the providers' reported ones,
else priced with the model prices as they are now.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop.chat.answer_figures import model_cost
from desktop.chat.usage import ModelUsage
from desktop.core.errors import AssistaError
from desktop.ui import locale_format
from desktop.ui.chat.usage_text import PriceSource
from desktop.ui.error_text import exception_text

DAY = 86400.0
COLUMNS = 6
#: One plain thread for the page's reads (not the event loop's default executor: under
#: qasync a pool of QThreads tied to one loop, see desktop.core.save_queue).
_READER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="assista-usage")


class UsagePage(QWidget):
    def __init__(self, usage: Callable[[float], list[ModelUsage]], prices: PriceSource,
                 parent: QWidget | None = None) -> None:
        """``usage(since)``: the figures per model of the answers since then (a time)."""
        super().__init__(parent)
        self.usage = usage
        self.prices = prices
        self.period = QComboBox()
        self.period.setAccessibleName(self.tr("Period"))
        for label, days in ((self.tr("Last 7 days"), 7), (self.tr("Last 30 days"), 30),
                            (self.tr("All time"), 0)):
            self.period.addItem(label, days)
        self.period.setCurrentIndex(2)
        self.period.currentIndexChanged.connect(self.refresh)
        self.table = QTableWidget(0, COLUMNS)
        self.table.setAccessibleName(self.tr("Usage per model"))
        self.table.setHorizontalHeaderLabels([
            self.tr("Model"), self.tr("Answers"), self.tr("Tokens in"), self.tr("Tokens out"),
            self.tr("Cost"), self.tr("Median tok/s")])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, COLUMNS):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        note = QLabel(self.tr(
            "Every stored answer counts, in every chat and version (the trash too). Costs "
            "are what the provider reported, else estimated from the model prices (Settings "
            "→ Model prices); “—”: no price known, “≥”: some tokens have none. Speeds are "
            "tokens per second while the answer streamed."))
        note.setObjectName("emptyHint")
        note.setWordWrap(True)
        self.status = QLabel()
        self.status.setObjectName("emptyHint")
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # (a database error's words)
        self._version = 0
        self._task: asyncio.Future[None] | None = None
        form = QFormLayout()
        form.addRow(self.tr("Period"), self.period)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        layout.addWidget(note)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()

    def since(self) -> float:
        days = int(self.period.currentData() or 0)
        return time.time() - days * DAY if days else 0.0

    def refresh(self) -> None:
        """Read the figures off the window's thread (a long history takes a moment: about
        a quarter of a second per 100,000 messages), then show them."""
        self._version += 1
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a dialog shown on its own): read here
            self.show_rows(self.usage(self.since()))
            return
        self.status.setText(self.tr("Reading…"))
        self._task = asyncio.ensure_future(self._load(self._version, self.since()))

    async def _load(self, version: int, since: float) -> None:
        loop = asyncio.get_running_loop()
        try:
            rows = await loop.run_in_executor(_READER, self.usage, since)
        except AssistaError as exc:
            rows, problem = [], exception_text(exc)
        else:
            problem = ""
        if version != self._version or not isValid(self):
            return  # another period was asked for, or the dialog is gone
        self.show_rows(rows)
        self.status.setText(problem)

    def show_rows(self, rows: list[ModelUsage]) -> None:
        self.status.setText("")
        prices = self.prices()
        self.table.setRowCount(len(rows) + (1 if rows else 0))
        costs = [model_cost(row, prices) for row in rows]
        for index, (row, (cost, complete)) in enumerate(zip(rows, costs, strict=True)):
            self._fill(index, row.model, row.answers, tokens_in=row.input_tokens,
                       tokens_out=row.output_tokens, cost=_cost_text(cost, complete),
                       rate=row.median_tokens_per_s)
        if not rows:
            return
        known = [cost for cost, _complete in costs if cost is not None]
        complete = all(c for _cost, c in costs) and len(known) == len(costs)
        self._fill(len(rows), self.tr("Total"), sum(r.answers for r in rows),
                   tokens_in=sum(r.input_tokens for r in rows),
                   tokens_out=sum(r.output_tokens for r in rows),
                   cost=_cost_text(sum(known) if known else None, complete), rate=None)
        for column in range(COLUMNS):
            item = self.table.item(len(rows), column)
            if item is not None:
                font = item.font()
                font.setBold(True)
                item.setFont(font)

    def _fill(self, index: int, model: str, answers: int, *, tokens_in: int,
              tokens_out: int, cost: str, rate: float | None) -> None:
        speed = locale_format.decimal(rate, 0) if rate is not None else "—"
        values = [model, locale_format.integer(answers), locale_format.integer(tokens_in),
                  locale_format.integer(tokens_out), cost, speed]
        for column, value in enumerate(values):
            item = QTableWidgetItem(value)  # (a model id is text, never markup)
            if column:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                      | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(index, column, item)


def _cost_text(cost: float | None, complete: bool) -> str:
    if cost is None:
        return "—"
    return ("" if complete else "≥") + locale_format.cost(cost, 4 if cost < 1 else 2)

