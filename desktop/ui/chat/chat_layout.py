"""The chat's virtual column: only blocks near the viewport have widgets.

Every block (:class:`~desktop.ui.chat.chat_items.ChatItem`) has a height, estimated until it
is first laid out; widgets are created for what is visible (and, while idle, for what
is near), positioned by hand in the viewport and destroyed again once far away. Scrolls
blit the viewport and repaint only what comes into view. The view follows the bottom
unless the user scrolled up, which shows a "Jump to latest" button.
"""

from __future__ import annotations

import bisect
import math
import time
from functools import partial

from PySide6.QtCore import QRect, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QAbstractScrollArea, QWidget

from desktop.ui import theme
from desktop.ui.chat.chat_items import ChatItem, Metrics
from desktop.ui.chat.chat_selection import SelectionModel
from desktop.ui.chat.column_heights import ColumnHeights
from desktop.ui.chat.column_overlays import ColumnOverlays
from desktop.ui.chat.column_scroll_bar import ColumnScrollBar
from desktop.ui.chat.message_header import HeaderAhead
from desktop.ui.chat.message_widget import MessageWidget
from desktop.ui.chat.usage_text import PriceSource
from desktop.ui.markdown.renderer import renderer
from desktop.ui.markdown.streaming import StepParse

MAX_CHARS = 92  # readable line length, in average characters
MARGIN_X, MARGIN_Y, SPACING = 24, 16, 12
OVERSCAN = 800  # px laid out (while idle) beyond the viewport
PARSE_AHEAD = 2400  # px whose markdown is parsed (while idle) beyond the viewport
KEEP = 1600  # px beyond the viewport before a block's widget is destroyed
AFTER_SCROLL = 0.006  # s after a scroll step or paint before idle work: the frame first
STEP_BUDGET = 0.002  # s of building a block's text ahead per idle step (then it yields)
FOLLOW_SLACK = 24


