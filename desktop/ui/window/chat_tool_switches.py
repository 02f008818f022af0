"""The tools and skills of the chat on screen, for the composer's tool switches and
skills submenu and the Tools dialog: which tools the chat could offer and which are
on, its skills, and its "allow for this chat" grants. Reads and changes go to the chat
service (:class:`desktop.chat.chat_settings.ChatSettings`) for the chat the controller
shows; a switch changed says so with the controller's ``toolsChanged``."""

from __future__ import annotations

from desktop.tools.approval import ChatGrants
from desktop.ui.window.chat_profile import ChatOnScreen


class ChatToolSwitches:
    def __init__(self, controller: ChatOnScreen) -> None:
        self.controller = controller

    def available_tools(self) -> list[str]:
        """The tools the chat on screen could offer (the app's and its MCP servers')."""
        c = self.controller
        return c.service.chats.available_tools(c.chat)

    def enabled_tools(self) -> list[str]:
        c = self.controller
        return c.service.chats.enabled_tools(c.chat)

    def disabled_tools(self) -> list[str]:
        """Tools switched off for the current chat (kept with the session)."""
        c = self.controller
        return c.service.chats.disabled_tools(c.chat)

    def set_tool_enabled(self, name: str, enabled: bool) -> None:
        c = self.controller
        c.service.chats.set_tool_enabled(c.chat, name, enabled)
        c.toolsChanged.emit()

    def chat_skills(self) -> list[tuple[str, bool]]:
        """The skills the current chat could offer, each with whether it is on."""
        c = self.controller
        return c.service.chats.skill_states(c.chat)

    def set_skill_enabled(self, name: str, enabled: bool) -> None:
        c = self.controller
        c.service.chats.set_skill_enabled(c.chat, name, enabled)
        c.toolsChanged.emit()

    def chat_grants(self) -> ChatGrants:
        """The chat on screen's "allow for this chat" grants."""
        c = self.controller
        return c.service.chats.grants(c.chat)
