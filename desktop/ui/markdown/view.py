"""A message body: markdown rendered as a stack of segments, streamed incrementally.

While text streams in, renders are coalesced (at most one per frame, 25 per second,
fewer when a render is expensive) and each render only touches the open tail block.
Text is selectable with the mouse (across messages, through a shared
:class:`SelectionModel`), links open in the system browser, code blocks have a Copy
button.
"""

from __future__ import annotations

import bisect
import time

from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QDesktopServices,
    QGuiApplication,
    QImage,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QTextCursor,
)
from PySide6.QtWidgets import QApplication, QMenu, QSizePolicy, QWidget

from desktop.ui.chat.chat_selection import BodyKey, BodyRange, Endpoint, SelectionModel
from desktop.ui.markdown.renderer import is_safe_link, renderer
from desktop.ui.markdown.segments import DocStyle, Segment
from desktop.ui.markdown.streaming import IncrementalMarkdown, Update

FRAME_MS = 40  # at most 25 renders a second: smooth to read, each frame costs ~1.5 ms
MAX_DELAY_MS = 250
GAP = 10


class MarkdownView(QWidget):
    contentChanged = Signal()  # the rendered content (and maybe the height) changed
    linkActivated = Signal(str)

    def __init__(self, parent: QWidget | None = None, *, dim: bool = False,
                 selection: SelectionModel | None = None, key: BodyKey = (0, 0)) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.setCursor(Qt.CursorShape.IBeamCursor)
        self.setAttribute(Qt.WidgetAttribute.WA_StaticContents, True)
        self.dim = dim
        self.key = key
        self.attachments: dict[str, QImage] = {}
        self._style = DocStyle.current(dim=dim)
        self._source = ""
        self._appended: list[str] = []  # streamed pieces not yet joined to _source
        self._stream: IncrementalMarkdown | None = None
        self._segments: list[Segment] = []
        self._committed = 0
        self._width = -1
        self._height = 0
        self._tops: list[int] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._render_stream)
        self._last_render = 0.0
        self._render_cost = 0.0
        self.render_count = 0
        self._press: QPointF | None = None
        self._press_anchor = ""
        self._dragging = False
        self._hover_copy = -1
        self._copied = -1
        self._background: QColor | None = None
        if selection is None:
            selection = SelectionModel(self)
            selection.locate = self._locate_local
            selection.collect = lambda s, e: self.text_in(self.key, s, e)
            selection.everything = self._everything
        self.selection = selection
        selection.changed.connect(self.update)

    def set_background(self, color: QColor | None) -> None:
        """Paint this colour under the text and tell Qt the view is opaque: a streamed
        update then repaints only the view, not the card, chat column, splitter and
        window under it (each painted its stylesheet background for every frame)."""
        self._background = color
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, color is not None)
        self.update()

    # -- content ----------------------------------------------------------------------

    def set_markdown(self, text: str) -> None:
        """Show ``text`` at once (what a streamed text ends up looking like, exactly)."""
        self._timer.stop()
        self._stream = None
        self._source = text
        self._appended = []
        blocks = renderer(self._style.dark).cached_blocks(text) if text else []
        self._segments = [Segment(b, self._style, self.attachments) for b in blocks]
        self._committed = len(self._segments)
        self._content_changed()

    def append(self, text: str) -> None:
        """Add streamed text; it is rendered on the next frame."""
        if self._stream is None:
            self._stream = IncrementalMarkdown(renderer(self._style.dark))
            self._stream.append(self.markdown())
            self._committed = 0  # the first render matches the existing segments again
        self._stream.append(text)
        self._appended.append(text)  # joined when read: see markdown()
        if not self._timer.isActive():
            elapsed = (time.perf_counter() - self._last_render) * 1000
            interval = min(MAX_DELAY_MS, max(FRAME_MS, self._render_cost * 4))
            self._timer.start(int(max(0.0, interval - elapsed)))

    def flush(self) -> None:
        """Render everything now, as final."""
        self._timer.stop()
        if self._stream is not None:
            self._apply(self._stream.update(final=True))
            self._stream = None

    def restyle(self) -> None:
        """Re-render with the current theme and zoom."""
        self.flush()
        self._style = DocStyle.current(dim=self.dim)
        self.set_markdown(self.markdown())

    def markdown(self) -> str:
        if self._appended:
            self._source += "".join(self._appended)
            self._appended.clear()
        return self._source

    def dispose(self) -> None:
        """Free the documents now (not whenever the garbage collector gets to them)."""
        self._timer.stop()
        self._stream = None
        self._segments = []
        self._committed = 0

    def toPlainText(self) -> str:
        return "\n\n".join(seg.plain_text() for seg in self._segments)

    def code_blocks(self) -> list[str]:
        return [self._code_of(i) for i, s in enumerate(self._segments)
                if s.block.kind == "code" and not s.block.joins_prev]

    def _code_of(self, index: int) -> str:
        """The code of the block that segment ``index`` starts (all its pieces)."""
        pieces = [self._segments[index].block.code]
        for segment in self._segments[index + 1:]:
            if not segment.block.joins_prev:
                break
            pieces.append(segment.block.code)
        return "".join(pieces)

    def is_streaming(self) -> bool:
        return self._stream is not None

    def _render_stream(self) -> None:
        if self._stream is None:
            return
        started = time.perf_counter()
        self._apply(self._stream.update())
        self._last_render = time.perf_counter()
        self._render_cost = (self._last_render - started) * 1000
        self.render_count += 1

    def _apply(self, update: Update) -> None:
        blocks = [*update.committed, *update.tail]
        open_segments = self._segments[self._committed:]
        kept: list[Segment] = []
        dirty = len(open_segments) != len(blocks)
        first_dirty = self._committed + len(blocks)
        in_place = False  # the first changed segment was updated, not added
        for i, block in enumerate(blocks):
            if i < len(open_segments):
                if open_segments[i].set_block(block) and self._committed + i < first_dirty:
                    first_dirty, in_place = self._committed + i, True
                    dirty = True
                kept.append(open_segments[i])
            else:
                kept.append(Segment(block, self._style, self.attachments))
                if self._committed + i < first_dirty:
                    first_dirty, in_place = self._committed + i, False
        self._segments[self._committed:] = kept
        self._committed += len(update.committed)
        if dirty:
            self._content_changed(first_dirty, in_place=in_place)

    # -- geometry -----------------------------------------------------------------------

    def _content_changed(self, first_dirty: int = 0, *, in_place: bool = False) -> None:
        """Re-lay out; repaint from the first changed line down (``in_place``: segment
        ``first_dirty`` was updated, so only from its first changed line)."""
        old_height = self._height
        width = self.width() if self.width() > 0 else 600
        if width == self._width and 0 < first_dirty <= len(self._tops):
            self._layout_tail(first_dirty)  # the segments above did not change
        else:
            self._width = -1
            self._layout(width)
        if first_dirty < len(self._segments):
            segment = self._segments[first_dirty]
            top = segment.top + (segment.changed_top() if in_place else -GAP)
        else:
            top = min(old_height, self._height) - GAP
        self.update(0, max(0, top), self.width(), max(old_height, self._height) + 1 - top)
        if self._height != old_height:
            self.updateGeometry()
            self.contentChanged.emit()

    def _layout(self, width: int) -> None:
        if width == self._width:
            return
        y = 0
        tops: list[int] = []
        gap = round(GAP * self._style.font.pointSizeF() / 11)
        for segment in self._segments:
            if segment.block.joins_prev and tops:
                y -= gap  # the pieces of one code block touch
            segment.top = y
            tops.append(y)
            y += segment.layout(width) + gap
        self._tops = tops
        self._height = max(0, y - gap)
        self._width = width

    def _layout_tail(self, start: int) -> None:
        """Lay out segments ``start``… again at the current width, below the others."""
        gap = round(GAP * self._style.font.pointSizeF() / 11)
        above = self._segments[start - 1]
        y = above.top + above.height + gap
        tops = self._tops[:start]
        for segment in self._segments[start:]:
            if segment.block.joins_prev:
                y -= gap
            segment.top = y
            tops.append(y)
            y += segment.layout(self._width) + gap
        self._tops = tops
        self._height = max(0, y - gap)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        self._layout(width)
        return self._height

    def sizeHint(self) -> QSize:
        return QSize(400, self._height)

    def minimumSizeHint(self) -> QSize:
        return QSize(100, 0)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._layout(event.size().width())
        if event.oldSize().width() != event.size().width():
            self.update()  # static contents: only a width change repaints everything

    def paintEvent(self, event: QPaintEvent) -> None:
        rect = event.rect()
        if self._background is None and not self._segments:
            return
        painter = QPainter(self)
        if self._background is not None:
            painter.fillRect(rect, self._background)
        if not self._segments:
            painter.end()
            return
        self._layout(self.width())
        first = max(0, bisect.bisect_right(self._tops, rect.top()) - 1)
        ranges = self._segment_ranges()
        for index in range(first, len(self._segments)):
            segment = self._segments[index]
            if segment.top > rect.bottom():
                break
            painter.save()
            painter.translate(0, segment.top)
            segment.paint(painter, self.width(), ranges.get(index),
                          copy_hover=index == self._hover_copy, copied=index == self._copied,
                          clip=QRectF(rect).translated(0, -segment.top))
            painter.restore()
        painter.end()

    def _segment_ranges(self) -> dict[int, tuple[int, int]]:
        span = self.selection.range_for(self.key)
        if span is None:
            return {}
        seg_a, pos_a, seg_b, pos_b = span
        if seg_b < 0:
            seg_b, pos_b = len(self._segments) - 1, -1
        out: dict[int, tuple[int, int]] = {}
        for index in range(max(0, seg_a), min(seg_b, len(self._segments) - 1) + 1):
            segment = self._segments[index]
            start = pos_a if index == seg_a else 0
            end = pos_b if index == seg_b and pos_b >= 0 else segment.end_position()
            out[index] = (start, end)
        return out

    # -- positions and text -------------------------------------------------------------

    def segment_at(self, y: float) -> int:
        if not self._segments:
            return -1
        return max(0, bisect.bisect_right(self._tops, y) - 1)

    def endpoint_at(self, point: QPointF) -> Endpoint:
        index = self.segment_at(point.y())
        if index < 0:
            return (self.key, 0, 0)
        segment = self._segments[index]
        if point.y() > segment.top + segment.height:
            return (self.key, index, segment.end_position())
        return (self.key, index, segment.cursor_at(point - QPointF(0, segment.top)))

    def start_endpoint(self) -> Endpoint:
        return (self.key, 0, 0)

    def end_endpoint(self) -> Endpoint:
        if not self._segments:
            return (self.key, 0, 0)
        return (self.key, len(self._segments) - 1, self._segments[-1].end_position())

    def text_range(self, span: BodyRange) -> str:
        seg_a, pos_a, seg_b, pos_b = span
        if seg_b < 0:
            seg_b, pos_b = len(self._segments) - 1, -1
        parts = []
        for index in range(max(0, seg_a), min(seg_b, len(self._segments) - 1) + 1):
            segment = self._segments[index]
            start = pos_a if index == seg_a else 0
            end = pos_b if index == seg_b and pos_b >= 0 else None
            parts.append(segment.plain_text(start, end))
        return "\n\n".join(parts)

    def text_in(self, key: BodyKey, start: Endpoint, end: Endpoint) -> str:
        first = (start[1], start[2]) if start[0] == key else (0, 0)
        last = (end[1], end[2]) if end[0] == key else (-1, -1)
        return self.text_range((*first, *last))

    def _locate_local(self, global_point: QPoint) -> Endpoint:
        return self.endpoint_at(QPointF(self.mapFromGlobal(global_point)))

    def _everything(self) -> tuple[Endpoint, Endpoint]:
        return self.start_endpoint(), self.end_endpoint()

    # -- mouse and keys -----------------------------------------------------------------

    def _copy_hit(self, point: QPointF) -> int:
        index = self.segment_at(point.y())
        if index < 0:
            return -1
        rect = self._segments[index].copy_rect(self.width())
        local = point - QPointF(0, self._segments[index].top)
        return index if rect is not None and rect.contains(local) else -1

    def _anchor_at(self, point: QPointF) -> str:
        index = self.segment_at(point.y())
        if index < 0:
            return ""
        segment = self._segments[index]
        return segment.anchor_at(point - QPointF(0, segment.top))

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        point = event.position()
        hit = self._copy_hit(point)
        if hit >= 0:
            self.copy_code(hit)
            return
        self._press = point
        self._press_anchor = self._anchor_at(point)
        self._dragging = False
        shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        self.selection.start(self.endpoint_at(point), extend=shift)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        point = event.position()
        if self._press is not None and event.buttons() & Qt.MouseButton.LeftButton:
            distance = (point - self._press).manhattanLength()
            if distance >= QApplication.startDragDistance():
                self._dragging = True
            if self._dragging:
                self.selection.extend_to(event.globalPosition().toPoint())
            return
        hover = self._copy_hit(point)
        if hover != self._hover_copy:
            self._hover_copy = hover
            self.update()
        anchor = self._anchor_at(point)
        pointing = hover >= 0 or bool(anchor)
        self.setCursor(Qt.CursorShape.PointingHandCursor if pointing
                       else Qt.CursorShape.IBeamCursor)
        self.setToolTip(anchor)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        clicked = self._press is not None and not self._dragging and bool(self._press_anchor)
        if clicked and self._anchor_at(event.position()) == self._press_anchor:
            self.selection.clear()
            self.open_link(self._press_anchor)
        self._press = None
        self._dragging = False

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        index = self.segment_at(event.position().y())
        if index < 0:
            return
        segment = self._segments[index]
        cursor = QTextCursor(segment.doc)
        cursor.setPosition(segment.cursor_at(event.position() - QPointF(0, segment.top)))
        cursor.select(QTextCursor.SelectionType.WordUnderCursor)
        self.selection.set_range((self.key, index, cursor.selectionStart()),
                                 (self.key, index, cursor.selectionEnd()))

    def leaveEvent(self, event: QEvent) -> None:
        if self._hover_copy >= 0:
            self._hover_copy = -1
            self.update()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.matches(QKeySequence.StandardKey.Copy):
            self.selection.copy()
        elif event.matches(QKeySequence.StandardKey.SelectAll):
            self.selection.select_all()
        else:
            super().keyPressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = self.build_menu(QPointF(event.pos()))
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        menu.popup(event.globalPos())

    def build_menu(self, point: QPointF) -> QMenu:
        menu = QMenu(self)
        copy = menu.addAction("Copy", self.selection.copy)
        copy.setShortcut(QKeySequence.StandardKey.Copy)
        copy.setEnabled(self.selection.has_selection())
        index = self.segment_at(point.y())
        if index >= 0 and self._segments[index].block.kind == "code":
            menu.addAction("Copy code block", lambda: self.copy_code(index))
        anchor = self._anchor_at(point)
        if anchor:
            menu.addAction("Copy link address",
                           lambda: QGuiApplication.clipboard().setText(anchor))
        menu.addAction("Select all", self.selection.select_all)
        owner = self.parentWidget()
        while owner is not None and not hasattr(owner, "message_actions"):
            owner = owner.parentWidget()
        if owner is not None:
            menu.addSeparator()
            for action in owner.message_actions():
                menu.addAction(action)
        return menu

    # -- actions --------------------------------------------------------------------------

    def copy_code(self, index: int) -> None:
        while index > 0 and self._segments[index].block.joins_prev:
            index -= 1
        QGuiApplication.clipboard().setText(self._code_of(index).removesuffix("\n"))
        self._copied = index
        self.update()
        QTimer.singleShot(1500, self._reset_copied)

    def _reset_copied(self) -> None:
        self._copied = -1
        self.update()

    def open_link(self, url: str) -> None:
        """Links go to the system browser, never inside the app; others are ignored."""
        self.linkActivated.emit(url)
        if is_safe_link(url):
            QDesktopServices.openUrl(QUrl(url))
