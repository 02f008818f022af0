"""The images an answer carries, inline under its text, each with Save as…, Copy and
Open; an image that is broken, too large or was not kept is a placeholder saying so.

Decoding is the risky step (a hostile server can send a tiny file that claims to be
a 60000x60000 picture), so :func:`decode_image` reads the header first and refuses
more than :data:`~desktop.core.images.MAX_PIXELS` pixels before the decoder
allocates anything, and Qt's own allocation limit backs that up.
"""

from __future__ import annotations

import base64
import binascii
import tempfile
from pathlib import Path

from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QCoreApplication,
    QIODevice,
    QSize,
    Qt,
    QUrl,
    Signal,
)
from PySide6.QtGui import (
    QDesktopServices,
    QGuiApplication,
    QImage,
    QImageReader,
    QPainter,
    QPaintEvent,
    QPixmap,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.images import (
    GENERATED,
    MAX_IMAGE_BYTES,
    MAX_IMAGES,
    MAX_PIXELS,
    check_image,
    part_problem,
)
from desktop.core.messages import ImagePart, ToolResultPart
from desktop.ui.plain_text import plain_label

#: The widest an answer's image is shown (a click on Open shows it whole).
SHOWN_WIDTH = 512
#: Qt's own cap on one decoded image, in MB (8192x8192 RGBA is 256 MB).
ALLOCATION_LIMIT_MB = 300

_SUFFIXES = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


def decode_image(data: bytes) -> QImage | str:
    """The picture of image bytes, or a problem code (``too_large``, ``not_an_image``,
    ``bad_data``): the size is checked from the header before any pixel is decoded."""
    kind = check_image(data)
    if not isinstance(kind, str):
        return kind.code
    QImageReader.setAllocationLimit(ALLOCATION_LIMIT_MB)
    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    size = reader.size()
    if not size.isValid():
        return "bad_data"
    if size.width() * size.height() > MAX_PIXELS:
        return "too_large"
    image = reader.read()
    return "bad_data" if image.isNull() else image


def part_bytes(part: ImagePart) -> bytes | str:
    """The bytes a kept image part holds, or its problem code."""
    problem = part_problem(part)
    if problem is not None:
        return problem
    if len(part.data) > MAX_IMAGE_BYTES * 4 // 3 + 8:
        return "too_large"
    try:
        return base64.b64decode(part.data, validate=False)
    except (binascii.Error, ValueError):
        return "bad_data"


def problem_text(code: str) -> str:
    """The placeholder's words for a problem code."""
    if code == "too_large":
        return QCoreApplication.translate(
            "AnswerImages", "Image not shown: it is larger than the app allows "
            "(10 MB, 8192×8192 pixels).")
    if code == "not_inline":
        return QCoreApplication.translate(
            "AnswerImages", "Image not shown: the provider sent a link instead of the picture.")
    if code == "download_failed":
        return QCoreApplication.translate(
            "AnswerImages", "Image not shown: it could not be downloaded.")
    if code == "failed":
        return QCoreApplication.translate("AnswerImages", "The provider could not make the image.")
    if code == "not_an_image":
        return QCoreApplication.translate(
            "AnswerImages", "Image not shown: the data is not a picture the app can show "
            "(PNG, JPEG, GIF or WebP).")
    return QCoreApplication.translate("AnswerImages", "Image not shown: its data is broken.")


class Picture(QWidget):
    """An image scaled to fit the width it is given, never wider than :data:`SHOWN_WIDTH`
    nor its own width (its height follows: it has a height for each width)."""

    def __init__(self, image: QImage, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._source = QPixmap.fromImage(image)
        self._scaled = QPixmap()
        self.natural = QSize(min(SHOWN_WIDTH, image.width()),
                             max(1, image.height() * min(SHOWN_WIDTH, image.width())
                                 // max(1, image.width())))
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def shown_size(self, width: int) -> QSize:
        return self.natural.scaled(min(width, self.natural.width()), self.natural.height(),
                                   Qt.AspectRatioMode.KeepAspectRatio)

    def pixmap(self) -> QPixmap:
        """The picture as it is drawn now (scaled to the widget's width)."""
        size = self.shown_size(self.width() if self.width() > 0 else self.natural.width())
        if self._scaled.size() != size * self.devicePixelRatioF():
            self._scaled = self._source.scaled(size * self.devicePixelRatioF(),
                                               Qt.AspectRatioMode.KeepAspectRatio,
                                               Qt.TransformationMode.SmoothTransformation)
            self._scaled.setDevicePixelRatio(self.devicePixelRatioF())
        return self._scaled

    def sizeHint(self) -> QSize:
        return self.natural

    def minimumSizeHint(self) -> QSize:
        return QSize(16, 16)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self.shown_size(width).height()

    def paintEvent(self, event: QPaintEvent) -> None:
        with QPainter(self) as painter:
            painter.drawPixmap(0, 0, self.pixmap())


class AnswerImage(QWidget):
    """One image of an answer: the picture (scaled to fit) with its actions, or a
    placeholder. ``problem`` is what the user was told, for tests and the window."""

    changed = Signal()

    def __init__(self, part: ImagePart, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.part = part
        self.data = b""
        self.image: QImage | None = None
        self.problem: str | None = None  # a text shown to the user (an action's failure too)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        raw = part_bytes(part)
        decoded = decode_image(raw) if isinstance(raw, bytes) else raw
        if isinstance(decoded, QImage):
            self.data = raw if isinstance(raw, bytes) else b""
            self.image = decoded
            self.picture = Picture(decoded)
            self.picture.setObjectName("answerImage")
            self.picture.setAccessibleName(self.tr("Image {width}×{height}").format(
                width=decoded.width(), height=decoded.height()))
            column.addWidget(self.picture)
            column.addLayout(self._actions())
        else:
            self.problem = problem_text(decoded)
            self.placeholder = plain_label(self.problem)
            self.placeholder.setObjectName("imagePlaceholder")
            self.placeholder.setWordWrap(True)
            column.addWidget(self.placeholder)
        self.note = plain_label()
        self.note.setObjectName("messageStatus")
        self.note.hide()
        column.addWidget(self.note)

    def _actions(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setSpacing(6)
        self.save_button = self._button(self.tr("Save as…"), self.save_as)
        self.copy_button = self._button(self.tr("Copy"), self.copy)
        self.open_button = self._button(self.tr("Open"), self.open)
        for button in (self.save_button, self.copy_button, self.open_button):
            row.addWidget(button)
        row.addStretch(1)
        return row

    @staticmethod
    def _button(text: str, slot: object) -> QToolButton:
        button = QToolButton()
        button.setObjectName("messageAction")
        button.setText(text)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.clicked.connect(slot)
        return button

    @property
    def suffix(self) -> str:
        return _SUFFIXES.get(self.part.media_type, "png")

    def _tell(self, text: str | None) -> None:
        self.problem = text
        self.note.setText(text or "")
        self.note.setVisible(bool(text))
        self.changed.emit()

    def save_as(self) -> None:
        name = f"{self.part.name or 'image'}.{self.suffix}"
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Save image"), str(Path.home() / name),
            self.tr("Images (*.{suffix})").format(suffix=self.suffix))
        if path:
            self.save_to(Path(path))

    def save_to(self, path: Path) -> bool:
        """Write the image's bytes as they came (no re-encoding) to ``path``."""
        try:
            path.write_bytes(self.data)
        except OSError as exc:
            self._tell(self.tr("The image could not be saved: {reason}").format(
                reason=exc.strerror or str(exc)))
            return False
        self._tell(None)
        return True

    def copy(self) -> None:
        if self.image is not None:
            QGuiApplication.clipboard().setImage(self.image)

    def open(self) -> None:
        """Open the image with the system's viewer (from a temporary file)."""
        folder = Path(tempfile.gettempdir()) / "assista-images"
        target = folder / f"{self.part.name or 'image'}-{id(self):x}.{self.suffix}"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            target.write_bytes(self.data)
        except OSError as exc:
            self._tell(self.tr("The image could not be opened: {reason}").format(
                reason=exc.strerror or str(exc)))
            return
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(target))):
            self._tell(self.tr("No application opens images."))


def answer_images(parts: list[ImagePart], changed: object) -> QWidget | None:
    """The images of an answer, one under another (None when there are none)."""
    if not parts:
        return None
    box = QWidget()
    box.setObjectName("answerImages")
    column = QVBoxLayout(box)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(10)
    for part in parts:
        image = AnswerImage(part, box)
        image.changed.connect(changed)
        column.addWidget(image)
    return box


def tool_images(results: list[ToolResultPart]) -> list[ImagePart]:
    """The images tools returned (an MCP tool's image content, kept in the result's
    ``provider_data["images"]``), as image parts to show with the answer."""
    parts: list[ImagePart] = []
    for result in results:
        images = result.provider_data.get("images")
        for index, image in enumerate(images if isinstance(images, list) else []):
            if isinstance(image, dict) and isinstance(image.get("data"), str):
                kind = image.get("mime_type")
                parts.append(ImagePart(
                    media_type=kind if isinstance(kind, str) else "image/png",
                    data=image["data"], name=f"{result.name}-{index + 1}",
                    provider_data={GENERATED: {"source": "mcp"}}))
    return parts[:MAX_IMAGES]
