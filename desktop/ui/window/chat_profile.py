"""What a chat answers as: its assistant and its own system prompt, and the system
prompt of its next turn.

Before a chat's first message these are the ones picked for it (the assistant from
the top bar, a prompt from "Edit system prompt…"); they are stored with the chat when
it is created (:meth:`SessionStore.create_session`), and read back from it after.
The prompt of a turn is :func:`desktop.core.prompt.build_system_prompt` over the app's
default, the assistant's, the chat's own prompt, the custom instructions, the
workspace and today's date.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING

from desktop.core.errors import AssistaError
from desktop.core.prompt import PromptSources, build_system_prompt
from desktop.storage.assistants import Assistant

if TYPE_CHECKING:
    from desktop.ui.window.controller import ChatController


class ChatProfile:
    def __init__(self, controller: ChatController) -> None:
        self.controller = controller
        self.new_chat_assistant: str | None = controller.settings.default_assistant_id
        self.new_chat_prompt: str | None = None

    def reset(self) -> None:
        """A new chat: no own prompt; the default assistant (from Settings) if any."""
        self.new_chat_assistant = None
        self.new_chat_prompt = None
        default = self.controller.settings.default_assistant_id
        if default:
            self.set_assistant(default)

    def assistant(self) -> Assistant | None:
        """The current chat's assistant (for a chat not started yet: the one picked)."""
        c = self.controller
        assistant_id = self.new_chat_assistant
        if c.session_id:
            info = c.ctx.sessions.get_session(c.session_id)
            assistant_id = info.assistant_id if info is not None else None
        return c.ctx.assistants.get(assistant_id) if assistant_id else None

    def set_assistant(self, assistant_id: str | None) -> None:
        """Use an assistant in the current chat: its prompt, temperature and tools, and
        its provider and model when it names them."""
        c = self.controller
        assistant = c.ctx.assistants.get(assistant_id) if assistant_id else None
        if c.session_id:
            c.ctx.sessions.update_session(
                c.session_id, assistant_id=assistant.id if assistant else None)
        else:
            self.new_chat_assistant = assistant.id if assistant else None
            if assistant is None or assistant.enabled_tools is None:
                c.reset_new_chat_tools()  # back to the app's tool settings
        if assistant is not None:
            known = {p.id for p in c.ctx.all_providers()}
            if assistant.provider_id in known and \
                    assistant.provider_id != c.settings.active_provider_id:
                c.set_provider(str(assistant.provider_id))
            if assistant.model:
                c.model_override = assistant.model
            if assistant.enabled_tools is not None:
                for name in c.available_tools():
                    c.set_tool_enabled(name, name in assistant.enabled_tools)
        c.selectionChanged.emit()

    def session_prompt(self) -> str | None:
        """The chat's own system prompt (``None``: its assistant's, else the default)."""
        c = self.controller
        if c.session_id:
            info = c.ctx.sessions.get_session(c.session_id)
            return info.system_prompt if info is not None else None
        return self.new_chat_prompt

    def set_session_prompt(self, prompt: str | None) -> None:
        c = self.controller
        if c.session_id:
            try:
                c.ctx.sessions.update_session(c.session_id, system_prompt=prompt)
            except AssistaError as exc:
                c.errorOccurred.emit(str(exc))
                return
        else:
            self.new_chat_prompt = prompt
        c.selectionChanged.emit()

    def prompt_sources(self, tools: Sequence[str] = ()) -> PromptSources:
        """What the next turn's system prompt is built from."""
        c = self.controller
        assistant = self.assistant()
        return PromptSources(
            default=c.settings.system_prompt,
            assistant=assistant.system_prompt if assistant is not None else None,
            session=self.session_prompt(), custom_instructions=c.settings.custom_instructions,
            workspace=c.workspace(), tools=tuple(tools), today=date.today())

    def system_prompt(self, tools: Sequence[str] = ()) -> str | None:
        return build_system_prompt(self.prompt_sources(tools))

    def temperature(self) -> float | None:
        assistant = self.assistant()
        return assistant.temperature if assistant is not None else None
