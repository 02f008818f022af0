"""The left side of Settings → MCP servers: the servers with their live status (one
line each, all of it in the tooltip), and the Add, Browse, Import and Remove buttons.
It shows the dialog's working list; the dialog acts on its signals."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.tools.mcp.config import McpServerConfig
from desktop.ui.plain_text import plain_tooltip
from desktop.ui.tools.mcp_form import TRANSPORTS

if TYPE_CHECKING:
    from desktop.tools.mcp.connection import McpConnection

STATE_MARK = {"running": "●", "starting": "◌", "restarting": "◌", "failed": "✗",
              "stopped": "○", "disabled": "○", "new": "+", "invalid": "⚠"}


def validation_error(server: dict[str, Any]) -> str | None:
    try:
        McpServerConfig.model_validate(server)
    except ValidationError as exc:
        first = exc.errors()[0]
        return str(first.get("msg", "invalid settings")).removeprefix("Value error, ")
    return None


def normalized(server: dict[str, Any]) -> dict[str, Any]:
    try:
        return McpServerConfig.model_validate(server).model_dump(mode="json")
    except ValidationError:
        return server


class McpServerList(QWidget):
    """(Its texts keep the dialog's translation context: they were written there.)"""

    addRequested = Signal(str)  # transport
    importFileRequested = Signal()
    pasteRequested = Signal()
    removeConfirmed = Signal()

    def __init__(self, connection: Callable[[str], McpConnection | None],
                 started: Callable[[str], dict[str, Any] | None],
                 parent: QWidget | None = None) -> None:
        """``started``: the settings a running server was started from (its secrets as
        stored), to tell whether the working copy differs."""
        super().__init__(parent)
        self._connection = connection
        self._started = started
        self.servers: list[dict[str, Any]] = []
        # Servers just added and not edited yet: not called invalid before the user typed
        self.untouched: set[int] = set()
        self.remove_box: QMessageBox | None = None
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        self.list = QListWidget()
        self.list.setAccessibleName(QCoreApplication.translate("McpDialog", "MCP servers"))
        self.list.setWordWrap(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        column.addWidget(self.list, 1)
        self.buttons = QHBoxLayout()
        self.add_button = QPushButton(QCoreApplication.translate("McpDialog", "Add"))
        add_menu = QMenu(self.add_button)
        for transport, label in TRANSPORTS:
            add_menu.addAction(QCoreApplication.translate("McpServerForm", label)).triggered \
                .connect(lambda _c=False, t=transport: self.addRequested.emit(t))
        self.add_button.setMenu(add_menu)
        self.import_button = QPushButton(QCoreApplication.translate("McpDialog", "Import"))
        import_menu = QMenu(self.import_button)
        import_menu.addAction(QCoreApplication.translate("McpDialog", "From a file…")) \
            .triggered.connect(self.importFileRequested)
        import_menu.addAction(QCoreApplication.translate("McpDialog", "Paste JSON…")) \
            .triggered.connect(self.pasteRequested)
        self.import_button.setMenu(import_menu)
        self.remove_button = QPushButton(QCoreApplication.translate("McpDialog", "Remove"))
        self.remove_button.clicked.connect(self.confirm_remove)
        column.addLayout(self.buttons)

    def add_buttons(self, browse: QPushButton) -> None:
        for button in (self.add_button, browse, self.import_button, self.remove_button):
            self.buttons.addWidget(button)

    # -- status lines -----------------------------------------------------------------------

    def status_of(self, server: dict[str, Any]) -> tuple[str, str]:
        """(state key, one line) for a server in the working list."""
        error = validation_error(server)
        if error and id(server) in self.untouched:
            return "new", QCoreApplication.translate(
                "McpDialog", "new — say how to reach it, then Save")
        if error:
            return "invalid", error
        if not server.get("enabled", True):
            return "disabled", QCoreApplication.translate("McpDialog", "switched off")
        connection = self._connection(str(server.get("name", "")))
        if connection is None:
            return "new", QCoreApplication.translate("McpDialog", "not started — Save to start it")
        state = connection.state
        if state == "running":
            text = QCoreApplication.translate("McpDialog", "running · %n tools", "",
                                              len(connection.tools))
        elif state == "failed":
            text = QCoreApplication.translate("McpDialog", "failed: {error}").format(
                error=connection.last_error
                or QCoreApplication.translate("McpDialog", "no reason given"))
        elif state == "starting":
            text = QCoreApplication.translate("McpDialog", "starting…")
        elif state == "restarting":
            text = QCoreApplication.translate("McpDialog", "restarting…") + (
                QCoreApplication.translate("McpDialog", " (last error: {error})").format(
                    error=connection.last_error) if connection.last_error else "")
        else:
            text = QCoreApplication.translate("McpDialog", "stopped")
        started = self._started(connection.name)
        applied = normalized(dict(started)) if started is not None \
            else connection.config.model_dump(mode="json")
        if applied != normalized(dict(server)):
            text += QCoreApplication.translate("McpDialog", " · changes not applied yet (Save)")
        return state, text

    def _item_text(self, server: dict[str, Any]) -> str:
        state, text = self.status_of(server)
        text = text if len(text) <= 70 else text[:69] + "…"  # all of it in the tooltip
        name = server.get("name") or QCoreApplication.translate("McpDialog", "(no name)")
        return f"{STATE_MARK.get(state, '•')} {name}\n    {text}"

    def fill(self, servers: list[dict[str, Any]]) -> None:
        """Show ``servers`` (the dialog's working list), keeping the current row."""
        self.servers = servers
        current = self.list.currentRow()
        self.list.blockSignals(True)
        self.list.clear()
        for server in servers:
            item = QListWidgetItem(self._item_text(server))
            item.setToolTip(plain_tooltip(self.status_of(server)[1]))
            self.list.addItem(item)
        self.list.blockSignals(False)
        if 0 <= current < len(servers):
            self.list.setCurrentRow(current)
        self.remove_button.setEnabled(bool(servers))

    def refresh(self) -> None:
        for row, server in enumerate(self.servers):
            item = self.list.item(row)
            if item is not None:
                item.setText(self._item_text(server))
                item.setToolTip(plain_tooltip(self.status_of(server)[1]))

    def current(self) -> dict[str, Any] | None:
        row = self.list.currentRow()
        return self.servers[row] if 0 <= row < len(self.servers) else None

    def confirm_remove(self) -> None:
        """Removing is undone by Cancel until Save, but a click should not do it alone."""
        current = self.current()
        if current is None:
            return
        box = QMessageBox(
            QMessageBox.Icon.Question,
            QCoreApplication.translate("McpDialog", "Remove MCP server"),
            QCoreApplication.translate(
                "McpDialog", "Remove {name}? Its tools leave every chat, and its stored "
                "keys and sign-in are deleted, when you Save.").format(name=current.get("name")),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.setTextFormat(Qt.TextFormat.PlainText)  # the name is the user's or a server's
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.finished.connect(lambda result: self.removeConfirmed.emit()
                             if result == QMessageBox.StandardButton.Yes else None)
        self.remove_box = box
        box.open()
