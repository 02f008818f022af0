"""Tab and Shift+Tab in the main window go through it in reading order, by region.

Qt's focus chain is the order widgets were made in: the chat's message widgets are
made (and destroyed) as the column scrolls, so their buttons came after the Tool
activity panel, and the chat list's Chats/Archived/Trash buttons came between the
message box and its Send button. :class:`TabOrder` orders the focusable widgets by the
region they are in (the top bar, the chat list, the messages, the composer, the Tool
activity panel, in that order) and the messages by where they are on screen; within a message or
another region Qt's own chain order stays (it is the order of the layout). As Qt
does, only the chosen button of an exclusive group (Chats/Archived/Trash) is a stop:
the arrow keys move between them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QWidget


def _tab_stop(widget: QWidget, window: QWidget) -> bool:
    return (bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus) and widget.isEnabled()
            and not widget.isWindow() and widget.window() is window
            and widget.isVisibleTo(window))


def _block(widget: QWidget, column: QWidget) -> QWidget:
    """The child of ``column`` (or of its viewport) that holds ``widget``."""
    viewport = column.viewport() if isinstance(column, QAbstractScrollArea) else column
    while (parent := widget.parentWidget()) is not None and parent not in (column, viewport):
        widget = parent
    return widget


class TabOrder:
    def __init__(self, window: QWidget, regions: Callable[[], Sequence[QWidget]],
                 by_position: Callable[[], QWidget]) -> None:
        """``regions()``: the containers in Tab order (a widget belongs to the first
        that holds it; widgets in none come last); ``by_position()``: the region whose
        widgets go in the order they are on screen (the messages)."""
        self.window = window
        self.regions = regions
        self.by_position = by_position

    def stops(self) -> list[QWidget]:
        """Every widget Tab stops at, in order."""
        window = self.window
        chain: list[QWidget] = []
        widget = window.nextInFocusChain()
        while widget is not None and widget is not window and len(chain) < 100_000:
            if _tab_stop(widget, window):
                chain.append(widget)
            widget = widget.nextInFocusChain()
        regions = list(self.regions())
        spatial = self.by_position()

        def key(item: tuple[int, QWidget]) -> tuple[int, int, int]:
            index, widget = item
            region = next((n for n, region in enumerate(regions)
                           if region is widget or region.isAncestorOf(widget)), len(regions))
            if widget is not spatial and spatial.isAncestorOf(widget):
                block = _block(widget, spatial)  # a message: by its place on screen
                return region, block.mapTo(spatial, QPoint(0, 0)).y(), index
            return region, -1, index

        return [widget for _index, widget in sorted(enumerate(chain), key=key)]

    def move(self, forward: bool) -> bool:
        """Focus the next (or previous) stop; False when the focus is not on one (a
        popup, an editor inside a list: Qt's own handling then)."""
        current = QApplication.focusWidget()
        # (Qt also moves the focus on when the focused widget is hidden or destroyed:
        # that is left to Qt, nothing is looked at in a half torn-down widget)
        if current is None or not _tab_stop(current, self.window):
            return False
        stops = self.stops()
        if current not in stops:
            return False
        step = 1 if forward else -1
        target = stops[(stops.index(current) + step) % len(stops)]
        target.setFocus(Qt.FocusReason.TabFocusReason if forward
                        else Qt.FocusReason.BacktabFocusReason)
        return True
