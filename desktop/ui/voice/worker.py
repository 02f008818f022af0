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
    """``run(call)``: ``done(result)`` or ``failed(code, detail)`` on the UI thread
    (signals cross threads queued). A newer run makes an older one's result ignored."""

    done = Signal(object)
    failed = Signal(str, str)  # error code, detail

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._run = 0
        self._relay_done.connect(self._done_if_current)
        self._relay_failed.connect(self._failed_if_current)

    _relay_done = Signal(int, object)
    _relay_failed = Signal(int, str, str)

    def run(self, call: Callable[[], Any]) -> None:
        self._run += 1
        number = self._run

        def work() -> None:
            try:
                result = call()
            except Exception as exc:  # reported, never raised on a worker thread
                code = str(getattr(exc, "code", "") or "unexpected")
                if code == "unexpected":
                    log.exception("voice call failed")
                self._relay_failed.emit(number, code, str(exc))
                return
            self._relay_done.emit(number, result)

        threading.Thread(target=work, name="voice-worker", daemon=True).start()

    def cancel(self) -> None:
        self._run += 1

    def _done_if_current(self, number: int, result: object) -> None:
        if number == self._run:
            self.done.emit(result)

    def _failed_if_current(self, number: int, code: str, detail: str) -> None:
        if number == self._run:
            self.failed.emit(code, detail)
