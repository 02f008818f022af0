"""A message body: markdown rendered as a stack of segments, streamed incrementally.

While text streams in, renders are coalesced (at most one per frame, 15 per second,
fewer when a render is expensive) and each render only touches the open tail block.
Text is selectable with the mouse (across messages, through a shared
:class:`SelectionModel`), links open in the system browser, code blocks have a Copy
button.
"""

from __future__ import annotations

import bisect
import time

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, QSize, Qt, QTimer, QUrl, Signal
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
)
from PySide6.QtWidgets import QMenu, QSizePolicy, QWidget

from desktop.ui import frames
from desktop.ui.chat.chat_selection import BodyKey, BodyRange, Endpoint, SelectionModel
from desktop.ui.markdown import accessible, artifacts, segment_text
from desktop.ui.markdown.body_menu import build_body_menu
from desktop.ui.markdown.body_pointer import BodyPointer
from desktop.ui.markdown.find_marks import FoundWords
from desktop.ui.markdown.renderer import Block, is_safe_link, renderer
from desktop.ui.markdown.segments import DocStyle, Segment
from desktop.ui.markdown.streaming import IncrementalMarkdown, Update

# At most 15 renders a second: text still flows, and each frame (parse, lay out, paint,
# hand to the window system) costs ~3 ms of CPU; at 20 a second the 250 tok/s stream
# cost 0.11 of a core, at 15 ~0.095 (measured with the former tests/bench/bench_app_stream.py).
FRAME_MS = 66
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
        # segments of a text built ahead, a few per idle step (see prepare())
        self._prepared: tuple[str, DocStyle, list[Block], list[Segment]] | None = None
        self._committed = 0
        self._width = -1
        self._height = 0
        self._tops: list[int] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._render_stream)
        self._frames = frames.clock()  # told of each streamed frame (see desktop.ui.frames)
        self._last_render = 0.0
        self._render_cost = 0.0
        self.render_count = 0
        self.content_version = 0  # bumped on every change (the accessibility tree follows)
        accessible.install(MarkdownView)  # screen readers read the painted text
        self.pointer = BodyPointer(self)  # selection, links and Copy buttons by mouse
        self._copied = -1
        self.found = FoundWords()  # words looked for (Ctrl+F, a search hit), painted
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
        prepared, self._prepared = self._prepared, None
        if prepared is not None and prepared[0] == text and prepared[1] is self._style:
            blocks, built = prepared[2], prepared[3]
        else:
            blocks = renderer(self._style.dark).cached_blocks(text) if text else []
            built = []
        self._segments = built + [Segment(b, self._style, self.attachments)
                                  for b in blocks[len(built):]]
        self._committed = len(self._segments)
        self._content_changed()

    def is_prepared(self, text: str) -> bool:
        """Whether :meth:`prepare` built all of ``text``."""
        prepared = self._prepared
        return (prepared is not None and prepared[0] == text and prepared[1] is self._style
                and len(prepared[3]) == len(prepared[2]))

    def prepare(self, text: str, until: float) -> bool:
        """Build the segments of ``text`` for a later :meth:`set_markdown` of it (nothing
        shows yet), laid out at the current width, at least one and then until
        ``until`` (``time.perf_counter``); True when all of them are built. A block
        built ahead in the chat gets its text so in short idle steps (building the
        documents of a whole answer at once took up to ~5 ms)."""
        prepared = self._prepared
        if prepared is None or prepared[0] != text or prepared[1] is not self._style:
            blocks = renderer(self._style.dark).cached_blocks(text) if text else []
            prepared = self._prepared = (text, self._style, blocks, [])
        blocks, built = prepared[2], prepared[3]
        width = self.width()
        while len(built) < len(blocks):
            segment = Segment(blocks[len(built)], self._style, self.attachments)
            if width > 0 and self.testAttribute(Qt.WidgetAttribute.WA_Resized):
                segment.layout(width)
            built.append(segment)
            if time.perf_counter() >= until:
                break
        return len(built) == len(blocks)

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
            self.update()  # all of it once: streamed frames repainted only their changes
            accessible.content_changed(self)

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
        self._prepared = None
        self._committed = 0

    def toPlainText(self) -> str:
        return "\n\n".join(seg.plain_text() for seg in self._segments)

    def segment_count(self) -> int:
        return len(self._segments)

    def code_text(self, index: int) -> str:
        """The whole code block that segment ``index`` begins (its pieces joined)."""
        return self._code_of(index).removesuffix("\n")

    def code_blocks(self) -> list[str]:
        return [self._code_of(i) for i, s in enumerate(self._segments)
                if s.block.kind == "code" and not s.block.joins_prev]

    def _code_of(self, index: int) -> str:
        return segment_text.code_of(self._segments, index)

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
        self._frames.rendered.emit()

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
        self.content_version += 1
        self.found.refresh(self._segments)
        if not self.testAttribute(Qt.WidgetAttribute.WA_Resized):
            # Never given a size: laid out when its layout asks for a height at the real
            # width, not now at a default one (a block built while scrolling did both).
            self._width = -1
            self.updateGeometry()
            self.contentChanged.emit()
            return
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
        if self._height != old_height:
            self.updateGeometry()
            self.contentChanged.emit()
        # (marked after the column followed the new height: marked before, when the
        # column then scrolled, Qt painted it on its own, then the line scrolled in)
        self.update(0, max(0, top), self.width(), max(old_height, self._height) + 1 - top)

    def _layout(self, width: int) -> None:
        if width != self._width:
            self._height = segment_text.stack(self._segments, self._tops, 0, width, self._gap())
            self._width = width

    def _layout_tail(self, start: int) -> None:
        """Lay out segments ``start``… again at the current width, below the others."""
        self._height = segment_text.stack(self._segments, self._tops, start, self._width,
                                          self._gap())

    def _gap(self) -> int:
        return round(GAP * self._style.font.pointSizeF() / 11)

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
        if self._background is None and not self._segments:
            return
        painter = QPainter(self)
        self._layout(self.width())
        ranges = self._segment_ranges() if self._segments else {}
        # Each dirty rectangle on its own: a scroll step dirties a strip at one edge and
        # maybe a spot at the other, and their bounding box is the whole view.
        region = event.region()
        several = 1 < region.rectCount() <= 8
        rects = list(region) if several else [event.rect()]  # type: ignore[call-overload]
        for rect in rects:
            painter.setClipRect(rect)
            if self._background is not None:
                painter.fillRect(rect, self._background)
            self._paint_segments(painter, rect, ranges)
        painter.end()

    def _paint_segments(self, painter: QPainter, rect: QRect,
                        ranges: dict[int, tuple[int, int]]) -> None:
        first = max(0, bisect.bisect_right(self._tops, rect.top()) - 1)
        for index in range(first, len(self._segments)):
            segment = self._segments[index]
            if segment.top > rect.bottom():
                break
            painter.save()
            painter.translate(0, segment.top)
            segment.paint(painter, self.width(), ranges.get(index),
                          copy_hover=index == self.pointer.hover_copy and self.pointer.hover_action,
                          copied=index == self._copied,
                          clip=QRectF(rect).translated(0, -segment.top),
                          marks=self.found.selections(index, segment))
            painter.restore()

    def _segment_ranges(self) -> dict[int, tuple[int, int]]:
        return segment_text.segment_ranges(self._segments, self.selection.range_for(self.key))

    # -- positions and text -------------------------------------------------------------

    def _ensure_layout(self) -> None:
        if self._width < 0 and self._segments:
            self._layout(self.width() if self.width() > 0 else 600)

    def segment_at(self, y: float) -> int:
        self._ensure_layout()
        return segment_text.segment_at(self._tops, y) if self._segments else -1

    def endpoint_at(self, point: QPointF) -> Endpoint:
        self._ensure_layout()
        return segment_text.endpoint_at(self._segments, self._tops, self.key, point)

    def start_endpoint(self) -> Endpoint:
        return (self.key, 0, 0)

    def end_endpoint(self) -> Endpoint:
        return segment_text.end_endpoint(self._segments, self.key)

    def text_range(self, span: BodyRange) -> str:
        return segment_text.text_range(self._segments, span)

    def text_in(self, key: BodyKey, start: Endpoint, end: Endpoint) -> str:
        return segment_text.text_in(self._segments, key, start, end)

    def _locate_local(self, global_point: QPoint) -> Endpoint:
        return self.endpoint_at(QPointF(self.mapFromGlobal(global_point)))

    def _everything(self) -> tuple[Endpoint, Endpoint]:
        return self.start_endpoint(), self.end_endpoint()

    # -- mouse and keys -----------------------------------------------------------------

    def segment_kind(self, index: int) -> str:
        return self._segments[index].block.kind

    def anchor_at(self, point: QPointF) -> str:
        index = self.segment_at(point.y())
        if index < 0:
            return ""
        segment = self._segments[index]
        return segment.anchor_at(point - QPointF(0, segment.top))

    def segment(self, index: int) -> Segment:
        return self._segments[index]

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if not self.pointer.press(event):
            super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        self.pointer.move(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self.pointer.release(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        self.pointer.double_click(event)

    def leaveEvent(self, event: QEvent) -> None:
        self.pointer.leave()

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
        return build_body_menu(self, point)

    # -- actions --------------------------------------------------------------------------

    def copy_code(self, index: int) -> None:
        while index > 0 and self._segments[index].block.joins_prev:
            index -= 1
        QGuiApplication.clipboard().setText(self._code_of(index).removesuffix("\n"))
        self._copied = index
        self.update()
        QTimer.singleShot(1500, self._reset_copied)

    def code_action(self, index: int, action: str) -> None:
        """A code block's header button: copy, save, source (an SVG), preview."""
        if action == "copy":
            self.copy_code(index)
            return
        segment = self._segments[index]
        kind = segment.artifact
        if kind is None:
            return
        if action == "source":
            segment.toggle_source()
            self._content_changed()
            self.update()
        elif action == "preview":
            artifacts.open_preview(self, kind, self.code_text(index), dark=self._style.dark)
        elif action == "save":
            artifacts.save_artifact(self, kind, self.code_text(index))

    def _reset_copied(self) -> None:
        self._copied = -1
        self.update()

    def open_link(self, url: str) -> None:
        """Links go to the system browser, never inside the app; others are ignored."""
        self.linkActivated.emit(url)
        if is_safe_link(url):
            QDesktopServices.openUrl(QUrl(url))
