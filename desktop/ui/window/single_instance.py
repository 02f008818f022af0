"""One window per data folder: a second start asks the first window to come forward.

The first instance (the one holding the data folder's lock) watches the folder; a
later start drops an ``activate.request`` file there and exits once the first
instance has taken it (it deletes the file). QtCore only: no sockets, nothing that
needs QtNetwork in the bundle.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer

log = logging.getLogger(__name__)

REQUEST_FILE = "activate.request"


class InstanceServer(QObject):
    """Watches ``data_root`` for activation requests; calls ``on_activate``."""

    def __init__(self, data_root: Path, on_activate: Callable[[], None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._request = data_root / REQUEST_FILE
        self._on_activate = on_activate
        with contextlib.suppress(OSError):
            self._request.unlink()  # left over from a crash
        self.watcher = QFileSystemWatcher([str(data_root)], self)
        self.watcher.directoryChanged.connect(self._check)
        # A slow poll as well: some file systems (network mounts) do not notify.
        self._poll = QTimer(self)
        self._poll.setInterval(2000)
        self._poll.timeout.connect(self._check)
        self._poll.start()

    def _check(self, *_args: object) -> None:
        if not self._request.exists():
            return
        with contextlib.suppress(OSError):
            self._request.unlink()
        self._on_activate()

    def close(self) -> None:
        self._poll.stop()
        self.watcher.removePaths(self.watcher.directories())


def activate_running_instance(data_root: Path, timeout_s: float = 3.0) -> bool:
    """Ask the window already open on ``data_root`` to come forward; True when it
    took the request within ``timeout_s``."""
    request = data_root / REQUEST_FILE
    try:
        request.write_text(f"{os.getpid()}\n", encoding="ascii")
    except OSError as exc:
        log.warning("cannot ask the running window to come forward: %s", exc)
        return False
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not request.exists():
            return True
        time.sleep(0.05)  # a short CLI-side wait before exiting; not in the event loop
    with contextlib.suppress(OSError):
        request.unlink()
    return False
