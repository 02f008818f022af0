"""One tool call in the activity sidebar: status with a spinner, duration, live command
output, Cancel, and on expanding the full arguments, the result (highlighted JSON, a
diff view, command output) and any images the tool returned."""

from __future__ import annotations

import html
import time

from PySide6.QtCore import QT_TRANSLATE_NOOP, QRectF, Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QImage,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.messages import ImagePart, ToolCallPart, ToolResultPart
from desktop.tools.approval import ApprovalPreview
from desktop.ui import theme
from desktop.ui.chat.answer_images import decode_image, part_bytes
from desktop.ui.plain_text import plain_label, plain_tooltip, shown
from desktop.ui.tools.approval_card import (
    CodeView,
    heading_html,
    json_html,
    monospace_font,
    preview_html,
)
from desktop.ui.tools.approval_title import confinement_text
from desktop.ui.tools.json_text import shorten_json
from desktop.ui.tools.tool_call_text import (
    format_duration,
    result_confinement,
    result_has_output,
    result_html,
    summarize_arguments,
    summarize_result,
)
from desktop.ui.tools.tool_names import display_name

# (translated where they are shown)
STATUS_TEXT = {
    "pending": str(QT_TRANSLATE_NOOP("ToolCallCard", "… starting")),
    "awaiting_approval": str(QT_TRANSLATE_NOOP("ToolCallCard", "waiting for approval")),
    "running": str(QT_TRANSLATE_NOOP("ToolCallCard", "running")),
    "succeeded": str(QT_TRANSLATE_NOOP("ToolCallCard", "✓ succeeded")),
    "failed": str(QT_TRANSLATE_NOOP("ToolCallCard", "✗ failed")),
    "denied": str(QT_TRANSLATE_NOOP("ToolCallCard", "⊘ denied")),
    "cancelled": str(QT_TRANSLATE_NOOP("ToolCallCard", "■ cancelled")),
}
ACTIVE = frozenset({"pending", "awaiting_approval", "running"})
MAX_OUTPUT_CHARS = 200_000
MAX_IMAGES = 8
PANEL_VALUE_CHARS = 2_000  # a longer string value in the details: cut short until Show all
FULL_VALUE_CHARS = 200_000  # ... and after
THUMB = 160


