"""What the window does about tools, between the controller, the composer's tool
switches and the Tool activity sidebar: which tools the open chat offers, showing
the sidebar when a call waits for approval, and starting the MCP servers. (The
tool-round limit's question is asked in the conversation: :class:`TurnStatus`.)"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from desktop.chat.mcp_inputs import McpInputs
from desktop.chat.sampling import ChatSampler
from desktop.chat.server_questions import ServerQuestions
from desktop.ui.chat.mcp_resources import McpAttachMenu
from desktop.ui.chat.skill_switches import SkillSwitches
from desktop.ui.chat.slash_prompts import SlashPrompts
from desktop.ui.tools.mcp_sign_in import open_in_browser
from desktop.ui.tools.undo_bar import UndoBar

if TYPE_CHECKING:
    from desktop.ui.chat.composer import Composer
    from desktop.ui.tools.sidebar import ToolSidebar
    from desktop.ui.window.controller import ChatController


class ToolActivity(QObject):
    # a call waits for approval: the sidebar should be seen (True: the user asked, Ctrl+Shift+A)
    revealRequested = Signal(bool)

    def __init__(self, controller: ChatController, composer: Composer, sidebar: ToolSidebar,
                 parent: QWidget) -> None:
        super().__init__(parent)
        self.controller = controller
        self.composer = composer
        self.sidebar = sidebar
        # The chat's skills, a submenu of the composer's tools menu
        self.skill_switches = SkillSwitches(controller.tool_switches.chat_skills,
                                            controller.tool_switches.set_skill_enabled,
                                            composer)
        composer.extra_menus.append(self.skill_switches.menu)
        controller.tools.browser = open_in_browser  # remote MCP sign-in pages
        # MCP servers asking (a form, or messages for the model) go to the tool panel
        # through the chat's events; sampling runs on the chat's model once allowed.
        self.server_questions = ServerQuestions(controller.service)
        controller.tools.elicitor = self.server_questions.elicit
        controller.tools.sampler = ChatSampler(controller.service,
                                               self.server_questions.approve_sampling)
        # MCP prompts as /commands, and resources from the attach button's menu
        inputs = McpInputs(controller.tools)
        self.slash_prompts = SlashPrompts(composer, inputs)
        self.mcp_attach = McpAttachMenu(composer, inputs)
        controller.toolsChanged.connect(self.mcp_attach.refresh)
        controller.toolsChanged.connect(self.slash_prompts.update)  # prompts came or went
        # "Undo this turn's changes": the files the agent wrote, in the tool panel
        self.undo_bar = UndoBar.in_panel(controller, sidebar)

    def refresh_tools(self) -> None:
        """The composer's tool switches: the open chat's tools and which are on."""
        c = self.controller
        registry = c.tools.registry()
        tools = [(name, tool.source if (tool := registry.get(name)) else "builtin")
                 for name in c.tool_switches.available_tools()]
        config, model = c.provider(), c.model()
        note = None
        capabilities = c.services.providers.capabilities
        if config is not None and model and not capabilities(config, model).tools:
            note = self.tr("{model} cannot use tools: none are sent to it").format(model=model)
        self.composer.set_tools(tools, set(c.tool_switches.enabled_tools()), note)
        self.skill_switches.refresh()

    def approval_shown(self, _call_id: str) -> None:
        self.revealRequested.emit(False)

    def focus_approval(self) -> None:
        """Ctrl+Shift+A: the first call waiting for approval, if any."""
        if self.sidebar.approval_cards:
            self.revealRequested.emit(True)
            self.sidebar.focus_approval()

    def start_mcp(self) -> None:
        """Start the configured MCP servers (they need the running asyncio loop)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        if self.controller.settings.mcp_servers:
            self.controller.start_mcp()
