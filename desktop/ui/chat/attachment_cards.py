"""The files sent with a user message, as cards under its text: a drawn icon of the
file's kind, its name, type, size and pages; a click opens the file (where it was
attached from, else a copy of what the message kept: an image or a PDF), and "Show
extracted text" unfolds the text the model was given."""

from __future__ import annotations

import base64
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLocale, QObject, QRectF, QSize, Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QDesktopServices,
    QFont,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.attachments import AttachmentInfo
from desktop.core.messages import ImagePart, Part, TextPart
from desktop.ui import theme
from desktop.ui.markdown.find_marks import mark_colors
from desktop.ui.plain_text import plain_label, plain_tooltip

# The badge colour of each kind on the drawn file icon.
KIND_COLORS = {"pdf": "#d92d20", "docx": "#2563eb", "xlsx": "#079455", "csv": "#079455",
               "pptx": "#e04f16", "epub": "#7a5af8", "html": "#0e9384", "image": "#c11574"}
TEXT_LINES = 14  # the extracted text shows this many lines, then scrolls


def card_width() -> int:
    """The widest a card gets (at the current zoom)."""
    return theme.scaled(560)


def kind_badge(info: AttachmentInfo) -> str:
    """The short type on the icon and in the details: PDF, DOCX, XLSX, MD, PNG..."""
    suffix = Path(info.name).suffix.lstrip(".").upper()
    if suffix and len(suffix) <= 5:
        return suffix
    return info.mime.split("/")[-1].upper()[:5] or "FILE"


def details_text(info: AttachmentInfo) -> str:
    """"PDF · 12 KB · 3 pages" (what is known of it)."""
    pieces = [kind_badge(info)]
    if info.size is not None:
        pieces.append(QLocale().formattedDataSize(info.size))
    if info.pages:
        pieces.append(page_count(info.kind, info.pages))
    return " · ".join(pieces)


class PageCount(QObject):
    """"3 pages", "12 slides"...: ``self.tr`` with a count, the form lupdate reads as a
    plural (it takes ``QCoreApplication.translate(..., n)`` for a plain text, and English
    then read "1 page(s)")."""

    def text(self, kind: str, count: int) -> str:
        if kind == "pptx":
            return self.tr("%n slide(s)", "", count)
        if kind == "xlsx":
            return self.tr("%n sheet(s)", "", count)
        if kind == "epub":
            return self.tr("%n chapter(s)", "", count)
        return self.tr("%n page(s)", "", count)


def page_count(kind: str, count: int) -> str:
    return PageCount().text(kind, count)


class FileIcon(QWidget):
    """A page with a folded corner and a coloured badge of the file's type."""

    def __init__(self, info: AttachmentInfo, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.badge = kind_badge(info)
        self.color = KIND_COLORS.get(info.kind, "")
        side = theme.scaled(32)
        self.setFixedSize(QSize(side * 7 // 8, side))

    def paintEvent(self, event: QPaintEvent) -> None:
        c = theme.colors()
        w, h = self.width() - 2.0, self.height() - 2.0
        fold = w * 0.3
        page = QPainterPath()
        page.moveTo(1, 1)
        page.lineTo(1 + w - fold, 1)
        page.lineTo(1 + w, 1 + fold)
        page.lineTo(1 + w, 1 + h)
        page.lineTo(1, 1 + h)
        page.closeSubpath()
        with QPainter(self) as painter:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(QColor(c["muted"]))
            painter.setBrush(QColor(c["base"]))
            painter.drawPath(page)
            painter.drawLine(int(1 + w - fold), 1, int(1 + w - fold), int(1 + fold))
            painter.drawLine(int(1 + w - fold), int(1 + fold), int(1 + w), int(1 + fold))
            band = QRectF(0, h * 0.5, w + 2, h * 0.32)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(self.color or c["muted"]))
            painter.drawRoundedRect(band, 2, 2)
            font = QFont(self.font())
            font.setBold(True)
            font.setPixelSize(max(6, int(band.height() * 0.7)))
            painter.setFont(font)
            painter.setPen(QColor("#ffffff"))
            painter.drawText(band, Qt.AlignmentFlag.AlignCenter, self.badge[:4])


def open_attachment(info: AttachmentInfo, part: Part) -> str | None:
    """Open the file with the system's application; an error text when it cannot be."""
    if info.path and Path(info.path).is_file():
        target = Path(info.path)
    else:
        data = _kept_bytes(part)
        if data is None:
            where = info.path or info.name
            return QCoreApplication.translate(
                "AttachmentCard", "{name} is no longer at {path}, and the chat keeps only "
                "its text.").format(name=info.name, path=where)
        folder = Path(tempfile.gettempdir()) / "assista-attachments"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / Path(info.name).name
            target.write_bytes(data)
        except OSError as exc:
            return QCoreApplication.translate(
                "AttachmentCard", "{name} could not be opened: {reason}").format(
                name=info.name, reason=exc.strerror or str(exc))
    if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(target))):
        return QCoreApplication.translate(
            "AttachmentCard", "No application opens {name}.").format(name=info.name)
    return None


def _kept_bytes(part: Part) -> bytes | None:
    """The file's bytes as the message keeps them: an image, or a PDF kept for the
    providers that read PDFs."""
    data: object = None
    if isinstance(part, ImagePart):
        data = part.data
    elif isinstance(part, TextPart):
        document = part.provider_data.get("document")
        data = document.get("data") if isinstance(document, dict) else None
    if not isinstance(data, str) or not data:
        return None
    try:
        return base64.b64decode(data)
    except ValueError:
        return None


