"""Found words in a message body: where the needles are in its segments (as shown, not
in the markdown), and how they are painted (every match tinted, the current one
stronger) under the selection."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF
from PySide6.QtGui import QAbstractTextDocumentLayout, QColor, QTextCharFormat, QTextCursor

from desktop.ui import theme

if TYPE_CHECKING:
    from desktop.ui.markdown.segments import Segment
    from desktop.ui.markdown.view import MarkdownView

#: A match: (segment index, start, end) in that segment's document.
Match = tuple[int, int, int]


def find_in(segments: Sequence[Segment], needles: Sequence[str]) -> list[Match]:
    """Every place a needle is (case-insensitive, not overlapping), top to bottom."""
    found: list[Match] = []
    for index, segment in enumerate(segments):
        spans: list[tuple[int, int]] = []
        for needle in needles:
            if not needle:
                continue
            cursor = segment.doc.find(needle, 0)
            while not cursor.isNull():
                spans.append((cursor.selectionStart(), cursor.selectionEnd()))
                cursor = segment.doc.find(needle, cursor)
        spans.sort()
        end = -1
        for start, stop in spans:  # (two needles on the same words: the first one)
            if start >= end:
                found.append((index, start, stop))
                end = stop
    return found


def mark_colors() -> tuple[QColor, QColor]:
    """Every match's tint and the current match's colour."""
    if theme.is_dark():
        return QColor("#6b5a17"), QColor("#c2761b")
    return QColor("#fff0a8"), QColor("#ffb547")


def mark_selections(segment: Segment,
                    marks: Sequence[tuple[int, int, bool]]
                    ) -> list[QAbstractTextDocumentLayout.Selection]:
    """The paint of ``marks`` ((start, end, current)) in one segment."""
    tint, strong = mark_colors()
    out: list[QAbstractTextDocumentLayout.Selection] = []
    for start, end, current in marks:
        chosen = QAbstractTextDocumentLayout.Selection()
        cursor = QTextCursor(segment.doc)
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        chosen.cursor = cursor
        fmt = QTextCharFormat()
        fmt.setBackground(strong if current else tint)
        fmt.setForeground(QColor("#1f2328"))  # dark text on the light tints, any theme
        if current and theme.is_dark():
            fmt.setForeground(QColor("#ffffff"))
        chosen.format = fmt
        out.append(chosen)
    return out


def match_rect(segment: Segment, start: int) -> QRectF:
    """The line holding text position ``start``, in segment coordinates."""
    block = segment.doc.findBlock(start)
    origin = segment.content_origin()
    if not block.isValid():
        return QRectF(0, origin.y(), 1, segment.height)
    rect = segment.doc.documentLayout().blockBoundingRect(block)
    line = block.layout().lineForTextPosition(start - block.position())
    top = rect.top() + (line.y() if line.isValid() else 0.0)
    height = line.height() if line.isValid() else rect.height()
    return QRectF(origin.x() + rect.left(), origin.y() + top, max(1.0, rect.width()), height)


class FoundWords:
    """What a body looks for and where it found it; refreshed when its text changes
    (a block built ahead gets its text later, a streamed answer grows)."""

    def __init__(self) -> None:
        self.needles: tuple[str, ...] = ()
        self.matches: list[Match] = []
        self.current = -1  # the index in ``matches`` shown as the current one
        self._by_segment: dict[int, list[tuple[int, int, bool]]] = {}

    def set(self, segments: Sequence[Segment], needles: Sequence[str], current: int) -> None:
        self.needles = tuple(n for n in needles if n)
        self.current = current
        self.refresh(segments)

    def refresh(self, segments: Sequence[Segment]) -> None:
        if not self.needles and not self.matches:
            return
        self.matches = find_in(segments, self.needles) if self.needles else []
        self._by_segment = {}
        for number, (index, start, end) in enumerate(self.matches):
            self._by_segment.setdefault(index, []).append((start, end, number == self.current))

    def selections(self, index: int,
                   segment: Segment) -> list[QAbstractTextDocumentLayout.Selection]:
        marks = self._by_segment.get(index)
        return mark_selections(segment, marks) if marks else []


def _segments(view: MarkdownView) -> list[Segment]:
    return [view.segment(i) for i in range(view.segment_count())]


def find_words(view: MarkdownView, needles: Sequence[str], current: int = -1) -> int:
    """Mark where ``needles`` are in a body (``current``: the match shown as the
    current one, -1 none); how many there are. No needles: no marks."""
    view.found.set(_segments(view), needles, current)
    view.update()
    return len(view.found.matches)


def match_top(view: MarkdownView, number: int) -> int:
    """The top of the line holding match ``number``, in the view's coordinates."""
    index, start, _end = view.found.matches[number]
    view.heightForWidth(view.width() if view.width() > 0 else 600)  # (laid out)
    segment = view.segment(index)
    return int(segment.top + match_rect(segment, start).top())
