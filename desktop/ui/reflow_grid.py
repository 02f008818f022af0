"""A grid of equal cells whose number of columns follows the width it is given.

A :class:`~PySide6.QtWidgets.QGridLayout` with a fixed number of columns holds its
parent as wide as its widest row: in a narrow dialog that means a horizontal scroll
bar and buttons cut at the edge. :class:`ReflowGrid` puts as many columns as fit
(each at least as wide as the widest item's size hint, at most ``max_columns``) and
the rest on more rows, down to a single column; the items stay in reading order, row
by row, and the layout says how tall that makes it (``heightForWidth``). In a right to
left interface the first item is at the right.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QStyle, QWidget


class ReflowGrid(QLayout):
    def __init__(self, parent: QWidget | None = None, *, max_columns: int = 3,
                 spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self.max_columns = max(1, max_columns)
        self.setSpacing(spacing)
        self.setContentsMargins(0, 0, 0, 0)

    # -- QLayout's item list ------------------------------------------------------------------

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)
        self.invalidate()

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        if not 0 <= index < len(self._items):
            return None
        item = self._items.pop(index)
        self.invalidate()
        return item

    # -- sizes --------------------------------------------------------------------------------

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation.Horizontal

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), apply=False)

    def columns_for(self, width: int) -> int:
        """How many columns fit in ``width`` (the margins taken off already)."""
        cell, gap = self._cell_width(), self.spacing()
        if cell <= 0:
            return 1
        return max(1, min(self.max_columns, len(self._visible()) or 1,
                          (width + gap) // (cell + gap)))

    def sizeHint(self) -> QSize:
        """Two columns when there are two items or more (the grid's usual look)."""
        columns = min(2, self.max_columns, max(1, len(self._visible())))
        width = columns * self._cell_width() + (columns - 1) * self.spacing()
        return self._with_margins(QSize(width, self._arrange_height(columns)))

    def minimumSize(self) -> QSize:
        """As narrow as the widest item: then every item has a row of its own."""
        return self._with_margins(QSize(self._cell_width(), self._row_height()))

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, apply=True)

    # -- placing ------------------------------------------------------------------------------

    def _visible(self) -> list[QLayoutItem]:
        return [item for item in self._items if not item.isEmpty()]

    def _cell_width(self) -> int:
        return max((item.sizeHint().width() for item in self._visible()), default=0)

    def _row_height(self) -> int:
        return max((item.sizeHint().height() for item in self._visible()), default=0)

    def _arrange_height(self, columns: int) -> int:
        rows = -(-len(self._visible()) // columns)
        return rows * self._row_height() + max(0, rows - 1) * self.spacing()

    def _with_margins(self, size: QSize) -> QSize:
        margins = self.contentsMargins()
        return QSize(size.width() + margins.left() + margins.right(),
                     size.height() + margins.top() + margins.bottom())

    def _arrange(self, outer: QRect, *, apply: bool) -> int:
        """Place the items in ``outer`` (if ``apply``); the height they take."""
        margins = self.contentsMargins()
        rect = outer.adjusted(margins.left(), margins.top(), -margins.right(), 0)
        columns = self.columns_for(rect.width())
        gap = self.spacing()
        if apply:
            cell = max(1, (rect.width() - (columns - 1) * gap) // columns)
            line = self._row_height()
            parent = self.parentWidget()
            direction = (parent.layoutDirection() if parent is not None
                         else Qt.LayoutDirection.LeftToRight)
            for index, item in enumerate(self._visible()):
                row, column = divmod(index, columns)
                place = QRect(rect.x() + column * (cell + gap), rect.y() + row * (line + gap),
                              cell, line)
                item.setGeometry(QStyle.visualRect(direction, rect, place))
        return self._arrange_height(columns) + margins.top() + margins.bottom()
