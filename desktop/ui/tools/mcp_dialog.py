"""Settings → MCP servers: the list with live status, a form per server (stdio command
or Streamable HTTP / SSE URL), import from Claude-Desktop JSON (file or paste), per-server
and per-tool switches and policies, Restart, and the server's stderr."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop.core.errors import ConfigError
from desktop.tools.mcp.config import McpServerConfig, load_mcp_config, parse_mcp_json
from desktop.ui.plain_text import plain_label, plain_tooltip
from desktop.ui.tools.mcp_catalog_dialog import catalog_button
from desktop.ui.tools.mcp_form import TRANSPORTS, McpServerForm
from desktop.ui.tools.mcp_import import PasteDialog, claude_desktop_config

if TYPE_CHECKING:
    from desktop.tools.mcp.connection import McpConnection
    from desktop.ui.window.controller import ChatController

log = logging.getLogger(__name__)

STATE_MARK = {"running": "●", "starting": "◌", "restarting": "◌", "failed": "✗",
              "stopped": "○", "disabled": "○", "new": "+", "invalid": "⚠"}


def validation_error(server: dict[str, Any]) -> str | None:
    try:
        McpServerConfig.model_validate(server)
    except ValidationError as exc:
        first = exc.errors()[0]
        return str(first.get("msg", "invalid settings")).removeprefix("Value error, ")
    return None


class McpDialog(QDialog):
    def __init__(self, controller: ChatController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.setWindowTitle(self.tr("MCP servers"))
        self.resize(920, 640)
        self.servers: list[dict[str, Any]] = [
            self._normalized(dict(s)) for s in controller.settings.mcp_servers]
        self.dirty = False
        self._discard_armed = False
        # Servers just added and not edited yet: not called invalid before the user typed
        self._untouched: set[int] = set()
        self._tasks: set[asyncio.Future[None]] = set()
        self.paste_dialog: PasteDialog | None = None
        self.file_dialog: QFileDialog | None = None

        layout = QVBoxLayout(self)
        splitter = QSplitter()
        left = self._build_list()
        splitter.addWidget(left)

        self.stack = QStackedWidget()
        empty = QLabel(self.tr("No MCP servers yet. Add one (a command such as “npx -y "
                       "@modelcontextprotocol/server-filesystem ~/notes”, or a URL), or "
                       "import your Claude Desktop configuration."))
        empty.setWordWrap(True)
        empty.setObjectName("emptyHint")
        self.form = McpServerForm(self._connection, self._tool_override)
        self.form.changed.connect(self._form_changed)
        self.form.restartRequested.connect(self.restart_current)
        self.stack.addWidget(empty)
        self.stack.addWidget(self.form)
        splitter.addWidget(self.stack)
        splitter.setSizes([280, 640])
        layout.addWidget(splitter, 1)

        self.message = plain_label()
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        buttons = QDialogButtonBox()
        self.save_button = buttons.addButton(self.tr("Save and start"),
                                             QDialogButtonBox.ButtonRole.ApplyRole)
        self.save_button.setObjectName("primaryButton")
        self.save_button.setToolTip(self.tr("Save the servers and (re)start them"))
        self.close_button = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.save_button.clicked.connect(self.save)
        self.close_button.clicked.connect(self.reject)
        layout.addWidget(buttons)

        controller.toolsChanged.connect(self.refresh_status)
        self._timer = QTimer(self)
        self._timer.setInterval(500)
        self._timer.timeout.connect(self.form.poll_stderr)
        self._timer.start()
        self._fill_list()
        if self.servers:
            self.server_list.setCurrentRow(0)
        else:
            self.stack.setCurrentIndex(0)

    def _build_list(self) -> QWidget:
        left = QWidget()
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        self.server_list = QListWidget()
        self.server_list.setAccessibleName(self.tr("MCP servers"))
        self.server_list.setWordWrap(True)
        self.server_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.server_list.currentRowChanged.connect(self._row_changed)
        column.addWidget(self.server_list, 1)
        row = QHBoxLayout()
        self.add_button = QPushButton(self.tr("Add"))
        add_menu = QMenu(self.add_button)
        for transport, label in TRANSPORTS:
            add_menu.addAction(label).triggered.connect(
                lambda _c=False, t=transport: self.add_server(t))
        self.add_button.setMenu(add_menu)
        self.import_button = QPushButton(self.tr("Import"))
        import_menu = QMenu(self.import_button)
        import_menu.addAction(self.tr("From a file…")).triggered.connect(self.choose_import_file)
        import_menu.addAction(self.tr("Paste JSON…")).triggered.connect(self.open_paste)
        self.import_button.setMenu(import_menu)
        self.remove_button = QPushButton(self.tr("Remove"))
        self.remove_button.clicked.connect(self._confirm_remove)
        self.browse_button = catalog_button(self, self.controller.ctx, self._add_configs)
        for button in (self.add_button, self.browse_button, self.import_button,
                       self.remove_button):
            row.addWidget(button)
        column.addLayout(row)
        return left

    # -- the list -------------------------------------------------------------------------------

    @staticmethod
    def _normalized(server: dict[str, Any]) -> dict[str, Any]:
        try:
            return McpServerConfig.model_validate(server).model_dump(mode="json")
        except ValidationError:
            return server

    def _connection(self, name: str) -> McpConnection | None:
        manager = self.controller.tools.mcp
        return manager.get(name) if manager is not None else None

    def _tool_override(self, exposed: str) -> str | None:
        return self.controller.settings.tool_policies.get(exposed)

    def status_of(self, server: dict[str, Any]) -> tuple[str, str]:
        """(state key, one line) for a server in the working list."""
        error = validation_error(server)
        if error and id(server) in self._untouched:
            return "new", self.tr("new — say how to reach it, then Save")
        if error:
            return "invalid", error
        if not server.get("enabled", True):
            return "disabled", self.tr("switched off")
        connection = self._connection(str(server.get("name", "")))
        if connection is None:
            return "new", self.tr("not started — Save to start it")
        state = connection.state
        if state == "running":
            text = self.tr("running · %n tools", "", len(connection.tools))
        elif state == "failed":
            text = self.tr("failed: {error}").format(
                error=connection.last_error or self.tr("no reason given"))
        elif state == "starting":
            text = self.tr("starting…")
        elif state == "restarting":
            text = self.tr("restarting…") + (
                self.tr(" (last error: {error})").format(error=connection.last_error)
                if connection.last_error else "")
        else:
            text = self.tr("stopped")
        if connection.config.model_dump(mode="json") != self._normalized(dict(server)):
            text += self.tr(" · changes not applied yet (Save)")
        return state, text

    def _item_text(self, server: dict[str, Any]) -> str:
        state, text = self.status_of(server)
        text = text if len(text) <= 70 else text[:69] + "…"  # all of it in the tooltip
        name = server.get("name") or self.tr("(no name)")
        return f"{STATE_MARK.get(state, '•')} {name}\n    {text}"

    def _fill_list(self) -> None:
        current = self.server_list.currentRow()
        self.server_list.blockSignals(True)
        self.server_list.clear()
        for server in self.servers:
            item = QListWidgetItem(self._item_text(server))
            item.setToolTip(plain_tooltip(self.status_of(server)[1]))
            self.server_list.addItem(item)
        self.server_list.blockSignals(False)
        if 0 <= current < len(self.servers):
            self.server_list.setCurrentRow(current)
        self.remove_button.setEnabled(bool(self.servers))

    def refresh_status(self) -> None:
        for row, server in enumerate(self.servers):
            item = self.server_list.item(row)
            if item is not None:
                item.setText(self._item_text(server))
                item.setToolTip(plain_tooltip(self.status_of(server)[1]))
        current = self.current_server()
        if current is not None:
            self.form.show_status(*self.status_of(current))

    def current_server(self) -> dict[str, Any] | None:
        row = self.server_list.currentRow()
        return self.servers[row] if 0 <= row < len(self.servers) else None

    def _row_changed(self, row: int) -> None:
        if 0 <= row < len(self.servers):
            self.stack.setCurrentIndex(1)
            self.form.load(self.servers[row])
            self.form.show_status(*self.status_of(self.servers[row]))
        else:
            self.stack.setCurrentIndex(0)

    def _form_changed(self) -> None:
        current = self.current_server()
        if current is not None:
            self._untouched.discard(id(current))
        self.dirty = True
        self._discard_armed = False
        self.refresh_status()

    def _unique_name(self, base: str) -> str:
        taken = {str(s.get("name")) for s in self.servers}
        name, n = base, 2
        while name in taken:
            name, n = f"{base}-{n}", n + 1
        return name

    def add_server(self, transport: str = "stdio") -> dict[str, Any]:
        server: dict[str, Any] = {"name": self._unique_name("server"), "transport": transport,
                                  "command": "", "args": [], "env": {}, "url": "",
                                  "headers": {}, "enabled": True}
        self.servers.append(server)
        self._untouched.add(id(server))
        self.dirty = True
        self._fill_list()
        self.server_list.setCurrentRow(len(self.servers) - 1)
        self.form.focus_first_field()
        return server

    def _confirm_remove(self) -> None:
        """Removing is undone by Cancel until Save, but a click should not do it alone."""
        current = self.current_server()
        if current is None:
            return
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Remove MCP server"),
                          self.tr("Remove {name}? Its tools leave every chat when you Save.")
                          .format(name=current.get("name")), QMessageBox.StandardButton.Yes
                          | QMessageBox.StandardButton.Cancel, self)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.finished.connect(lambda result: self.remove_current()
                             if result == QMessageBox.StandardButton.Yes else None)
        self.remove_box = box
        box.open()

    def remove_current(self) -> None:
        row = self.server_list.currentRow()
        if 0 <= row < len(self.servers):
            name = self.servers.pop(row).get("name")
            self.dirty = True
            self._fill_list()
            self.server_list.setCurrentRow(min(row, len(self.servers) - 1))
            self._row_changed(self.server_list.currentRow())
            self.show_message(self.tr("Removed {name}. Save to stop it.").format(name=name))

    # -- import ---------------------------------------------------------------------------------

    def choose_import_file(self) -> None:
        found = claude_desktop_config()
        dialog = QFileDialog(self, self.tr("Import MCP servers"),
                             str(found.parent) if found else str(Path.home()),
                             self.tr("JSON files (*.json);;All files (*)"))
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        if found:
            dialog.selectFile(str(found))
        dialog.fileSelected.connect(self.import_file)
        self.file_dialog = dialog
        dialog.open()

    def open_paste(self) -> PasteDialog:
        dialog = PasteDialog(self)
        dialog.accepted.connect(lambda: self.import_text(dialog.text.toPlainText()))
        self.paste_dialog = dialog
        dialog.open()
        return dialog

    def import_file(self, path: str) -> bool:
        try:
            configs = load_mcp_config(path)
        except ConfigError as exc:
            self.show_message(str(exc), error=True)
            return False
        return self._add_configs(configs)

    def import_text(self, text: str) -> bool:
        try:
            configs = parse_mcp_json(text)
        except ConfigError as exc:
            self.show_message(str(exc), error=True)
            return False
        return self._add_configs(configs)

    def _add_configs(self, configs: list[McpServerConfig]) -> bool:
        first = len(self.servers)
        names = []
        for config in configs:
            name = self._unique_name(config.name)
            self.servers.append(config.model_copy(update={"name": name}).model_dump(mode="json"))
            names.append(name)
        self.dirty = True
        self._fill_list()
        self.server_list.setCurrentRow(first)
        self.show_message(self.tr("Imported %n servers: {names}. Save to start them.", "",
                                  len(names)).format(names=", ".join(names)))
        return True

    # -- saving, restarting, closing --------------------------------------------------------------

    def save(self) -> bool:
        configs: list[McpServerConfig] = []
        names: set[str] = set()
        for row, server in enumerate(self.servers):
            error = validation_error(server)
            name = str(server.get("name", ""))
            if error is None and name in names:
                error = self.tr("There are two servers named {name}; rename one.").format(
                    name=repr(name))
            if error:
                self.server_list.setCurrentRow(row)
                self.show_message(error, error=True)
                return False
            names.add(name)
            configs.append(McpServerConfig.model_validate(server))
        self.servers = [c.model_dump(mode="json") for c in configs]
        self.controller.update_settings(mcp_servers=list(self.servers))
        self.dirty = False
        self._discard_armed = False
        self.controller.start_mcp()
        self._fill_list()
        self._row_changed(self.server_list.currentRow())
        self.show_message(self.tr("Saved. Starting the servers…") if configs else self.tr("Saved."))
        return True

    def restart_current(self) -> None:
        server = self.current_server()
        manager = self.controller.tools.mcp
        name = str(server.get("name", "")) if server else ""
        if manager is None or manager.get(name) is None:
            self.show_message(self.tr("{name} is not started: Save to start it.").format(
                name=name or self.tr("This server")))
            return

        async def restart() -> None:
            try:
                await manager.restart(name)
            except Exception as exc:
                log.warning("restarting MCP server %s failed: %s", name, exc)

        task = asyncio.ensure_future(restart())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        self.show_message(self.tr("Restarting {name}…").format(name=name))

    def show_message(self, text: str, *, error: bool = False) -> None:
        self.message.setText(("⚠ " if error else "") + text)

    def reject(self) -> None:
        if self.dirty and not self._discard_armed:
            self._discard_armed = True
            self.show_message(
                self.tr("You have unsaved changes: Save them, or press Close again to "
                        "discard them."), error=True)
            return
        self._timer.stop()
        with contextlib.suppress(RuntimeError, TypeError):
            self.controller.toolsChanged.disconnect(self.refresh_status)
        super().reject()
