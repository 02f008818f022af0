"""Python's cyclic garbage collected on the GUI thread only.

Python runs its cyclic collector in whichever thread happens to allocate past a
threshold: a stream's reader thread, a knowledge index job, ``asyncio.to_thread``. A
Qt object caught in a cycle (a widget, a ``QTimer`` with no parent, a signal's
receiver) is then destroyed on that thread; Qt cannot stop its timers from there, the
timer stays registered, and the next event-loop pass delivers it to freed memory —
a segmentation fault in ``QTimerInfoList::activateTimers`` (seen in the test suite:
the providers and knowledge window tests in one process crashed every time).

So the window turns automatic collection off and collects here, on a timer of the GUI
thread, with the interpreter's own thresholds per generation (as pyqtgraph's
``GarbageCollector`` does): the same collections, only always on this thread.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

CHECK_MS = 250  # how often the allocation counts are looked at (a cheap call)


def collect_due(threshold: tuple[int, int, int]) -> int:
    """One step of what automatic collection would have done by now: the youngest
    generation when its count is over its threshold, the older ones likewise."""
    count0, count1, count2 = gc.get_count()
    found = 0
    if count0 > threshold[0]:
        generation = 0
        if count1 > threshold[1]:
            generation = 2 if count2 > threshold[2] else 1
        found = gc.collect(generation)
    return found


class MainThreadCollector(QObject):
    """Owns the collection while it lives (``stop`` gives it back to Python)."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = CHECK_MS) -> None:
        super().__init__(parent)
        thresholds = gc.get_threshold()
        self.threshold = (thresholds[0], thresholds[1], thresholds[2])
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.check)
        gc.disable()
        self.timer.start()

    def check(self) -> int:
        return collect_due(self.threshold)

    def stop(self) -> None:
        self.timer.stop()
        gc.enable()


__all__ = ["MainThreadCollector", "collect_due"]
