"""The sign-in line of a remote MCP server in Settings → MCP servers: whether the
app is signed in, "Sign in" (opens the system browser; the app waits for it to
come back to its loopback address) and "Sign out" (forgets the tokens)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

if TYPE_CHECKING:
    from desktop.tools.mcp.connection import McpConnection

log = logging.getLogger(__name__)


async def open_in_browser(url: str) -> None:
    """The window's way to send a person to a sign-in page: the system browser."""
    if not QDesktopServices.openUrl(QUrl(url)):
        raise RuntimeError("the system browser could not be opened")


class McpSignInRow(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.connection: McpConnection | None = None
        self._busy: asyncio.Future[None] | None = None
        self._signing_out = False
        self._stopping: asyncio.Future[None] | None = None
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setAccessibleName(self.tr("Sign-in status"))
        self.sign_in_button = QPushButton(self.tr("Sign in"))
        self.sign_in_button.setToolTip(self.tr("Sign in to this server in your browser"))
        self.sign_in_button.clicked.connect(self.sign_in)
        self.sign_out_button = QPushButton(self.tr("Sign out"))
        self.sign_out_button.setToolTip(self.tr("Forget this server's sign-in"))
        self.sign_out_button.clicked.connect(self.sign_out)
        self.cancel_button = QPushButton(self.tr("Cancel sign-in"))
        self.cancel_button.setToolTip(self.tr("Stop waiting for the browser"))
        self.cancel_button.clicked.connect(self.cancel)
        row.addWidget(self.label, 1)
        for button in (self.sign_in_button, self.sign_out_button, self.cancel_button):
            row.addWidget(button)
        self.hide()

    @property
    def busy(self) -> bool:
        return self._busy is not None and not self._busy.done()

    def show_for(self, connection: McpConnection | None) -> None:
        self.connection = connection
        if connection is None or connection.sign_in is None:
            self.hide()
            return
        self.show()
        signed_in = connection.signed_in()
        if self.busy and self._signing_out:
            text = self.tr("Signing out…")
        elif self.busy:
            text = self.tr("Waiting for you to finish signing in in the browser…")
        elif connection.needs_sign_in:
            text = self.tr("This server needs you to sign in.")
        elif signed_in:
            text = self.tr("Signed in.")
        else:
            text = self.tr("No sign-in used.")
        self.label.setText(text)
        # Only a server that asked gets "Sign in": most remote servers need none.
        self.sign_in_button.setVisible(not self.busy and connection.needs_sign_in)
        self.sign_out_button.setVisible(signed_in and not self.busy)
        self.cancel_button.setVisible(self.busy and not self._signing_out)

    def sign_in(self) -> None:
        connection = self.connection
        if connection is None or self.busy:
            return
        self._busy = asyncio.ensure_future(self._run(connection, sign_out=False))
        self.show_for(connection)

    def sign_out(self) -> None:
        connection = self.connection
        if connection is None or self.busy:
            return
        self._signing_out = True
        self._busy = asyncio.ensure_future(self._run(connection, sign_out=True))
        self.show_for(connection)

    def cancel(self) -> None:
        """Stop waiting for the browser: the connection stops (Sign in starts it again)."""
        if self.connection is not None and self.busy:
            self._stopping = asyncio.ensure_future(self.connection.stop())

    async def _run(self, connection: McpConnection, *, sign_out: bool) -> None:
        try:
            if sign_out:
                await connection.sign_out()
            elif not await connection.sign_in_now() and connection.last_error:
                log.warning("MCP server %s: sign-in failed: %s", connection.name,
                            connection.last_error)
        except Exception:
            log.exception("MCP server %s: sign-in failed", connection.name)
        finally:
            self._busy = None
            self._signing_out = False
            if self.connection is connection:
                self.show_for(connection)
