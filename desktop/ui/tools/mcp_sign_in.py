"""The sign-in of a remote MCP server in Settings → MCP servers: its line (whether the
app is signed in, "Sign in" opening the system browser while the app waits for it to
come back to its loopback address, "Sign out" forgetting the tokens), and the fields of
a sign-in app registered by hand (Client ID, secret, callback port) for servers whose
sign-in does not let apps register themselves."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from desktop.chat.secret_text import SECRET_PLACEHOLDER
from desktop.ui.plain_text import plain_label

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


class McpClientFields(QWidget):
    """Client ID, secret and callback port of a sign-in app registered by hand with the
    server's sign-in; left empty, the app registers itself (most servers)."""

    edited = Signal(str, object)  # the server setting's key, its new value

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.client_id_edit = QLineEdit()
        self.client_id_edit.setPlaceholderText(
            self.tr("only if its sign-in asks for an app registered by hand"))
        self.client_secret_edit = QLineEdit()
        self.client_secret_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.port_spin = QSpinBox()
        self.port_spin.setRange(0, 65535)
        self.port_spin.setSpecialValueText(self.tr("any free port"))
        self.port_spin.setToolTip(self.tr("The port of the redirect URL registered with the "
                                          "app, if its sign-in wants an exact one"))
        self.redirect_label = plain_label()
        self.redirect_label.setWordWrap(True)
        self.redirect_label.setObjectName("emptyHint")
        form.addRow(self.tr("Client &ID"), self.client_id_edit)
        form.addRow(self.tr("Client s&ecret"), self.client_secret_edit)
        form.addRow(self.tr("Callback &port"), self.port_spin)
        form.addRow("", self.redirect_label)
        self.client_id_edit.textEdited.connect(
            lambda t: self.edited.emit("oauth_client_id", t.strip()))
        self.client_secret_edit.textEdited.connect(
            lambda t: self.edited.emit("oauth_client_secret", t))
        self.port_spin.valueChanged.connect(self._port_changed)

    def load(self, server: dict[str, Any]) -> None:
        for widget in (self.client_id_edit, self.client_secret_edit, self.port_spin):
            widget.blockSignals(True)
        self.client_id_edit.setText(str(server.get("oauth_client_id") or ""))
        secret = str(server.get("oauth_client_secret") or "")
        stored = secret == SECRET_PLACEHOLDER  # left as it is unless something is typed
        self.client_secret_edit.setText("" if stored else secret)
        self.client_secret_edit.setPlaceholderText(
            self.tr("stored in the keyring; type to replace it") if stored
            else self.tr("optional; kept in the keyring"))
        self.port_spin.setValue(int(server.get("oauth_redirect_port") or 0))
        for widget in (self.client_id_edit, self.client_secret_edit, self.port_spin):
            widget.blockSignals(False)
        self._show_redirect()

    def _port_changed(self, port: int) -> None:
        self._show_redirect()
        self.edited.emit("oauth_redirect_port", port)

    def _show_redirect(self) -> None:
        port = self.port_spin.value()
        address = f"http://127.0.0.1:{port or '<port>'}/callback"
        self.redirect_label.setText(self.tr("Redirect URL to register:\n{address}").format(
            address=address))
