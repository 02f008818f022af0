"""Running one blocking call (an HTTP request, a speech engine) off the UI thread and
getting its result, or its error, back on it as a signal."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)


class Worker(QObject):
    """``run(call)``: ``done(result)`` or ``failed(exception)`` on the UI thread
    (signals cross threads queued). A newer run makes an older one's result ignored."""

    done = Signal(object)
    failed = Signal(object)  # the exception

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._run = 0
        self._relay_done.connect(self._done_if_current)
        self._relay_failed.connect(self._failed_if_current)

    _relay_done = Signal(int, object)
    _relay_failed = Signal(int, object)

    def run(self, call: Callable[[], Any]) -> None:
        self._run += 1
        number = self._run

        def work() -> None:
            try:
                result = call()
            except Exception as exc:  # reported, never raised on a worker thread
                if not getattr(exc, "code", ""):
                    log.exception("voice call failed")
                self._relay_failed.emit(number, exc)
                return
            self._relay_done.emit(number, result)

        threading.Thread(target=work, name="voice-worker", daemon=True).start()

    def cancel(self) -> None:
        self._run += 1

    def _done_if_current(self, number: int, result: object) -> None:
        if number == self._run:
            self.done.emit(result)

    def _failed_if_current(self, number: int, exc: object) -> None:
        if number == self._run:
            self.failed.emit(exc)
