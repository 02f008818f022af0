"""The images attached to a message, as a row of thumbnails under its text, each with
its name, type and size; a click opens the image."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QMouseEvent, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from desktop.core.attachments import attachment_info
from desktop.core.messages import ImagePart
from desktop.ui.chat.answer_images import decode_image, part_bytes
from desktop.ui.chat.attachment_cards import details_text, open_attachment
from desktop.ui.plain_text import plain_label, plain_tooltip

ATTACHMENT_WIDTH = 360


class Thumbnail(QLabel):
    """An attached image, scaled down; a click opens it whole."""

    def __init__(self, part: ImagePart, image: QImage) -> None:
        super().__init__()
        self.part = part
        self.setPixmap(QPixmap.fromImage(image).scaledToWidth(
            min(ATTACHMENT_WIDTH, image.width()), Qt.TransformationMode.SmoothTransformation))
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.problem: str | None = None

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        info = attachment_info(self.part)
        if event.button() == Qt.MouseButton.LeftButton and info is not None:
            self.problem = open_attachment(info, self.part)
            if self.problem:
                self.setToolTip(plain_tooltip(self.problem))
        super().mouseReleaseEvent(event)


def image_strip(images: list[ImagePart], named: dict[str, QImage]) -> QWidget | None:
    """Thumbnails of ``images`` (None when there are none); each decoded image is also
    put in ``named`` under its name (the markdown body copies them from there)."""
    if not images:
        return None
    strip = QWidget()
    box = QHBoxLayout(strip)
    box.setContentsMargins(0, 0, 0, 0)
    for part in images:
        raw = part_bytes(part)  # size-checked before decoding
        image = decode_image(raw) if isinstance(raw, bytes) else None
        if not isinstance(image, QImage):
            continue
        name = part.name or f"image{len(named) + 1}"
        named[name] = image
        info = attachment_info(part)
        column = QVBoxLayout()
        column.setSpacing(2)
        thumbnail = Thumbnail(part, image)
        thumbnail.setToolTip(plain_tooltip(info.path or name if info else name))
        column.addWidget(thumbnail)
        caption = plain_label(f"{name} · {details_text(info)}" if info else name)
        caption.setObjectName("attachmentDetails")
        caption.setMaximumWidth(min(ATTACHMENT_WIDTH, image.width()) + 120)
        column.addWidget(caption)
        box.addLayout(column)
    box.addStretch(1)
    return strip