class Spinner(QWidget):
    """A small rotating arc (advanced by the sidebar's timer)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFixedSize(14, 14)
        self.angle = 0
        self.setAccessibleName(self.tr("Running"))

    def advance(self) -> None:
        self.angle = (self.angle + 30) % 360
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(QColor(theme.colors()["accent"]), 2.0)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.drawArc(QRectF(2, 2, 10, 10), -self.angle * 16, 270 * 16)
        painter.end()


class ToolCallCard(QFrame):
    clicked = Signal(str)  # message id of the turn
    cancelRequested = Signal(str)  # call id
    statusChanged = Signal(str)  # the new status

    def __init__(self, call: ToolCallPart, message_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolCard")
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.call = call
        self.message_id = message_id
        self.started = time.monotonic()
        self.status = "pending"
        self.preview: ApprovalPreview | None = None
        self.result: ToolResultPart | None = None
        self.output_chars = 0
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 8)
        layout.setSpacing(2)
        top = QHBoxLayout()
        top.setSpacing(4)
        self.expand = QToolButton()
        self.expand.setText("▸")
        self.expand.setAutoRaise(True)
        self.expand.setCheckable(True)
        self.tool_name = name = display_name(call.name)
        self.expand.setAccessibleName(self.tr("Show details of {tool}").format(tool=name))
        self.expand.toggled.connect(self._toggle)
        self.spinner = Spinner()
        # The call's name, arguments, output and errors come from the model or a server:
        # plain text only (see desktop.ui.plain_text).
        self.name_label = plain_label(name)
        self.name_label.setObjectName("toolCardName")
        self.name_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.name_label.setToolTip(plain_tooltip(call.name))  # (the name the model used)
        self.status_label = plain_label()
        self.status_label.setObjectName("toolCardStatus")
        top.addWidget(self.expand)
        top.addWidget(self.name_label, 1)
        top.addWidget(self.spinner)
        top.addWidget(self.status_label)
        layout.addLayout(top)
        self.args_label = plain_label(shown(summarize_arguments(call.arguments)))
        self.meta_label = plain_label()
        for label in (self.args_label, self.meta_label):
            label.setObjectName("toolCardMeta")
            label.setWordWrap(True)
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            layout.addWidget(label)
        self._build_body(layout)
        self.image_labels: list[QLabel] = []
        self.set_status(self.tr("pending"))

    def _build_body(self, layout: QVBoxLayout) -> None:
        self.output_view = QPlainTextEdit()
        self.output_view.setObjectName("toolOutput")
        self.output_view.setReadOnly(True)
        self.output_view.setAccessibleName(self.tr("Output of {tool}").format(tool=self.tool_name))
        self.output_view.setFont(monospace_font())
        self.output_view.setMaximumBlockCount(2_000)
        self.output_view.setFixedHeight(130)
        self.output_view.hide()
        layout.addWidget(self.output_view)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setToolTip(
            self.tr("Stop this call; the assistant is told it was cancelled"))
        self.cancel_button.setAccessibleName(self.tr("Cancel {tool}").format(tool=self.tool_name))
        self.cancel_button.clicked.connect(self._cancel)
        cancel_row = QHBoxLayout()
        cancel_row.addStretch(1)
        cancel_row.addWidget(self.cancel_button)
        layout.addLayout(cancel_row)
        self.details = CodeView(320)
        self.full = False  # the details' long values shown whole
        self.details.anchorClicked.connect(self._show_full)
        self.details.setAccessibleName(self.tr("Details of {tool}").format(tool=self.tool_name))
        self.details.hide()
        layout.addWidget(self.details)
        self.images = QWidget()
        self.images_row = QHBoxLayout(self.images)
        self.images_row.setContentsMargins(0, 4, 0, 0)
        self.images_row.addStretch(1)
        self.images.hide()
        layout.addWidget(self.images)

    # -- state ------------------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    def set_status(self, status: str) -> None:
        if status == "running" and self.status != "running":
            self.started = time.monotonic()  # the duration is the run, not the wait
        self.status = status
        status_text = self.tr(STATUS_TEXT[status]) if status in STATUS_TEXT else status
        self.status_label.setText(status_text)
        self.status_label.setProperty("status", status)
        self.status_label.style().unpolish(self.status_label)
        self.status_label.style().polish(self.status_label)
        self.spinner.setVisible(status == "running")
        self.cancel_button.setVisible(status in ("awaiting_approval", "running"))
        self.setAccessibleName(f"{self.tool_name}, {status_text}")
        self._update_output_visibility()
        self.tick()
        self.statusChanged.emit(status)

    def set_preview(self, preview: ApprovalPreview) -> None:
        self.preview = preview
        if self.details.isVisible():
            self._fill_details()

    def tick(self) -> None:
        if not self.active:
            return
        elapsed = format_duration(time.monotonic() - self.started)
        if self.status == "awaiting_approval":
            self.meta_label.setText(self.tr("waiting {time} · review it above").format(
                time=elapsed))
        else:
            self.meta_label.setText(elapsed)
        if self.status == "running":
            self.spinner.advance()

    def append_output(self, text: str) -> None:
        """Live output (run_command's stdout/stderr), capped."""
        if self.output_chars >= MAX_OUTPUT_CHARS or not text:
            return
        room = MAX_OUTPUT_CHARS - self.output_chars
        chunk = text if len(text) <= room else text[:room] + "\n" + self.tr(
            "… [more output in the result]")
        self.output_chars += len(text)
        bar = self.output_view.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 4
        cursor = self.output_view.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        cursor.insertText(chunk)
        if at_end:
            bar.setValue(bar.maximum())
        self._update_output_visibility()

    def output_text(self) -> str:
        return self.output_view.toPlainText()

    def finish(self, result: ToolResultPart) -> None:
        self.result = result
        self.set_status(result.status)
        duration = result.duration_s if result.duration_s is not None else (
            time.monotonic() - self.started)
        meta = f"{format_duration(duration)} · {shown(summarize_result(result))}"
        where = confinement_text(result_confinement(result))  # (a command's sandbox)
        self.meta_label.setText(f"{meta}\n{where}" if where else meta)
        self._show_images(result.provider_data.get("images"))
        if self.details.isVisible():
            self._fill_details()

    # -- details -----------------------------------------------------------------------------

    def details_html(self) -> str:
        """Arguments, preview and result; string values longer than PANEL_VALUE_CHARS
        cut short until "Show all" (a link, ``full``)."""
        limit = FULL_VALUE_CHARS if self.full else PANEL_VALUE_CHARS
        arguments, cut = shorten_json(self.call.arguments, limit)
        parts = [heading_html(self.tr("Arguments")), json_html(arguments)]
        has_diff = self.result is not None and '"diff"' in self.result.content
        if self.preview is not None and not has_diff and (
                self.preview.kind == "diff" or self.result is None):
            parts += [heading_html(self.tr("Preview")), preview_html(self.preview)]
        if self.result is not None:
            content, result_cut = shorten_json(self.result.content, limit)
            cut = cut or result_cut
            shown_result = self.result.model_copy(update={"content": content})
            parts += [heading_html(self.tr("Result · {status}").format(status=self.result.status)),
                      result_html(shown_result)]
        if cut or self.full:
            link = self.tr("Show less") if self.full else self.tr("Show all")
            parts.append(f"<p><a href='full'>{html.escape(link)}</a></p>")
        return "".join(parts)

    def _show_full(self, _link: QUrl) -> None:
        self.full = not self.full
        self._fill_details()

    def _fill_details(self) -> None:
        bar = self.details.verticalScrollBar()
        position = bar.value()
        self.details.setHtml(self.details_html())
        bar.setValue(position)

    def _toggle(self, checked: bool) -> None:
        self.expand.setText("▾" if checked else "▸")
        if checked:
            self._fill_details()
        self.details.setVisible(checked)
        self.images.setVisible(checked and bool(self.image_labels))
        self._update_output_visibility()

    def _update_output_visibility(self) -> None:
        has_output = self.output_chars > 0
        in_result = self.result is not None and result_has_output(self.result)
        self.output_view.setVisible(has_output and (
            self.active or (self.expand.isChecked() and not in_result)))

    def _show_images(self, images: object) -> None:
        if not isinstance(images, list):
            return
        for image in images[:MAX_IMAGES]:
            if not isinstance(image, dict) or not isinstance(image.get("data"), str):
                continue
            mime = str(image.get("mime_type") or image.get("mime") or "image")
            raw = part_bytes(ImagePart(data=image["data"]))  # size-checked before decoding
            decoded = decode_image(raw) if isinstance(raw, bytes) else raw
            loaded = isinstance(decoded, QImage)
            pixmap = QPixmap.fromImage(decoded) if isinstance(decoded, QImage) else QPixmap()
            label = plain_label()
            label.setObjectName("toolImage")
            label.setAccessibleName(self.tr("Image returned by {tool}").format(
                tool=self.tool_name))
            if loaded:
                label.setToolTip(plain_tooltip(f"{mime}, {pixmap.width()}×{pixmap.height()}"))
                label.setPixmap(pixmap.scaled(
                    min(THUMB, max(pixmap.width(), 16)), min(THUMB, max(pixmap.height(), 16)),
                    Qt.AspectRatioMode.KeepAspectRatio,
                    Qt.TransformationMode.SmoothTransformation))
            else:
                label.setText(self.tr("[image: {type}] (cannot be shown)").format(type=mime))
                label.setObjectName("toolCardMeta")
            self.images_row.insertWidget(self.images_row.count() - 1, label)
            self.image_labels.append(label)
        self.images.setVisible(self.expand.isChecked() and bool(self.image_labels))

    # -- input -------------------------------------------------------------------------------

    def _cancel(self) -> None:
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText(self.tr("Cancelling…"))
        self.cancelRequested.emit(self.call.id)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(self.message_id)
        super().mousePressEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.clicked.emit(self.message_id)
        elif event.key() == Qt.Key.Key_Space:
            self.expand.toggle()
        else:
            super().keyPressEvent(event)
