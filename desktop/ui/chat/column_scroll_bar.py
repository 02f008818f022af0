"""The chat column's scroll bar, opaque.

The stylesheet draws scroll bars on a transparent track, so Qt repaints every widget
under one when it changes (the chat view, the chat pane, the splitter, the panels and
the window, each drawing its stylesheet background). A streamed answer changes the
bar's range on every frame, so all of them were painted ~20 times a second. This bar
paints the column's own background under the track first and tells Qt it is opaque:
it looks the same, and only the bar is painted.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QScrollBar, QWidget


class ColumnScrollBar(QScrollBar):
    def __init__(self, background: QColor, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.background = background
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() in (QEvent.Type.Polish, QEvent.Type.StyleChange):
            # (a style sheet's polish turns the attribute off on every scroll bar)
            self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        return handled

    def set_background(self, color: QColor) -> None:
        """The colour of the column beside it (the theme changed)."""
        self.background = color
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        with QPainter(self) as painter:
            painter.fillRect(event.rect(), self.background)
        super().paintEvent(event)
