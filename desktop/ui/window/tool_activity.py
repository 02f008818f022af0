"""What the window does about tools, between the controller, the composer's tool
switches and the Tool activity sidebar: which tools the open chat offers, showing
the sidebar when a call waits for approval, starting the MCP servers, and the
tool-round limit's "Continue?" question."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from desktop.ui.window.helpers import delete_on_close

if TYPE_CHECKING:
    from desktop.core.agent_events import RunFinished
    from desktop.ui.chat.composer import Composer
    from desktop.ui.tools.sidebar import ToolSidebar
    from desktop.ui.window.controller import ChatController


class ToolActivity(QObject):
    revealRequested = Signal()  # a call waits for approval: the sidebar must be seen

    def __init__(self, controller: ChatController, composer: Composer, sidebar: ToolSidebar,
                 parent: QWidget) -> None:
        super().__init__(parent)
        self.controller = controller
        self.composer = composer
        self.sidebar = sidebar
        self.parent_widget = parent  # the "Continue?" box is modal to the window
        self.confirm_box: QMessageBox | None = None  # while "Continue?" is asked

    def refresh_tools(self) -> None:
        """The composer's tool switches: the open chat's tools and which are on."""
        c = self.controller
        registry = c.tools.registry()
        tools = [(name, tool.source if (tool := registry.get(name)) else "builtin")
                 for name in c.available_tools()]
        config, model = c.provider(), c.model()
        note = None
        if config is not None and model and not c.ctx.capabilities_for(config, model).tools:
            note = f"{model} cannot use tools: none are sent to it"
        self.composer.set_tools(tools, set(c.enabled_tools()), note)

    def approval_shown(self, _call_id: str) -> None:
        self.revealRequested.emit()

    def focus_approval(self) -> None:
        """Ctrl+Shift+A: the first call waiting for approval, if any."""
        if self.sidebar.approval_cards:
            self.revealRequested.emit()
            self.sidebar.focus_approval()

    def start_mcp(self) -> None:
        """Start the configured MCP servers (they need the running asyncio loop)."""
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        if self.controller.settings.mcp_servers:
            self.controller.start_mcp()

    def confirm_continue(self, rounds: int) -> None:
        # Emitted from inside the running turn: ask without a nested event loop.
        box = QMessageBox(QMessageBox.Icon.Question, "Continue?",
                          f"The assistant has used tools for {rounds} rounds. "
                          "Let it continue?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                          self.parent_widget)
        box.setDefaultButton(QMessageBox.StandardButton.Yes)
        delete_on_close(box)

        def answered(_result: int) -> None:
            proceed = box.standardButton(box.clickedButton()) == QMessageBox.StandardButton.Yes
            if self.confirm_box is box:
                self.confirm_box = None
            self.controller.answer_confirm(proceed)

        box.finished.connect(answered)
        self.confirm_box = box
        box.open()

    def run_finished(self, _event: RunFinished) -> None:
        """A turn ended (stopped, say) while "Continue?" was open: the answer is moot."""
        if self.confirm_box is not None and self.confirm_box.isVisible():
            self.confirm_box.reject()
        self.confirm_box = None
