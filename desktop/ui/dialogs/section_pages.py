"""A dialog's sections as a list at the side, the chosen one's page beside it.

Tabs in a row hide what does not fit behind scroll arrows (Preferences has eight
sections); a side list shows every section at once, each with an icon and its name,
as desktop preferences windows do. The list is reached with Tab and moved with the
arrow keys, Home and End; the page beside it follows. Each page scrolls on its own
when the screen is too small for it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QScrollArea,
    QStackedWidget,
    QWidget,
)

from desktop.ui import icons
from desktop.ui.scrolling import scrolling


class SectionPages(QWidget):
    currentChanged = Signal(int)

    def __init__(self, accessible_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.list = QListWidget()
        self.list.setObjectName("sectionList")
        self.list.setAccessibleName(accessible_name)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setUniformItemSizes(True)
        self.stack = QStackedWidget()
        self.list.currentRowChanged.connect(self._row_changed)
        layout.addWidget(self.list)
        layout.addWidget(self.stack, 1)
        self._pages: list[QWidget] = []

    def add_page(self, page: QWidget, title: str, icon_name: str) -> None:
        item = QListWidgetItem(icons.icon(icon_name), title)
        item.setToolTip(title)
        self.list.addItem(item)
        self.stack.addWidget(scrolling(page))
        self._pages.append(page)
        if self.list.currentRow() < 0:
            self.list.setCurrentRow(0)
        self._fit_list()

    # -- like a QTabWidget's -------------------------------------------------------------

    def count(self) -> int:
        return len(self._pages)

    def widget(self, index: int) -> QWidget | None:
        return self._pages[index] if 0 <= index < len(self._pages) else None

    def title(self, index: int) -> str:
        item = self.list.item(index)
        return item.text() if item is not None else ""

    def currentIndex(self) -> int:
        return self.list.currentRow()

    def currentWidget(self) -> QWidget | None:
        return self.widget(self.currentIndex())

    def setCurrentIndex(self, index: int) -> None:
        self.list.setCurrentRow(index)

    def setCurrentWidget(self, page: QWidget) -> None:
        self.setCurrentIndex(self._pages.index(page))

    # -- inside --------------------------------------------------------------------------

    def _row_changed(self, row: int) -> None:
        if row < 0:
            return
        self.stack.setCurrentIndex(row)
        area = self.stack.currentWidget()
        if isinstance(area, QScrollArea):
            area.ensureVisible(0, 0)
        self.currentChanged.emit(row)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit_list()  # a zoom or another theme: other text widths

    def _fit_list(self) -> None:
        """As wide as the longest section name with its icon: none is cut."""
        self.list.setIconSize(QSize(icons.icon_px(), icons.icon_px()))
        frame = 2 * self.list.frameWidth()
        widest = self.list.sizeHintForColumn(0) + frame + 8
        self.list.setFixedWidth(max(widest, 120))
