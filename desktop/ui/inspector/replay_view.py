"""The Replay tab: the recorded request sent again to a chosen provider and model, the
recorded answer and the new one side by side with their timings."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.replay import ReplayResult, original_result
from desktop.ui import locale_format
from desktop.ui.error_text import exception_text
from desktop.ui.plain_text import plain_label

if TYPE_CHECKING:
    from desktop.chat.inspector_service import ExchangeRecord, InspectorService
    from desktop.core.settings import ProviderConfig

log = logging.getLogger(__name__)


class ResultColumn(QWidget):
    """One answer: whose it is, its timings, its text (plain)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title: QLabel = plain_label()
        self.title.setObjectName("messageHeader")
        self.figures: QLabel = plain_label()
        self.figures.setObjectName("tokenCount")
        self.figures.setWordWrap(True)
        self.body = QPlainTextEdit()
        self.body.setReadOnly(True)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        for widget in (self.title, self.figures):
            column.addWidget(widget)
        column.addWidget(self.body, 1)

    def show_result(self, result: ReplayResult) -> None:
        self.title.setText(result.label)
        self.figures.setText(figures_text(self, result))
        text = result.text
        if result.error:
            text = self.tr("Error: %1").replace("%1", result.error) + ("\n\n" + text
                                                                      if text else "")
        self.body.setPlainText(text)
        self.body.setAccessibleName(self.tr("Answer of %1").replace("%1", result.label))


def figures_text(widget: QWidget, result: ReplayResult) -> str:
    def ms(value: float | None) -> str:
        return "-" if value is None else f"{locale_format.decimal(value * 1000, 0)} ms"
    speed = result.tokens_per_s
    return QCoreApplication.translate(
        "ReplayView", "First token %1 · total %2 · %3 tokens · %4 tok/s").replace(
        "%1", ms(result.first_token_s)).replace("%2", ms(result.total_s)).replace(
        "%3", str(result.output_tokens if result.output_tokens is not None else "-")).replace(
        "%4", locale_format.decimal(speed, 1) if speed else "-")


class ReplayView(QWidget):
    replayed = Signal(object)  # the ReplayResult

    def __init__(self, inspection: InspectorService, record: ExchangeRecord,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.inspection = inspection
        self.record = record
        self.task: asyncio.Future[None] | None = None
        self.providers = inspection.providers()
        self.provider_box = QComboBox()
        self.provider_box.setAccessibleName(self.tr("Provider to send to"))
        for config in self.providers:
            self.provider_box.addItem(config.name, config.id)
        self.model_box = QComboBox()
        self.model_box.setEditable(True)
        self.model_box.setAccessibleName(self.tr("Model to send to"))
        self.replay_button = QPushButton(self.tr("Replay"))
        self.replay_button.setToolTip(self.tr("Send the same request again (nothing is added "
                                              "to the chat)"))
        self.status: QLabel = plain_label()
        self.original = ResultColumn()
        self.again = ResultColumn()
        self.original.show_result(original_result(record))
        self.again.title.setText(self.tr("Not replayed yet"))
        row = QHBoxLayout()
        row.addWidget(plain_label(self.tr("Send to:")))
        row.addWidget(self.provider_box, 1)
        row.addWidget(self.model_box, 1)
        row.addWidget(self.replay_button)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.original)
        split.addWidget(self.again)
        split.setChildrenCollapsible(False)
        column = QVBoxLayout(self)
        column.addLayout(row)
        column.addWidget(self.status)
        column.addWidget(split, 1)
        self.provider_box.currentIndexChanged.connect(self._fill_models)
        self.replay_button.clicked.connect(self.start)
        same = self.provider_box.findData(record.provider_id)
        self.provider_box.setCurrentIndex(max(same, 0))
        self._fill_models()
        if not self.providers:
            self.replay_button.setEnabled(False)
            self.status.setText(self.tr("No provider is configured."))

    def _fill_models(self) -> None:
        index = self.provider_box.currentIndex()
        if index < 0:
            return
        config = self.providers[index]
        self.model_box.clear()
        models = [m.id for m in self.inspection.cached_models(config)]
        preferred = self.record.model if config.id == self.record.provider_id else config.model
        for model in dict.fromkeys([preferred, *models]):
            if model:
                self.model_box.addItem(model)
        self.model_box.setCurrentText(preferred)

    def start(self) -> None:
        index = self.provider_box.currentIndex()
        model = self.model_box.currentText().strip()
        if index < 0 or not model or (self.task is not None and not self.task.done()):
            return
        self.replay_button.setEnabled(False)
        self.status.setText(self.tr("Sending the request again…"))
        self.task = asyncio.ensure_future(self._run(self.providers[index], model))

    async def _run(self, config: ProviderConfig, model: str) -> None:
        try:
            result = await self.inspection.replay(self.record, config, model)
        except Exception as exc:  # the panel stays usable whatever happens
            log.exception("replay failed")
            result = ReplayResult(f"{config.name} · {model}", "", exception_text(exc), None,
                                  None, None)
        self.again.show_result(result)
        self.status.setText(self.tr("Replay failed.") if result.error else
                            self.tr("Replayed."))
        self.replay_button.setEnabled(True)
        self.replayed.emit(result)

    def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
