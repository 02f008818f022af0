"""An optional record of the window's start-up: when it showed, when it had loaded, and
the longest time the event loop was held in between (what a user feels as the window
not answering).

Off unless ``ASSISTA_STARTUP_TRACE`` names a file; then lines are appended to it::

    shown <unix time>
    loaded <unix time> longest_stall_ms <ms> at <step>
    settled <unix time> longest_stall_ms <ms> at <step>

``loaded``: the real window is built and a message sent now is answered; its stall is
the longest from ``shown`` until then; ``settled``: the same, half a second later (the
work started once the window is loaded: the model list, MCP servers, the first frame of
the real content). A 1 ms timer beats while the trace runs; the longest time between two
beats is the stall, named after the loading step that ran in it (:meth:`step`). Used by
``tests/bench/bench_shipped_startup.py`` on the ``assista`` a user starts.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer

TRACE_VARIABLE = "ASSISTA_STARTUP_TRACE"
SETTLE_MS = 500


class StartupTrace(QObject):
    """Beats a 1 ms timer from :meth:`shown` until :meth:`settle` has passed."""

    def __init__(self, path: str, clock: Callable[[], float] = time.perf_counter,
                 wall: Callable[[], float] = time.time) -> None:
        super().__init__()
        self.path = path
        self._clock, self._wall = clock, wall
        self._last = 0.0
        self.longest = 0.0
        self.longest_at = ""
        self._step = "first frame"
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(1)
        self._timer.timeout.connect(self._beat)

    def _write(self, line: str) -> None:
        try:
            with open(self.path, "a", encoding="utf-8") as out:
                out.write(line + "\n")
        except OSError:
            pass  # a trace that cannot be written must not stop the app

    def shown(self) -> None:
        """The window's first frame is on screen: the trace starts."""
        self._write(f"shown {self._wall():.6f}")
        self._last = self._clock()
        self._timer.start()

    def step(self, name: str) -> None:
        """``name`` runs next: a stall from now until the next beat is named after it."""
        self._beat()
        self._step = name

    def _beat(self) -> None:
        now = self._clock()
        if self._timer.isActive() and now - self._last > self.longest:
            self.longest, self.longest_at = now - self._last, self._step
        self._last = now

    def _line(self, what: str) -> str:
        return (f"{what} {self._wall():.6f} longest_stall_ms {self.longest * 1000:.1f} "
                f"at {self.longest_at or '-'}")

    def loaded(self) -> None:
        """The window is loaded: a message sent now is answered."""
        self.step("after loaded")
        self._write(self._line("loaded"))
        QTimer.singleShot(SETTLE_MS, self._settled)

    def _settled(self) -> None:
        self._beat()
        self._timer.stop()
        self._write(self._line("settled"))


def startup_trace() -> StartupTrace | None:
    """The trace the environment asks for (``ASSISTA_STARTUP_TRACE``), else None."""
    path = os.environ.get(TRACE_VARIABLE, "")
    return StartupTrace(path) if path else None
