"""A row of buttons that wraps onto more lines instead of squeezing its buttons.

A :class:`~PySide6.QtWidgets.QHBoxLayout` given less width than its buttons need cuts
their text ("llow onc"); this layout never gives a button less than its size hint
(unless a single button is wider than the whole row). What does not fit on a line goes
on the next one, and the layout says how tall that makes it (``heightForWidth``), so the
widget above it grows instead.

- An optional *lead* (a word-wrapped label, say "Waiting for your approval: edit_file")
  comes first: when its text fits on one line beside all the buttons it takes the rest
  of that line, the buttons at the right; otherwise it takes the whole first line
  (wrapping there) and the buttons flow on the lines under it, from the left.
- :meth:`add_stretch` splits the buttons in two groups: those after it sit at the right
  end of the line they land on (Compare and Send), those before it at the left.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import QLabel, QLayout, QLayoutItem, QStyle, QWidget, QWidgetItem


class WrapRow(QLayout):
    def __init__(self, parent: QWidget | None = None, *, lead: QLabel | None = None,
                 spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._right_from = -1  # index of the first item of the right-hand group (-1: none)
        self._lead_item: QLayoutItem | None = None
        self.setSpacing(spacing)
        if lead is not None:
            self.addWidget(lead)
            self._lead_item = self._items[0]

    # -- QLayout's item list ------------------------------------------------------------------

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)
        self.invalidate()

    def add_stretch(self) -> None:
        """The buttons added after this sit at the right of their line."""
        self._right_from = len(self._items)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        if not 0 <= index < len(self._items):
            return None
        item = self._items.pop(index)
        if item is self._lead_item:
            self._lead_item = None
        if index < self._right_from:
            self._right_from -= 1
        self.invalidate()
        return item

    # -- sizes --------------------------------------------------------------------------------

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), apply=False)

    def sizeHint(self) -> QSize:
        buttons = self._buttons()
        lead = self._lead()
        width = self.one_line_width() + (self._lead_width(lead) + self.spacing()
                                          if lead is not None else 0)
        if lead is not None and not buttons:
            width -= self.spacing()
        heights = [item.sizeHint().height() for item in buttons]
        if lead is not None:
            heights.append(lead.sizeHint().height())
        return self._with_margins(QSize(width, max(heights, default=0)))

    def minimumSize(self) -> QSize:
        """As narrow as the widest button (the others then go on lines of their own)."""
        items = self._visible()
        width = max((item.minimumSize().width() if item is self._lead_item
                     else item.sizeHint().width() for item in items), default=0)
        height = max((item.minimumSize().height() for item in items), default=0)
        return self._with_margins(QSize(width, height))

    def one_line_width(self) -> int:
        """The width the buttons (not the lead) take on one line, spacing included."""
        buttons = self._buttons()
        return sum(item.sizeHint().width() for item in buttons) + \
            self.spacing() * max(0, len(buttons) - 1)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, apply=True)

    # -- placing ------------------------------------------------------------------------------

    def _visible(self) -> list[QLayoutItem]:
        return [item for item in self._items if not item.isEmpty()]

    def _buttons(self) -> list[QLayoutItem]:
        return [item for item in self._visible() if item is not self._lead_item]

    def _lead(self) -> QLayoutItem | None:
        lead = self._lead_item
        return lead if lead is not None and not lead.isEmpty() else None

    @staticmethod
    def _lead_width(item: QLayoutItem) -> int:
        """The lead's text on one line (not a wrapped label's squarish size hint)."""
        label = item.widget() if isinstance(item, QWidgetItem) else None
        if not isinstance(label, QLabel):
            return item.sizeHint().width()
        margins = label.contentsMargins()
        text = label.fontMetrics().horizontalAdvance(label.text())
        # (+1: a label wraps when its width is a fraction of a pixel short)
        return max(label.minimumWidth(),
                   text + margins.left() + margins.right() + 2 * label.margin() + 1)

    def _with_margins(self, size: QSize) -> QSize:
        margins = self.contentsMargins()
        return QSize(size.width() + margins.left() + margins.right(),
                     size.height() + margins.top() + margins.bottom())

    def _arrange(self, outer: QRect, *, apply: bool) -> int:
        """Place the items in ``outer`` (if ``apply``); the height they take."""
        margins = self.contentsMargins()
        rect = outer.adjusted(margins.left(), margins.top(), -margins.right(), 0)
        width, gap = max(1, rect.width()), self.spacing()
        buttons, lead = self._buttons(), self._lead()
        y = rect.y()
        if lead is not None:
            natural = self._lead_width(lead)
            beside = self.one_line_width() + gap if buttons else 0
            if natural + beside <= width:  # all on one line: the lead takes what is left
                lead_width = width - beside
                line = max([self._height(lead, lead_width)]
                           + [item.sizeHint().height() for item in buttons])
                if apply:
                    self._place(lead, rect.x(), y, lead_width, line)
                    self._place_line(buttons, rect.x() + lead_width + gap, y, beside - gap,
                                     line)
                return y + line - outer.y() + margins.bottom()
            height = self._height(lead, width)
            if apply:
                lead.setGeometry(self._visual(QRect(rect.x(), y, width, height)))
            y += height + (gap if buttons else 0)
        line_items: list[QLayoutItem] = []
        used = 0
        right = [item for item in buttons if self._is_right(item)]
        right_width = sum(min(item.sizeHint().width(), width) + gap for item in right) - gap
        for item in buttons:
            item_width = min(item.sizeHint().width(), width)
            # (the right-hand group goes to the next line together: Compare beside Send)
            needed = right_width if right and item is right[0] else item_width
            if line_items and used + gap + min(needed, width) > width:
                y += self._finish_line(line_items, rect.x(), y, width, apply) + gap
                line_items, used = [], 0
            used += (gap if line_items else 0) + item_width
            line_items.append(item)
        if line_items:
            y += self._finish_line(line_items, rect.x(), y, width, apply)
        return y - outer.y() + margins.bottom()

    @staticmethod
    def _height(item: QLayoutItem, width: int) -> int:
        height = item.heightForWidth(width) if item.hasHeightForWidth() else -1
        return height if height > 0 else item.sizeHint().height()

    def _finish_line(self, items: list[QLayoutItem], x: int, y: int, width: int,
                     apply: bool) -> int:
        line = max(item.sizeHint().height() for item in items)
        if apply:
            self._place_line(items, x, y, width, line)
        return line

    def _place_line(self, items: list[QLayoutItem], x: int, y: int, width: int,
                    line: int) -> None:
        """One line of buttons from ``x``, ``width`` wide: the left group from the
        left, the right group against the right end."""
        gap = self.spacing()
        right = [item for item in items if self._is_right(item)]
        left_x = x
        for item in items:
            if item in right:
                continue
            item_width = min(item.sizeHint().width(), width)
            self._place(item, left_x, y, item_width, line)
            left_x += item_width + gap
        right_x = x + width
        for item in reversed(right):
            item_width = min(item.sizeHint().width(), width)
            right_x -= item_width
            self._place(item, right_x, y, item_width, line)
            right_x -= gap

    def _is_right(self, item: QLayoutItem) -> bool:
        return 0 <= self._right_from <= self._items.index(item)

    def _place(self, item: QLayoutItem, x: int, y: int, width: int, line: int) -> None:
        # (a label takes the line's height, its text centred; a button its own height)
        height = line if item.hasHeightForWidth() else min(line, item.sizeHint().height())
        item.setGeometry(self._visual(QRect(x, y + (line - height) // 2, width, height)))

    def _visual(self, rect: QRect) -> QRect:
        """``rect`` mirrored in a right-to-left interface: the first button at the right."""
        parent = self.parentWidget()
        if parent is None or parent.layoutDirection() == Qt.LayoutDirection.LeftToRight:
            return rect
        return QStyle.visualRect(parent.layoutDirection(), self.geometry(), rect)
