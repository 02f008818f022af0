"""Settings → MCP servers: the list with live status (mcp_server_list), a form per server
(mcp_form: stdio command or Streamable HTTP / SSE URL, switches, policies, sign-in,
stderr), import from Claude-Desktop JSON (file or paste), Restart, and Save: a removed
server's stored keys and sign-in are deleted, a renamed one's go with it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop.core.errors import ConfigError
from desktop.tools.mcp.bundle_install import remove_bundle_files
from desktop.tools.mcp.config import McpServerConfig, load_mcp_config, parse_mcp_json
from desktop.ui.error_text import exception_text
from desktop.ui.plain_text import plain_label
from desktop.ui.scrolling import scrolling, sized_by_current
from desktop.ui.tools.mcp_catalog_dialog import catalog_button
from desktop.ui.tools.mcp_form import McpServerForm
from desktop.ui.tools.mcp_import import PasteDialog, claude_desktop_config
from desktop.ui.tools.mcp_server_list import McpServerList, normalized, validation_error

if TYPE_CHECKING:
    from desktop.chat.chat_tools import ChatTools
    from desktop.core.services import SettingsSource
    from desktop.tools.mcp.connection import McpConnection
    from desktop.ui.window.dialog_registry import DialogServices

log = logging.getLogger(__name__)


class McpDialog(QDialog):
    """``settings``: the servers are read and saved there; ``tools``: the running servers,
    the catalog, their stored keys; ``data_folder``: where extensions are unpacked
    (a removed one's files go); ``start_servers``: (re)starts them from the settings.
    The window calls :meth:`refresh_status` when the tools change."""

    saved = Signal()  # the servers were saved (and are starting)

    @classmethod
    def for_window(cls, services: DialogServices, parent: QWidget) -> McpDialog:
        """Built by the window's dialog launcher (dialog_registry)."""
        return cls(services.settings, services.tools, services.app.data_folder,
                   services.restart_mcp, parent)

    def __init__(self, settings: SettingsSource, tools: ChatTools, data_folder: Path,
                 start_servers: Callable[[], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings, self.tools, self.data_folder = settings, tools, data_folder
        self.start_servers = start_servers
        self.setWindowTitle(self.tr("MCP servers"))
        self.resize(920, 640)
        self.servers: list[dict[str, Any]] = [
            normalized(dict(s)) for s in settings.current.mcp_servers]
        # Each saved server's dictionary (held, so no other takes its id) and saved name:
        # a rename is seen on Save
        self._saved_names = [(s, str(s.get("name", ""))) for s in self.servers]
        self.dirty = False
        self._discard_armed = False
        self._tasks: set[asyncio.Future[None]] = set()
        self.paste_dialog: PasteDialog | None = None
        self.file_dialog: QFileDialog | None = None

        layout = QVBoxLayout(self)
        splitter = QSplitter()
        self.list_panel = McpServerList(self._connection, self._started)
        self.browse_button = catalog_button(self, tools.server_catalog,
                                            self._add_configs)
        self.list_panel.add_buttons(self.browse_button)
        self.server_list = self.list_panel.list
        self.add_button, self.remove_button = (self.list_panel.add_button,
                                               self.list_panel.remove_button)
        self.server_list.currentRowChanged.connect(self._row_changed)
        self.list_panel.addRequested.connect(self.add_server)
        self.list_panel.importFileRequested.connect(self.choose_import_file)
        self.list_panel.pasteRequested.connect(self.open_paste)
        self.list_panel.removeConfirmed.connect(self.remove_current)
        splitter.addWidget(self.list_panel)

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
        sized_by_current(self.stack)
        splitter.addWidget(scrolling(self.stack))  # a small screen scrolls the form
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

        self._timer = QTimer(self)
        self._timer.setInterval(500)
        self._timer.timeout.connect(self.form.poll_stderr)
        self._timer.start()
        self._fill_list()
        if self.servers:
            self.server_list.setCurrentRow(0)
        else:
            self.stack.setCurrentIndex(0)

    @property
    def remove_box(self) -> QMessageBox | None:  # the question Remove asks
        return self.list_panel.remove_box

    # -- the list -------------------------------------------------------------------------------

    def _connection(self, name: str) -> McpConnection | None:
        manager = self.tools.mcp
        return manager.get(name) if manager is not None else None

    def _started(self, name: str) -> dict[str, Any] | None:
        return self.tools.started_settings.get(name)

    def _tool_override(self, exposed: str) -> str | None:
        return self.settings.current.tool_policies.get(exposed)

    def status_of(self, server: dict[str, Any]) -> tuple[str, str]:
        return self.list_panel.status_of(server)

    def _fill_list(self) -> None:
        self.list_panel.fill(self.servers)

    def refresh_status(self) -> None:
        self.list_panel.refresh()
        current = self.current_server()
        if current is not None:
            self.form.show_status(*self.status_of(current))

    def current_server(self) -> dict[str, Any] | None:
        return self.list_panel.current()

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
            self.list_panel.untouched.discard(id(current))
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
        self.list_panel.untouched.add(id(server))
        self.dirty = True
        self._fill_list()
        self.server_list.setCurrentRow(len(self.servers) - 1)
        self.form.focus_first_field()
        return server

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
            self.show_message(exception_text(exc), error=True)
            return False
        return self._add_configs(configs)

    def import_text(self, text: str) -> bool:
        try:
            configs = parse_mcp_json(text)
        except ConfigError as exc:
            self.show_message(exception_text(exc), error=True)
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
        present = {id(s) for s in self.servers}
        kept = {old: str(s.get("name", "")) for s, old in self._saved_names if id(s) in present}
        renamed = {old: new for old, new in kept.items() if new != old}
        try:  # before saving: the values saved next are then the ones under each name
            self.tools.settle_server_secrets(
                list(self.settings.current.mcp_servers), renamed, set(kept))
        except Exception as exc:  # a keyring that fails must not lose the user's edits
            log.warning("MCP servers: stored keys and sign-ins not settled: %s", exc)
        removed = [raw for raw in self.settings.current.mcp_servers
                   if str(raw.get("name", "")) not in kept]
        self.settings.update(mcp_servers=[c.model_dump(mode="json") for c in configs])
        self.saved.emit()
        for raw in removed:  # an extension removed here is uninstalled: its files go too
            remove_bundle_files(self.data_folder, raw)
        # As stored (secrets as placeholders): what the servers start from
        self.servers = [normalized(dict(s)) for s in self.settings.current.mcp_servers]
        self._saved_names = [(s, str(s["name"])) for s in self.servers]
        self.dirty = False
        self._discard_armed = False
        self.start_servers()
        self._fill_list()
        self._row_changed(self.server_list.currentRow())
        self.show_message(self.tr("Saved. Starting the servers…") if configs else self.tr("Saved."))
        return True

    def restart_current(self) -> None:
        server = self.current_server()
        manager = self.tools.mcp
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
        super().reject()
