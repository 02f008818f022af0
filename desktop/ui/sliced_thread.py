"""A Python thread that runs only in short slices handed out by the event loop.

Why not a plain thread: Python code on a second thread competes with the event loop for
the GIL. Every time the loop's thread lets go of it (many Qt calls do), it may wait up
to the interpreter's switch interval (5 ms) to get it back, so a thread loading syntax
highlighters behind the window turned a 13 ms scroll step into 50-110 ms (measured in
the chat-history benchmark, now tests/bench/bench_shipped_scroll.py). Here the worker
looks at the clock at each function call it makes and, once its slice is over, waits
for the next one holding nothing. The
loop hands out one slice of ``slice_ms`` every ``interval_ms`` from a timer, so while
the worker is busy the window waits at most one slice for the GIL.

The worker never pauses inside an import, nor while the interpreter's global import
lock is held: paused there it would keep a lock that the event loop's thread may need
to import anything, and then wait for a slice only that thread can hand out (letting
imports run through also kept the first paint of a chat from waiting for a highlighter
the worker was importing). Anything else it might hold while paused is let go after
``max_pause_ms`` at the latest, when it goes on without a slice.
"""

from __future__ import annotations

import _imp
import logging
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer

log = logging.getLogger(__name__)

_IMPORT_MACHINERY = ("<frozen importlib._bootstrap>", "<frozen importlib._bootstrap_external>")


def _in_import(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_filename in _IMPORT_MACHINERY:
            return True
        frame = frame.f_back
    return False


def _import_locked() -> bool:
    """Whether a thread holds the interpreter's global import lock (taken briefly around
    each module lock's lookup: no thread records waiting for it)."""
    return bool(_imp.lock_held())


class SlicedThread(QObject):
    """Runs ``work`` on a daemon thread, ``slice_ms`` at a time, until it returns."""

    def __init__(self, work: Callable[[], object], *, name: str, slice_ms: float = 2.0,
                 interval_ms: int = 10, max_pause_ms: float = 200.0,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._work = work
        self._name = name
        self._slice = slice_ms / 1000
        self._max_pause = max_pause_ms / 1000
        self._deadline = 0.0
        self._slices_given = threading.Condition()
        self._finished = threading.Event()
        self.paused = threading.Event()  # set only while the worker waits for a slice
        self.slices = 0  # slices handed out so far
        self.timeouts = 0  # pauses that ended with no slice after max_pause_ms
        self.pauses = 0
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.CoarseTimer)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._hand_out_slice)

    def start(self) -> None:
        self._hand_out_slice()
        self._timer.start()
        threading.Thread(target=self._run, name=self._name, daemon=True).start()

    def is_finished(self) -> bool:
        return self._finished.is_set()

    def _hand_out_slice(self) -> None:
        if self._finished.is_set():
            self._timer.stop()
            return
        with self._slices_given:
            self._deadline = time.perf_counter() + self._slice
            self.slices += 1
            self.paused.clear()
            self._slices_given.notify()

    def _run(self) -> None:
        sys.setprofile(self._checkpoint)  # (this thread only)
        try:
            self._work()
        except Exception:  # a failed warm-up costs speed later, never the app
            log.exception("background work %s failed", self._name)
        finally:
            sys.setprofile(None)
            self._finished.set()

    def _checkpoint(self, frame: FrameType, event: str, _arg: Any) -> None:
        # (Python calls only: checking at every call of a builtin too cost the worker
        # twice its own time)
        if event != "call" or time.perf_counter() < self._deadline:
            return
        if _import_locked() or _in_import(frame):
            return
        with self._slices_given:
            if time.perf_counter() < self._deadline:
                return  # a slice came meanwhile
            given = self.slices
            self.pauses += 1
            self.paused.set()
            if not self._slices_given.wait_for(lambda: self.slices != given,
                                                 self._max_pause):
                self.timeouts += 1
                self._deadline = time.perf_counter() + self._slice  # none came: go on
            self.paused.clear()
