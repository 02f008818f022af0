"""The heights and tops of the chat column's blocks, kept at the cost of what changed.

A block without a widget has an estimated height (:func:`estimate_height`), one with a
widget its measured height; the tops are their running sum. Both used to be redone for
every block of the chat on every relayout, so on every wheel notch and idle step (~1 ms
at 2,000 messages): now the estimates are made again only when the width or the list
of blocks changed, else only for the blocks forgotten or released unmeasured, and the
tops are summed again only when a height changed.
"""

from __future__ import annotations

from collections.abc import Sequence

from desktop.ui.chat.chat_items import ChatItem, Metrics, estimate_height, prefix_tops


class ColumnHeights:
    def __init__(self, top: int, spacing: int) -> None:
        self._top, self._spacing = top, spacing
        self.tops: list[int] = [top]  # each block's top; the last entry: the content's end
        self._dirty = False  # a height changed since the tops were summed
        self._estimated: tuple[int, int, int] = (-1, 0, 0)  # width, id and length of list
        self._stale: set[int] = set()  # blocks to estimate again

    def forget(self, index: int) -> None:
        """Block ``index`` is estimated again (if it has no widget by then)."""
        self._stale.add(index)

    def released(self, index: int, item: ChatItem) -> None:
        """Block ``index`` lost its widget: its height stays if measured at this width."""
        if item.measured_width != self._estimated[0]:
            self._stale.add(index)

    def changed(self) -> None:
        """A block's height changed (measured)."""
        self._dirty = True

    def invalidate(self) -> None:
        """Everything is estimated again (a theme or zoom change)."""
        self._estimated = (-1, 0, 0)

    def estimate(self, items: Sequence[ChatItem], width: int, metrics: Metrics) -> None:
        """Estimate the blocks without a widget that are not measured at ``width``."""
        seen = (width, id(items), len(items))
        if seen != self._estimated:
            self._estimated = seen
            self._stale.clear()
            self._dirty = True
            candidates: range | list[int] = range(len(items))
        elif self._stale:
            candidates = sorted(i for i in self._stale if i < len(items))
            self._stale.clear()
        else:
            return
        estimated = -2 - width  # (the mark of "estimated for this width")
        for index in candidates:
            item = items[index]
            if item.widget is None and item.measured_width not in (width, estimated):
                item.height = estimate_height(item, width, metrics)
                item.measured_width = estimated
                self._dirty = True

    def sum(self, items: Sequence[ChatItem]) -> None:
        """Sum the tops again if a height or the list of blocks changed."""
        if self._dirty or len(self.tops) != len(items) + 1:
            self.tops = prefix_tops([i.height for i in items], self._top, self._spacing)
            self._dirty = False
