"""One window per data folder: a second start asks the first window to come forward.

The first instance (the one holding the data folder's lock) listens on a local
socket named after the folder; a later start connects, sends ``activate`` and exits.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtNetwork import QLocalServer, QLocalSocket

log = logging.getLogger(__name__)

ACTIVATE = b"activate\n"


def server_name(data_root: Path) -> str:
    digest = hashlib.sha256(str(data_root.resolve()).encode()).hexdigest()[:16]
    return f"assista-{digest}"


class InstanceServer(QObject):
    """Listens for later starts; calls ``on_activate`` when one asks."""

    def __init__(self, data_root: Path, on_activate: Callable[[], None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._on_activate = on_activate
        self.server = QLocalServer(self)
        name = server_name(data_root)
        QLocalServer.removeServer(name)  # a stale socket from a crashed run
        if not self.server.listen(name):
            log.warning("cannot listen for other instances: %s", self.server.errorString())
        self.server.newConnection.connect(self._accept)

    def _accept(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            if socket is None:
                return
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(socket.deleteLater)

    def _read(self, socket: QLocalSocket) -> None:
        if bytes(socket.readAll().data()).startswith(ACTIVATE.strip()):
            self._on_activate()
        socket.disconnectFromServer()


def activate_running_instance(data_root: Path, timeout_ms: int = 1500) -> bool:
    """Ask the window already open on ``data_root`` to come forward."""
    socket = QLocalSocket()
    socket.connectToServer(server_name(data_root))
    if not socket.waitForConnected(timeout_ms):
        return False
    socket.write(ACTIVATE)
    socket.flush()
    socket.waitForBytesWritten(timeout_ms)
    socket.disconnectFromServer()
    return True
