"""While an answer streams only part of its text is repainted per frame; every pixel
that changes must be in that part — else a character stays on screen where the text
no longer has it (a word that moved to the next line left its start at the end of the
line above) until the chat is opened again."""

from __future__ import annotations

import random
from typing import Any

from PySide6.QtCore import QEvent, QObject, QRect
from PySide6.QtGui import QImage, QPaintEvent, QRegion
from PySide6.QtWidgets import QApplication

from desktop.ui.markdown.view import MarkdownView


class PaintedRegions(QObject):
    """The regions the view really repainted (its paint events)."""

    def __init__(self) -> None:
        super().__init__()
        self.region = QRegion()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(event, QPaintEvent):
            self.region = self.region.united(event.region())
        return False


def changed_rows(before: QImage, after: QImage) -> list[int]:
    height = min(before.height(), after.height())
    rows = [y for y in range(height)
            if before.constScanLine(y).tobytes() != after.constScanLine(y).tobytes()]
    return rows + list(range(height, max(before.height(), after.height())))


def test_every_changed_pixel_of_a_streamed_frame_is_repainted(qtbot: Any) -> None:
    app = QApplication.instance()
    assert app is not None
    view = MarkdownView()
    qtbot.addWidget(view)
    view.resize(260, 600)
    view.show()
    qtbot.waitExposed(view)
    painted = PaintedRegions()
    view.installEventFilter(painted)
    rng = random.Random(4)
    words = [("x" * rng.randint(1, 14)) for _ in range(60)]
    text = " ".join(words) + "\n\nA *second* paragraph, **bold** at the end."
    for char in text:
        before = view.grab().toImage()
        view.append(char)
        painted.region = QRegion()
        view._render_stream()
        app.processEvents()
        repainted = QRegion(painted.region)  # (grab() paints all of it: not counted)
        after = view.grab().toImage()
        for y in changed_rows(before, after):
            assert repainted.intersects(QRect(0, y, view.width(), 1)), (
                f"row {y} changed but was not repainted after {view.markdown()!r}")
    # the end of the stream paints the final text whole, once
    painted.region = QRegion()
    view.flush()
    app.processEvents()
    assert QRegion(view.rect()).subtracted(painted.region).isEmpty()
