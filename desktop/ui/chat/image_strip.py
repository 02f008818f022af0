"""The images attached to a message, as a row of thumbnails under its text."""

from __future__ import annotations

import base64

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from desktop.core.messages import ImagePart
from desktop.ui.plain_text import plain_tooltip

ATTACHMENT_WIDTH = 360


def image_strip(images: list[ImagePart], named: dict[str, QImage]) -> QWidget | None:
    """Thumbnails of ``images`` (None when there are none); each decoded image is also
    put in ``named`` under its name (the markdown body copies them from there)."""
    if not images:
        return None
    strip = QWidget()
    box = QHBoxLayout(strip)
    box.setContentsMargins(0, 0, 0, 0)
    for part in images:
        image = QImage.fromData(QByteArray(base64.b64decode(part.data or "")))
        if image.isNull():
            continue
        name = part.name or f"image{len(named) + 1}"
        named[name] = image
        label = QLabel()
        label.setPixmap(QPixmap.fromImage(image).scaledToWidth(
            min(ATTACHMENT_WIDTH, image.width()), Qt.TransformationMode.SmoothTransformation))
        label.setToolTip(plain_tooltip(name))
        box.addWidget(label)
    box.addStretch(1)
    return strip
