"""The assistant and own system prompt of the chat on screen, for the window's
pickers and dialogs; reads and changes go to the chat service
(:class:`desktop.chat.chat_settings.ChatSettings`) for the chat the controller shows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from PySide6.QtCore import SignalInstance

from desktop.chat.profile import ChatRef
from desktop.chat.service import ChatService
from desktop.core.errors import AssistaError
from desktop.core.prompt import PromptSources, build_system_prompt
from desktop.core.records import Assistant
from desktop.ui.error_text import exception_text


class ChatOnScreen(Protocol):
    """What the profile needs of its owner (the window's controller)."""

    service: ChatService
    toolsChanged: SignalInstance
    selectionChanged: SignalInstance
    errorOccurred: SignalInstance

    @property
    def chat(self) -> ChatRef: ...


class ChatProfile:
    def __init__(self, controller: ChatOnScreen) -> None:
        self.controller = controller

    def assistant(self) -> Assistant | None:
        c = self.controller
        return c.service.chats.assistant(c.chat)

    def set_assistant(self, assistant_id: str | None) -> None:
        c = self.controller
        c.service.chats.set_assistant(c.chat, assistant_id)
        c.toolsChanged.emit()
        c.selectionChanged.emit()

    def session_prompt(self) -> str | None:
        """The chat's own system prompt (``None``: its assistant's, else the default)."""
        c = self.controller
        return c.service.chats.own_prompt(c.chat)

    def set_session_prompt(self, prompt: str | None) -> None:
        c = self.controller
        try:
            c.service.chats.set_prompt(c.chat, prompt)
        except AssistaError as exc:
            c.errorOccurred.emit(exception_text(exc))
            return
        c.selectionChanged.emit()

    def prompt_sources(self, tools: Sequence[str] = ()) -> PromptSources:
        c = self.controller
        return c.service.chats.prompt_sources(c.chat, tuple(tools))

    def system_prompt(self, tools: Sequence[str] = ()) -> str | None:
        return build_system_prompt(self.prompt_sources(tools))

    def temperature(self) -> float | None:
        assistant = self.assistant()
        return assistant.temperature if assistant is not None else None
