"""A text selection that can span many message bodies.

An endpoint is ``(body key, segment index, position)``; body keys are tuples that sort
in reading order (the chat uses ``(item index, body index within the item)``), so a
selection is just the ordered pair of its endpoints and survives the bodies between
them being destroyed and re-created as the user scrolls.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QPoint, Signal
from PySide6.QtGui import QGuiApplication

BodyKey = tuple[int, ...]
Endpoint = tuple[BodyKey, int, int]
# (start segment, start position, end segment, end position); -1 = "to the end"
BodyRange = tuple[int, int, int, int]


class SelectionModel(QObject):
    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.anchor: Endpoint | None = None
        self.focus: Endpoint | None = None
        # Set by the owner: global point -> endpoint, and (start, end) -> selected text
        self.locate: Callable[[QPoint], Endpoint | None] = lambda _point: None
        self.collect: Callable[[Endpoint, Endpoint], str] = lambda _s, _e: ""
        self.everything: Callable[[], tuple[Endpoint, Endpoint] | None] = lambda: None

    def start(self, endpoint: Endpoint, *, extend: bool = False) -> None:
        if not extend or self.anchor is None:
            self.anchor = endpoint
        self.focus = endpoint
        self.changed.emit()

    def extend_to(self, global_point: QPoint) -> None:
        if self.anchor is None:
            return
        endpoint = self.locate(global_point)
        if endpoint is not None and endpoint != self.focus:
            self.focus = endpoint
            self.changed.emit()

    def set_range(self, start: Endpoint, end: Endpoint) -> None:
        self.anchor, self.focus = start, end
        self.changed.emit()

    def clear(self) -> None:
        if self.anchor is not None:
            self.anchor = self.focus = None
            self.changed.emit()

    def select_all(self) -> None:
        span = self.everything()
        if span is not None:
            self.set_range(*span)

    def ordered(self) -> tuple[Endpoint, Endpoint] | None:
        if self.anchor is None or self.focus is None or self.anchor == self.focus:
            return None
        return (self.anchor, self.focus) if self.anchor <= self.focus else \
            (self.focus, self.anchor)

    def has_selection(self) -> bool:
        return self.ordered() is not None

    def range_for(self, key: BodyKey) -> BodyRange | None:
        """The part of body ``key`` that is selected, if any."""
        span = self.ordered()
        if span is None:
            return None
        start, end = span
        if key < start[0] or key > end[0]:
            return None
        first = (start[1], start[2]) if key == start[0] else (0, 0)
        last = (end[1], end[2]) if key == end[0] else (-1, -1)
        return (*first, *last)

    def text(self) -> str:
        span = self.ordered()
        return self.collect(*span) if span is not None else ""

    def copy(self) -> bool:
        text = self.text()
        if text:
            QGuiApplication.clipboard().setText(text)
        return bool(text)
