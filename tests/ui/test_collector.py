"""The window's cyclic garbage is collected on the GUI thread, never on a worker thread
(where destroying a Qt object left its timers firing on freed memory)."""

from __future__ import annotations

import gc
import threading
from typing import Any, ClassVar

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication

from desktop.ui.collector import MainThreadCollector


class Cycle:
    """Something held only by a reference cycle (in the app: a widget, a timer, a
    signal's receiver), which says on which thread it was destroyed."""

    deleted_on: ClassVar[list[str]] = []

    def __init__(self) -> None:
        self.me = self
        self.junk = [[] for _ in range(50)]  # (allocations: counts toward the thresholds)

    def __del__(self) -> None:
        Cycle.deleted_on.append(threading.current_thread().name)


def test_cycles_dropped_by_a_worker_thread_are_collected_on_the_gui_thread(
        qapp: QApplication, qtbot: Any) -> None:
    was_enabled = gc.isenabled()
    gc.enable()  # (the test run collects between tests; here the collector takes over)
    collector = MainThreadCollector(interval_ms=10)
    try:
        assert not gc.isenabled()
        Cycle.deleted_on.clear()
        made = threading.Event()

        def worker() -> None:  # a reader thread making and dropping cycles as it goes
            for _ in range(400):
                Cycle()
            made.set()

        thread = threading.Thread(target=worker, name="worker")
        thread.start()
        thread.join()
        assert made.is_set() and Cycle.deleted_on == []  # nothing collected over there
        qtbot.waitUntil(lambda: len(Cycle.deleted_on) >= 300, timeout=10_000)
        assert set(Cycle.deleted_on) == {threading.main_thread().name}
    finally:
        collector.stop()
        assert gc.isenabled()
        if not was_enabled:
            gc.disable()
    gc.collect()


def test_the_collector_belongs_to_the_object_it_is_given(qapp: QApplication) -> None:
    owner = QObject()
    collector = MainThreadCollector(owner)
    try:
        assert collector.parent() is owner and collector.timer.isActive()
    finally:
        collector.stop()
        gc.disable()  # (the test run's own setting: collected between tests)
