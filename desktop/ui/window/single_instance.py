"""One window per data folder: a second start asks the first window to come forward.

The first instance (the one holding the data folder's lock) watches the folder; a
later start drops an ``activate.request`` file there and exits once the first
instance has taken it (it deletes the file). QtCore only: no sockets, nothing that
needs QtNetwork in the bundle.

The file holds the asking process's id on its first line and, on the second, what
it asks for: ``activate`` (the window comes forward; also when the line is missing,
as older versions wrote it) or ``quick [none|selection|clipboard]`` (``assista
quick``: the quick-ask window opens, maybe with the selected text).
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
ACTIVATE = "activate"
MAX_REQUEST_BYTES = 4096  # a request is two short lines; anything longer is not ours


class InstanceServer(QObject):
    """Watches ``data_root`` for requests; calls ``on_activate`` for ``activate`` and
    ``on_command`` (when given) with any other request's line."""

    def __init__(self, data_root: Path, on_activate: Callable[[], None],
                 parent: QObject | None = None, *,
                 on_command: Callable[[str], None] | None = None) -> None:
        super().__init__(parent)
        self._request = data_root / REQUEST_FILE
        self._on_activate = on_activate
        self._on_command = on_command
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
        command = read_command(self._request)
        with contextlib.suppress(OSError):
            self._request.unlink()
        if command != ACTIVATE and self._on_command is not None:
            log.info("request from another start: %s", command)
            self._on_command(command)
        else:
            self._on_activate()

    def close(self) -> None:
        self._poll.stop()
        self.watcher.removePaths(self.watcher.directories())


def read_command(request: Path) -> str:
    """The request's second line (``activate`` when there is none or it is unreadable)."""
    try:
        with request.open("rb") as file:
            data = file.read(MAX_REQUEST_BYTES)
    except OSError:
        return ACTIVATE
    lines = data.decode("utf-8", "replace").splitlines()
    command = " ".join(lines[1].split()) if len(lines) > 1 else ""
    return command or ACTIVATE


def activate_running_instance(data_root: Path, timeout_s: float = 3.0,
                              command: str = ACTIVATE) -> bool:
    """Ask the window already open on ``data_root`` to come forward (or to do
    ``command``); True when it took the request within ``timeout_s``."""
    request = data_root / REQUEST_FILE
    staged = data_root / f"{REQUEST_FILE}.{os.getpid()}"
    try:  # whole or not at all: the first instance may look at any moment
        staged.write_text(f"{os.getpid()}\n{command}\n", encoding="ascii")
        os.replace(staged, request)
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