class VirtualColumn(QAbstractScrollArea):
    askOthersRequested = Signal(str)  # message id: its question, answered by other models
    inspectRequested = Signal(str)  # message id: the requests its answer took
    readAloudRequested = Signal(str)  # an answer's markdown

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # The user's model prices for the answers' costs (the window sets them).
        self.prices: PriceSource = dict
        self.viewport().setObjectName("chatContainer")
        # The column paints its own background and says so: Qt then scrolls it by
        # moving pixels (a streamed answer scrolls it several times a second) and never
        # repaints the splitter and window under it.
        self.viewport().setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        self._background = QColor(theme.colors()["window"])
        self.setVerticalScrollBar(ColumnScrollBar(self._background))  # repainted per frame
        self.setFrameShape(QAbstractScrollArea.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.verticalScrollBar().setSingleStep(48)
        self.selection = SelectionModel(self)
        self._items: list[ChatItem] = []
        self._heights = ColumnHeights(MARGIN_Y, SPACING)
        self._pinned: set[int] = set()  # items whose widget must stay (streaming)
        self._follow = True
        self._busy = False
        self._font_metrics: tuple[str, Metrics] | None = None
        self._applied = 0  # the scroll value widgets were last positioned for
        self._live: set[int] = set()  # items that have a widget
        self._tail: QWidget | None = None  # shown after the last block (the turn's status)
        self._prefetch_timer = QTimer(self)
        self._prefetch_timer.setSingleShot(True)
        self._prefetch_timer.setInterval(0)
        self._prefetch_timer.timeout.connect(self._prefetch)
        self._drawn_at = 0.0  # perf_counter() of the last scroll step or paint
        self._parsing: StepParse | None = None  # a long text parsed a piece per step
        self._header_ahead = HeaderAhead()  # of the next block to build, a step ahead
        self.overlays = ColumnOverlays(self.viewport())
        self.jump_button = self.overlays.jump_button
        self.jump_button.clicked.connect(self.scroll_to_bottom)
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)
        theme.notifier().changed.connect(self._restyle)

    def scroll_to_bottom(self) -> None:
        self._follow = True
        self._relayout()

    def is_following(self) -> bool:
        return self._follow

    def column_width(self, metrics: Metrics | None = None) -> int:
        available = self.viewport().width() - 2 * MARGIN_X
        readable = int((metrics or self._metrics()).char_width * MAX_CHARS) + 32
        return max(200, min(available, readable))

    @property
    def _tops(self) -> list[int]:
        """Each block's top in the column; the last entry is the content's end."""
        return self._heights.tops

    def _metrics(self) -> Metrics:
        """The chat font's measures (asked on every relayout, so every streamed frame:
        measured again only when the font changes)."""
        font = theme.chat_font()
        key = font.key()
        if self._font_metrics is None or self._font_metrics[0] != key:
            fm = QFontMetricsF(font)
            self._font_metrics = key, Metrics(fm.averageCharWidth(), fm.lineSpacing() * 1.35,
                                              60)
        return self._font_metrics[1]

    def _materialized(self) -> list[int]:
        return sorted(self._live)

    def _materialize(self, index: int, *, ahead: bool = False) -> MessageWidget:
        """The widget of block ``index``, built now if needed (``ahead``: built in idle
        time, hidden, shown and its text rendered in later steps, see :meth:`_prefetch`)."""
        item = self._items[index]
        if item.widget is not None and not ahead:
            self._show_built(item.widget)
            if item.widget.finish_body():
                item.measured_width = -1
        if item.widget is None:
            first = MessageWidget(item.messages[0], parent=self.viewport(),
                                  selection=self.selection, key=(index, 0), defer_body=ahead,
                                  header=self._header_ahead.take(index, item.messages[0]))
            for number in range(1, len(item.messages)):
                self._add_continuation(index, first, number, ahead)
            self._apply_results(first, item)
            first.heightChanged.connect(partial(self._item_changed, index))
            first.readAloudRequested.connect(self.readAloudRequested)
            first.prices = self.prices
            first.update_usage()
            first.header_row.askOthersRequested.connect(
                partial(self.askOthersRequested.emit, first.message_id))
            first.header_row.inspectRequested.connect(
                partial(self.inspectRequested.emit, first.message_id))
            self._widget_created(first)
            item.widget = first
            item.measured_width = -1
            self._live.add(index)
            first.move(0, -first.height() - KEEP)  # shown above the viewport until placed
            if not ahead:  # (built ahead: shown in a step of its own, see _prefetch)
                self._show_built(first)
        return item.widget

    def _show_built(self, widget: MessageWidget) -> None:
        """Show a block's widget (its first show styles all its parts: 1-10 ms)."""
        if widget.isHidden():
            widget.show()
            self.overlays.keep_on_top()

    def set_tail(self, widget: QWidget) -> None:
        """A widget placed after the last block, as wide as the column, when visible."""
        widget.setParent(self.viewport())
        self._tail = widget

    def _tail_height(self, width: int) -> int:
        tail = self._tail
        if tail is None or tail.isHidden():
            return 0
        height = tail.heightForWidth(width) if tail.hasHeightForWidth() else -1
        return (height if height > 0 else tail.sizeHint().height()) + SPACING

    def _widget_created(self, widget: MessageWidget) -> None:
        """Hook for subclasses: a message widget was just built."""

    def _add_continuation(self, index: int, first: MessageWidget, number: int,
                          ahead: bool = False) -> None:
        message = self._items[index].messages[number]
        widget = MessageWidget(message, show_header=False, continuation=True,
                               selection=self.selection, key=(index, 2 * number),
                               defer_body=ahead)
        first.add_continuation(widget)

    @staticmethod
    def _apply_results(first: MessageWidget, item: ChatItem) -> None:
        for widget in [first, *first.continuations]:
            for call in widget.message.tool_calls:
                if call.id in item.results:
                    widget.add_tool_result(item.results[call.id])

    def forget_height(self, index: int) -> None:
        """Block ``index`` is to be measured (or, without a widget, estimated) again."""
        self._items[index].measured_width = -1
        self._heights.forget(index)

    def _release(self, index: int) -> None:
        item = self._items[index]
        self._live.discard(index)
        self._heights.released(index, item)
        if item.widget is not None:
            widget, item.widget = item.widget, None
            widget.hide()
            widget.dispose()
            widget.deleteLater()

    def _item_changed(self, index: int) -> None:
        if index < len(self._items):
            self._items[index].measured_width = -1
            if not self._busy:
                self._relayout()

    def _measure(self, index: int, width: int) -> bool:
        """Lay out a widget at ``width``; True if its height changed."""
        item = self._items[index]
        if item.widget is None or item.measured_width == width or item.widget.body_pending():
            return False  # (a block built ahead keeps its estimate until its text is in)
        height = item.widget.heightForWidth(width)
        if height < 0:  # nothing wraps (an answer of tool calls only): its size hint
            height = item.widget.sizeHint().height()
        item.measured_width = width
        changed = height != item.height
        item.height = height
        if changed:
            self._heights.changed()
        return changed

    def _relayout(self) -> None:
        """Estimate, measure what is near the viewport, position widgets, follow."""
        if self._busy:
            return
        self._busy = True
        try:
            self._do_relayout()
        finally:
            self._busy = False
        self._update_overlays()

    def _do_relayout(self) -> None:
        # (the font measured and the width worked out once: a streamed answer relays
        # the column out on every frame)
        metrics = self._metrics()
        width = self.column_width(metrics)
        self._heights.estimate(self._items, width, metrics)
        anchor = self._anchor()
        settled = False
        for _attempt in range(4):
            self._heights.sum(self._items)
            self._restore(anchor, width)
            changed = False
            visible = self._range(self._value(), self._value() + self.viewport().height())
            for index in [*visible, *(i for i in self._pinned if i < len(self._items))]:
                self._materialize(index)
                changed |= self._measure(index, width)
            if not changed:
                settled = True
                break  # (laid out for these heights already)
        off_screen = False  # (the blocks off screen too: tops final now)
        for index in self._materialized():
            off_screen |= self._measure(index, width)
        if off_screen or not settled:
            self._heights.sum(self._items)
            self._restore(anchor, width)
        keep = set(self._range(self._value() - KEEP, self._value() + self.viewport().height()
                               + KEEP)) | self._pinned
        for index in self._materialized():
            if index not in keep:
                self._release(index)
        self._place_widgets(width)

    def _place_widgets(self, width: int) -> None:
        x = max(MARGIN_X, (self.viewport().width() - width) // 2)
        value = self._value()
        shift = self._screen_shift(value)
        self._applied = value
        if shift:  # blit what is on screen, repaint only what shows up
            self.viewport().scroll(0, shift)
        for index in self._materialized():
            item = self._items[index]
            assert item.widget is not None
            if item.measured_width != width:
                self._measure(index, width)
            target = QRect(x, self._tops[index] - value, width, item.height)
            if item.widget.geometry() != target:
                item.widget.setGeometry(target)
        if self._tail is not None and not self._tail.isHidden():
            target = QRect(x, self._tops[-1] - value, width, self._tail_height(width) - SPACING)
            if self._tail.geometry() != target:
                self._tail.setGeometry(target)
        if (self._next_prefetch() is not None or self._next_unparsed() is not None
                or not self.overlays.ready()):
            self._prefetch_timer.start(0)

    def _screen_shift(self, value: int) -> int:
        """How far what is on screen moves, read on the first block on screen: the
        scroll value also moves when a block above changes height, and then nothing on
        screen does (scrolling the viewport by the value repainted all of it)."""
        page = self.viewport().height()
        for index in self._materialized():
            widget = self._items[index].widget
            assert widget is not None
            top = widget.y()
            if top < page and top + widget.height() > 0:
                return self._tops[index] - value - top
        return self._applied - value  # nothing on screen yet

    def _nearby(self, reach: int) -> list[int]:
        """Blocks within ``reach`` px of the viewport, nearest first (below first)."""
        top, page = self._value(), self.viewport().height()
        return [*self._range(top + page, top + page + reach),
                *reversed(self._range(top - reach, top))]

    def _next_prefetch(self) -> int | None:
        """The nearest block within the overscan that has no widget yet, or one built
        ahead that is not shown or whose text is not rendered yet."""
        for index in self._nearby(OVERSCAN):
            widget = self._items[index].widget
            if widget is None or widget.isHidden() or widget.body_pending():
                return index
        return None

    def _unparsed(self, index: int) -> str | None:
        """Markdown of block ``index`` that is not parsed yet (None: all of it is)."""
        parsed = renderer(theme.is_dark()).has_blocks
        return next((t for t in self._items[index].texts() if not parsed(t)), None)

    def _next_unparsed(self) -> str | None:
        """The nearest markdown within reach, without a widget, not parsed yet."""
        for index in self._nearby(PARSE_AHEAD):
            if self._items[index].widget is None:
                text = self._unparsed(index)
                if text is not None:
                    return text
        return None

    def _prefetch(self) -> None:
        """One short step of work near the viewport while idle, so scrolling finds the
        blocks ready: the nearest block without a widget gets its markdown parsed, one
        message a step, then its widget built, then shown, then its text rendered (its
        documents built for at most :data:`STEP_BUDGET` a step); further out,
        markdown is parsed ahead. Each step is its own turn of the event loop (a block parsed and
        built at once stalled scrolling for a frame or two; built and shown at once, up to
        16 ms, it still made the next scroll step miss its frame)."""
        if self._busy:
            return
        wait = self._drawn_at + AFTER_SCROLL - time.perf_counter()
        if wait > 0:  # (right behind a scroll step and its paint, it made the next late)
            self._prefetch_timer.start(math.ceil(wait * 1000))
            return
        index = self._next_prefetch()
        built = None if index is None else self._items[index].widget
        if built is not None and built.isHidden():
            self._show_built(built)
            self._prefetch_timer.start(0)
            return
        if index is not None and built is not None:
            if not built.body_prepared():
                start = time.perf_counter()
                done = built.prepare_body(start + STEP_BUDGET)
                if not done or time.perf_counter() - start > STEP_BUDGET / 2:
                    self._prefetch_timer.start(0)  # (more of its text, or shown, next step)
                    return
            self._busy = True  # (one relayout below, not one more per height change)
            try:
                self._materialize(index)  # its text, now parsed
            finally:
                self._busy = False
            self._relayout()
            return
        text = self._next_unparsed() if index is None else self._unparsed(index)
        if text is not None:
            self._parse_some(text)
            self._prefetch_timer.start(0)
        elif index is not None and not self._header_ahead.built(
                index, self._items[index].messages[0]):
            self._header_ahead.build(index, self._items[index].messages[0], self.viewport())
            self._prefetch_timer.start(0)
        elif index is not None:
            self._materialize(index, ahead=True)
            self._relayout()
        elif not self.overlays.ready():
            self.overlays.prepare()  # (the "Jump to latest" button the first scroll shows)

    def _parse_some(self, text: str) -> None:
        """One idle step of parsing ``text`` (a long one takes several)."""
        parsing, markdown = self._parsing, renderer(theme.is_dark())
        if parsing is None or parsing.text != text or parsing.renderer is not markdown:
            parsing = self._parsing = StepParse(markdown, text)
        # (half the budget: parsing a piece takes about as long as rendering it)
        if parsing.step(time.perf_counter() + STEP_BUDGET / 2):
            self._parsing = None

    # -- for finding words (desktop.ui.chat.chat_find) ------------------------------------

    def items(self) -> list[ChatItem]:
        return self._items

    def show_at(self, index: int, y: int) -> MessageWidget:
        """Scroll point ``y`` of block ``index`` a third of the way down; its widget."""
        self._follow = False
        self._set_value(self._tops[index] + y - self.viewport().height() // 3)
        self._relayout()
        return self._materialize(index)

    def _range(self, top: int, bottom: int) -> range:
        if not self._items:
            return range(0)
        first = max(0, bisect.bisect_right(self._tops, top) - 1)
        last = min(len(self._items), bisect.bisect_left(self._tops, bottom))
        return range(first, max(first, last))

    def _anchor(self) -> tuple[int, int] | None:
        """The first visible item and its offset from the top of the viewport."""
        if self._follow or not self._items:
            return None
        value = self._value()
        index = max(0, min(len(self._items) - 1, bisect.bisect_right(self._tops, value) - 1))
        return index, self._tops[index] - value

    def _restore(self, anchor: tuple[int, int] | None, width: int) -> None:
        content = self._tops[-1] - SPACING + MARGIN_Y + self._tail_height(width)
        page = self.viewport().height()
        bar = self.verticalScrollBar()
        bar.setRange(0, max(0, content - page))
        bar.setPageStep(page)
        if anchor is None:
            self._set_value(bar.maximum() if self._follow else bar.value())
        else:
            self._set_value(self._tops[anchor[0]] - anchor[1])

    def _value(self) -> int:
        return self.verticalScrollBar().value()

    def _set_value(self, value: int) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(max(0, min(bar.maximum(), value)))

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        """Widgets are positioned by :meth:`_relayout` (run from ``_on_scrolled``)."""

    def _on_scrolled(self, value: int) -> None:
        if not self._busy:
            self._drawn_at = time.perf_counter()
            self._follow = value >= self.verticalScrollBar().maximum() - FOLLOW_SLACK
            self._relayout()

    def _update_overlays(self) -> None:
        bar = self.verticalScrollBar()
        self.overlays.update(empty=not self._items, jump=not self._follow and bar.maximum()
                             - bar.value() > FOLLOW_SLACK)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._relayout()

    def paintEvent(self, event: QPaintEvent) -> None:  # the viewport's, before its blocks
        self._drawn_at = time.perf_counter()
        with QPainter(self.viewport()) as painter:
            painter.fillRect(event.rect(), self._background)

    def _restyle(self) -> None:
        """Theme or zoom changed: rebuild what is on screen, re-estimate the rest."""
        self._background = QColor(theme.colors()["window"])
        self._header_ahead.drop()
        self.overlays.restyled()
        self.viewport().update()
        bar = self.verticalScrollBar()
        if isinstance(bar, ColumnScrollBar):
            bar.set_background(self._background)
        for index in self._materialized():
            if index in self._pinned and self._items[index].widget is not None:
                widget = self._items[index].widget
                assert widget is not None
                widget.restyle()
            else:
                self._release(index)
            self._items[index].measured_width = -1
        for item in self._items:
            item.measured_width = -1
        self._heights.invalidate()  # all estimated again
        self._relayout()