class AttachmentCard(QFrame):
    """One sent file: click (or Enter, Space) opens it; its text folds out below."""

    toggled = Signal()  # the extracted text was shown or hidden: the height changed

    def __init__(self, info: AttachmentInfo, part: Part,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.info, self.part = info, part
        self.setObjectName("sentAttachment")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName(QCoreApplication.translate("AttachmentCard", "Open {name}")
                               .format(name=info.name))
        tip = info.path or info.name
        self.setToolTip(plain_tooltip(QCoreApplication.translate(
            "AttachmentCard", "Open {file}").format(file=tip)))
        column = self._column = QVBoxLayout(self)
        column.setContentsMargins(8, 6, 8, 6)
        column.setSpacing(4)
        row = QHBoxLayout()
        row.setSpacing(8)
        row.addWidget(FileIcon(info))
        names = QVBoxLayout()
        names.setSpacing(0)
        self.name_label: QLabel = plain_label(info.name)
        self.name_label.setObjectName("attachmentName")
        self.details_label: QLabel = plain_label(details_text(info))
        self.details_label.setObjectName("attachmentDetails")
        names.addWidget(self.name_label)
        names.addWidget(self.details_label)
        row.addLayout(names, 1)
        column.addLayout(row)
        self.problem: QLabel = plain_label()  # why it could not be opened
        self.problem.setObjectName("attachmentProblem")
        self.problem.setWordWrap(True)
        self.problem.hide()
        column.addWidget(self.problem)
        self.text_toggle: QToolButton | None = None
        self.text_view: QPlainTextEdit | None = None
        if info.text:
            toggle = QToolButton()
            toggle.setObjectName("messageAction")
            toggle.setCheckable(True)
            toggle.setText(QCoreApplication.translate("AttachmentCard", "Show extracted text"))
            toggle.toggled.connect(self.show_text)
            self.text_toggle = toggle
            column.addWidget(toggle, 0, Qt.AlignmentFlag.AlignLeft)

    def sizeHint(self) -> QSize:  # as wide as allowed (the column narrows it)
        hint = super().sizeHint()
        return QSize(max(hint.width(), card_width()), hint.height())

    def show_text(self, shown: bool) -> None:
        """Unfold (or fold) the text the model was given for this file."""
        assert self.text_toggle is not None
        if shown and self.text_view is None:
            view = QPlainTextEdit()
            view.setReadOnly(True)  # plain text: a file's text is never markup
            view.setPlainText(self.info.text + (f"\n\n[{self.info.note}]"
                                                if self.info.note else ""))
            view.setAccessibleName(QCoreApplication.translate(
                "AttachmentCard", "Extracted text of {name}").format(name=self.info.name))
            lines = min(TEXT_LINES, self.info.text.count("\n") + 2)
            view.setFixedHeight(lines * view.fontMetrics().lineSpacing() + 12)
            self._column.addWidget(view)
            self.text_view = view
        if self.text_view is not None:
            self.text_view.setVisible(shown)
        self.text_toggle.setText(
            QCoreApplication.translate("AttachmentCard", "Hide extracted text") if shown
            else QCoreApplication.translate("AttachmentCard", "Show extracted text"))
        self.toggled.emit()

    def reveal(self, words: Sequence[str]) -> bool:
        """Unfold the extracted text with ``words`` marked, the first one in view
        (a search hit in the file's text); False when the text has none of them."""
        needles = [w.lower() for w in words if w.strip()]
        text = self.info.text.lower()
        if self.text_toggle is None or not any(n in text for n in needles):
            return False
        self.text_toggle.setChecked(True)
        view = self.text_view
        assert view is not None
        tint, strong = mark_colors()
        marks: list[QTextEdit.ExtraSelection] = []
        for needle in needles:
            cursor = view.document().find(needle)
            while not cursor.isNull():
                mark = QTextEdit.ExtraSelection()
                mark.cursor = cursor
                mark.format.setBackground(tint)
                mark.format.setForeground(QColor("#1f2328"))
                marks.append(mark)
                cursor = view.document().find(needle, cursor)
        marks.sort(key=lambda m: m.cursor.selectionStart())
        marks[0].format.setBackground(strong)
        view.setExtraSelections(marks)
        first = QTextCursor(marks[0].cursor)
        first.clearSelection()
        view.setTextCursor(first)
        view.ensureCursorVisible()
        return True

    def open_file(self) -> bool:
        problem = open_attachment(self.info, self.part)
        self.problem.setText(problem or "")
        if self.problem.isHidden() != (problem is None):
            self.problem.setVisible(problem is not None)
            self.toggled.emit()
        return problem is None

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(
                event.position().toPoint()):
            self.open_file()
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.open_file()
            return
        super().keyPressEvent(event)


def attachment_cards(parts: Sequence[tuple[AttachmentInfo, Part]],
                     changed: Callable[[], None]) -> QWidget | None:
    """A column of cards for the documents sent with a message (None: none)."""
    if not parts:
        return None
    box = QWidget()
    column = QVBoxLayout(box)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(6)
    for info, part in parts:
        card = AttachmentCard(info, part)
        card.toggled.connect(changed)
        card.setMaximumWidth(card_width())
        column.addWidget(card, 0, Qt.AlignmentFlag.AlignLeft)
    return box
