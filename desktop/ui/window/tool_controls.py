"""The main window's tool controls: the composer's tool switches, approvals in the
sidebar, the Tools and MCP servers dialogs, MCP start-up and the tool-round limit's
"Continue?" question.

A mixin of :class:`desktop.ui.window.main_window.MainWindow`, which owns the widgets."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from PySide6.QtWidgets import QDialog, QMessageBox, QPushButton, QSplitter, QWidget

from desktop.ui.window.helpers import delete_on_close

if TYPE_CHECKING:
    from desktop.ui.chat.composer import Composer
    from desktop.ui.tools.sidebar import ToolSidebar
    from desktop.ui.window.controller import ChatController


class ToolControls:
    controller: ChatController
    composer: Composer
    sidebar: ToolSidebar
    sidebar_button: QPushButton
    splitter: QSplitter
    tools_dialog: QDialog | None
    mcp_dialog: QDialog | None
    _confirm_box: QMessageBox | None

    def _refresh_tools(self) -> None:
        c = self.controller
        registry = c.tools.registry()
        tools = [(name, tool.source if (tool := registry.get(name)) else "builtin")
                 for name in c.available_tools()]
        config, model = c.provider(), c.model()
        note = None
        if config is not None and model and not c.ctx.capabilities_for(config, model).tools:
            note = f"{model} cannot use tools: none are sent to it"
        self.composer.set_tools(tools, set(c.enabled_tools()), note)

    def _approval_shown(self, _call_id: str) -> None:
        """A call waits for approval: make sure the sidebar is visible."""
        if not self.sidebar_button.isChecked():
            self.sidebar_button.setChecked(True)
        sizes = self.splitter.sizes()
        if len(sizes) == 3 and sizes[2] < 200:
            self.splitter.setSizes([sizes[0], max(sizes[1] + sizes[2] - 320, 300), 320])

    def _focus_approval(self) -> None:
        if self.sidebar.approval_cards:
            self._approval_shown("")
            self.sidebar.focus_approval()

    def _start_mcp(self) -> None:
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        if self.controller.settings.mcp_servers:
            self.controller.start_mcp()

    def open_tools_settings(self) -> None:
        from desktop.ui.tools.tools_dialog import ToolsDialog

        if self.tools_dialog is not None and self.tools_dialog.isVisible():
            self.tools_dialog.raise_()
            return
        dialog = ToolsDialog(self.controller, cast(QWidget, self))
        delete_on_close(dialog)
        dialog.destroyed.connect(lambda: setattr(self, "tools_dialog", None))
        self.tools_dialog = dialog
        dialog.open()

    def open_mcp_settings(self) -> None:
        from desktop.ui.tools.mcp_dialog import McpDialog

        if self.mcp_dialog is not None and self.mcp_dialog.isVisible():
            self.mcp_dialog.raise_()
            return
        dialog = McpDialog(self.controller, cast(QWidget, self))
        delete_on_close(dialog)
        dialog.finished.connect(self._refresh_tools)
        dialog.destroyed.connect(lambda: setattr(self, "mcp_dialog", None))
        self.mcp_dialog = dialog
        dialog.open()

    def _confirm_continue(self, rounds: int) -> None:
        # Emitted from inside the running turn: ask without a nested event loop.
        box = QMessageBox(QMessageBox.Icon.Question, "Continue?",
                          f"The assistant has used tools for {rounds} rounds. "
                          "Let it continue?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                          cast(QWidget, self))
        box.setDefaultButton(QMessageBox.StandardButton.Yes)
        delete_on_close(box)
        def answered(_result: int) -> None:
            proceed = box.standardButton(box.clickedButton()) == QMessageBox.StandardButton.Yes
            if self._confirm_box is box:
                self._confirm_box = None
            self.controller.answer_confirm(proceed)

        box.finished.connect(answered)
        self._confirm_box = box
        box.open()
