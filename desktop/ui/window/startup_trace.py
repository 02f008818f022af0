"""An optional record of the window's start-up: when it showed, when it had loaded, and
the longest time the event loop was held in between (what a user feels as the window
not answering).

Off unless ``ASSISTA_STARTUP_TRACE`` names a file; then lines are appended to it::

    shown <unix time>
    loaded <unix time> longest_stall_ms <ms> at <step>
    cpu <ms> main_thread <ms>
    settled <unix time> longest_stall_ms <ms> at <step>
    gap <ms> <step>   (each gap over 25 ms until settled, named after its step)

``loaded``: the real window is built and a message sent now is answered; its stall is
the longest from ``shown`` until then; ``settled``: the same, half a second later (the
work started once the window is loaded: the model list, MCP servers, the first frame of
the real content); ``cpu``: the processor time the process (all its threads) and its main
thread had used when it had loaded: unlike the times, it hardly moves with what else
runs on the machine. A 1 ms timer beats while the trace runs; the longest time between two
beats is the stall, named after the loading step that ran in it (:meth:`step`). Used by
``tests/bench/bench_shipped_startup.py`` on the ``assista`` a user starts.

With ``ASSISTA_STALL_LOG`` naming a file, the timer keeps beating for as long as the app
runs and every stall longer than a frame (16.7 ms) is appended to it, as
``stall <unix time it ended> <ms> cpu <ms>`` (tests/bench/bench_shipped_scroll.py:
scrolling a long chat); ``cpu``: the processor time the main thread used in it (a
stall with little of it is the process waiting for a processor, not its own work).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

TRACE_VARIABLE = "ASSISTA_STARTUP_TRACE"
STALL_VARIABLE = "ASSISTA_STALL_LOG"
SETTLE_MS = 500
FRAME_S = 1 / 60
STEP_NOTED_S = 0.025  # until settled, every gap longer than this is written too


def cpu_times() -> tuple[float, float]:
    """Processor seconds used so far by the process and by the calling thread."""
    return time.process_time(), time.thread_time()


class StartupTrace(QObject):
    """Beats a 1 ms timer from :meth:`shown` until :meth:`settle` has passed."""

    def __init__(self, path: str, clock: Callable[[], float] = time.perf_counter,
                 wall: Callable[[], float] = time.time, stall_log: str = "",
                 cpu: Callable[[], tuple[float, float]] = cpu_times, *,
                 thread_cpu: Callable[[], float] = time.thread_time) -> None:
        super().__init__()
        self._cpu = cpu
        self._thread_cpu = thread_cpu
        self._last_cpu = 0.0
        self.path = path
        self.stall_log = stall_log  # (after settled: every stall over a frame, to this file)
        self._clock, self._wall = clock, wall
        self._last = 0.0
        self.longest = 0.0
        self.longest_at = ""
        self._step = "first frame"
        self.watching = False  # (settled, stalls logged)
        self._timer = QTimer(self)  # (precise from the first frame on: see shown())
        self._timer.setInterval(1)
        self._timer.timeout.connect(self._beat)

    def _write(self, line: str, path: str = "") -> None:
        try:
            with open(path or self.path, "a", encoding="utf-8") as out:
                out.write(line + "\n")
        except OSError:
            pass  # a trace that cannot be written must not stop the app

    def shown(self) -> None:
        """The window's first frame is on screen: the trace starts."""
        self._write(f"shown {self._wall():.6f}")
        from PySide6.QtCore import Qt  # (its enums take ~25 ms: not before the window)

        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._last = self._clock()
        self._last_cpu = self._thread_cpu()
        self._timer.start()

    def step(self, name: str) -> None:
        """``name`` runs next: a stall from now until the next beat is named after it."""
        self._beat()
        self._step = name

    def _beat(self) -> None:
        now = self._clock()
        gap = now - self._last
        if self._timer.isActive() and gap > self.longest:
            self.longest, self.longest_at = gap, self._step
        if self._timer.isActive() and not self.watching and gap > STEP_NOTED_S:
            self._write(f"gap {gap * 1000:.1f} {self._step}")  # (each long one, named)
        cpu = self._thread_cpu()
        if self.watching and gap > FRAME_S:
            self._write(f"stall {self._wall():.6f} {gap * 1000:.1f} cpu "
                        f"{(cpu - self._last_cpu) * 1000:.1f}", self.stall_log)
        self._last, self._last_cpu = now, cpu

    def _line(self, what: str) -> str:
        return (f"{what} {self._wall():.6f} longest_stall_ms {self.longest * 1000:.1f} "
                f"at {self.longest_at or '-'}")

    def loaded(self) -> None:
        """The window is loaded: a message sent now is answered."""
        self.step("after loaded")
        self._write(self._line("loaded"))
        process, main = self._cpu()
        self._write(f"cpu {process * 1000:.1f} main_thread {main * 1000:.1f}")
        QTimer.singleShot(SETTLE_MS, self._settled)

    def _settled(self) -> None:
        self._beat()
        self._write(self._line("settled"))
        if self.stall_log:
            self.watching = True  # the timer beats on: each stall over a frame is logged
        else:
            self._timer.stop()


def startup_trace() -> StartupTrace | None:
    """The trace the environment asks for (``ASSISTA_STARTUP_TRACE``, and
    ``ASSISTA_STALL_LOG`` for the stalls after start-up), else None."""
    path = os.environ.get(TRACE_VARIABLE, "")
    stalls = os.environ.get(STALL_VARIABLE, "")
    if not (path or stalls):
        return None
    return StartupTrace(path or os.devnull, stall_log=stalls)
