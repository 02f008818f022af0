"""Changing a chat's own choices: model, assistant, prompt, workspace, tools.

Each change applies to the chat it names (saved, or a :class:`NewChat` not saved
yet). Choosing a provider or workspace also makes it the default of the next new
chat; choosing a model changes that chat's model only (a provider's default model is
set in its settings).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop import knowledge as knowledge_bases
from desktop import skills as agent_skills
from desktop.chat.chat_options import ChatOptions
from desktop.chat.chat_tools import ChatTools
from desktop.chat.drafts import ChatDrafts
from desktop.chat.profile import ChatProfiles, ChatRef, NewChat
from desktop.core.prompt import PromptSources
from desktop.tools.approval import ChatGrants

if TYPE_CHECKING:
    from desktop.core.provider_options import RequestOptions
    from desktop.core.records import Assistant
    from desktop.core.settings import ProviderConfig
    from desktop.storage.settings_store import SettingsStore


class ChatSettings:
    def __init__(self, profiles: ChatProfiles, tools: ChatTools, values: SettingsStore) -> None:
        """``values``: where the drafts are kept."""
        self.profiles = profiles
        self.tools = tools
        self.drafts = ChatDrafts(values)

    # -- reading -------------------------------------------------------------------------

    def provider(self, chat: ChatRef) -> ProviderConfig | None:
        return self.profiles.provider(chat)

    def model(self, chat: ChatRef) -> str:
        return self.profiles.model(chat)

    def workspace(self, chat: ChatRef) -> str | None:
        return self.profiles.workspace(chat)

    def assistant(self, chat: ChatRef) -> Assistant | None:
        return self.profiles.assistant(chat)

    def own_prompt(self, chat: ChatRef) -> str | None:
        return self.profiles.own_prompt(chat)

    def options(self, chat: ChatRef) -> ChatOptions:
        return self.profiles.options(chat)

    def request_defaults(self, chat: ChatRef) -> RequestOptions | None:
        return self.profiles.request_defaults(chat)

    def prompt_sources(self, chat: ChatRef, tools: tuple[str, ...] = ()) -> PromptSources:
        return self.profiles.prompt_sources(chat, tools)

    def available_tools(self, chat: ChatRef) -> list[str]:
        return self.tools.available(self.profiles.settings.current, self.workspace(chat))

    def enabled_tools(self, chat: ChatRef) -> list[str]:
        disabled = set(self.profiles.disabled_tools(chat))
        return [n for n in self.available_tools(chat) if n not in disabled]

    def disabled_tools(self, chat: ChatRef) -> list[str]:
        return self.profiles.disabled_tools(chat)

    def knowledge(self, chat: ChatRef) -> list[str]:
        """The knowledge bases the chat itself searches (its assistant's come on top)."""
        return knowledge_bases.own_knowledge(self.profiles, chat)

    def set_knowledge(self, chat: ChatRef, names: list[str]) -> None:
        knowledge_bases.set_own_knowledge(self.profiles, chat, names)

    def draft(self, chat: ChatRef) -> str:
        """What was typed in the chat and not sent (kept across restarts)."""
        return self.drafts.get(chat)

    def grants(self, chat: ChatRef) -> ChatGrants:
        """The chat's "allow for this chat" grants (a new chat's move with it)."""
        key = chat if isinstance(chat, str) else chat.grant_key
        return self.tools.chat_grants(key)

    # -- changing ------------------------------------------------------------------------

    def set_draft(self, chat: ChatRef, text: str) -> None:
        self.drafts.set(chat, text)

    def set_provider(self, chat: ChatRef, provider_id: str) -> None:
        config = next((p for p in self.profiles.providers.all() if p.id == provider_id), None)
        if config is None:
            return
        self.profiles.settings.update(active_provider_id=provider_id)
        if isinstance(chat, NewChat):
            chat.provider_id, chat.model = provider_id, None
        else:
            self.profiles.sessions.update_session(chat, provider_id=provider_id, model=config.model)

    def set_model(self, chat: ChatRef, model: str) -> None:
        model = model.strip()
        config = self.provider(chat)
        if config is None or not model:
            return
        if isinstance(chat, NewChat):
            chat.provider_id, chat.model = config.id, model
        else:
            self.profiles.sessions.update_session(chat, provider_id=config.id, model=model)

    def set_options(self, chat: ChatRef, options: ChatOptions) -> None:
        """The chat's own temperature, max tokens and reasoning effort (this chat only:
        unlike the model, they do not become the next chat's)."""
        self.profiles.set_options(chat, options)

    def set_workspace(self, chat: ChatRef, folder: str | None) -> None:
        self.profiles.settings.update(workspace=folder)
        if isinstance(chat, NewChat):
            chat.workspace = folder
        else:
            self.profiles.sessions.update_session(chat, workspace=folder)

    def set_prompt(self, chat: ChatRef, prompt: str | None) -> None:
        if isinstance(chat, NewChat):
            chat.system_prompt = prompt
        else:
            self.profiles.sessions.update_session(chat, system_prompt=prompt)

    def skill_states(self, chat: ChatRef) -> list[tuple[str, bool]]:
        """The skills the chat could offer (valid, not switched off in Settings or by
        its assistant), each with whether the chat itself keeps it on."""
        assistant = self.profiles.assistant(chat)
        off = agent_skills.disabled_names(self.profiles.settings.current.disabled_skills,
                             assistant.extra if assistant is not None else None)
        own_off = set(self.profiles.disabled_skills(chat))
        found = agent_skills.usable(agent_skills.find_skills(self.profiles.data_folder,
                                                             self.profiles.workspace(chat)), off)
        return [(s.name, s.name not in own_off) for s in found]

    def skill_names(self, chat: ChatRef) -> list[str]:
        """Every valid skill found for the chat (the app's and its workspace's), switched
        off anywhere or not: what an assistant's editor lists."""
        found = agent_skills.find_skills(self.profiles.data_folder, self.profiles.workspace(chat))
        return [s.name for s in agent_skills.usable(found)]

    def set_skill_enabled(self, chat: ChatRef, name: str, enabled: bool) -> None:
        disabled = [n for n in self.profiles.disabled_skills(chat) if n != name]
        if not enabled:
            disabled.append(name)
        self.profiles.set_disabled_skills(chat, disabled)

    def set_tool_enabled(self, chat: ChatRef, name: str, enabled: bool) -> None:
        disabled = [n for n in self.profiles.disabled_tools(chat) if n != name]
        if not enabled:
            disabled.append(name)
        self.profiles.set_disabled_tools(chat, disabled)

    def set_assistant(self, chat: ChatRef, assistant_id: str | None) -> None:
        """Use an assistant in the chat: its prompt, temperature and tools, and its
        provider and model when it names them."""
        assistant = self.profiles.assistants.get(assistant_id) if assistant_id else None
        if isinstance(chat, NewChat):
            chat.assistant_id = assistant.id if assistant else None
            if assistant is None or assistant.enabled_tools is None:
                chat.disabled_tools = []  # back to the app's tool settings
        else:
            self.profiles.sessions.update_session(
                chat, assistant_id=assistant.id if assistant else None)
        if assistant is None:
            return
        known = {p.id for p in self.profiles.providers.all()}
        if assistant.provider_id in known:
            self.set_provider(chat, str(assistant.provider_id))
        if assistant.model:
            self.set_model(chat, assistant.model)
        if assistant.enabled_tools is not None:
            wanted = set(assistant.enabled_tools)
            self.profiles.set_disabled_tools(
                chat, [n for n in self.available_tools(chat) if n not in wanted])

    def new_chat(self, like: ChatRef | None = None) -> NewChat:
        """A new chat's choices: the assistant of ``like`` (the chat the user was in:
        "New chat" goes on with the same assistant), else the default assistant
        (Settings) if any."""
        chat = NewChat(draft=self.drafts.new_chat_draft())
        current = self.assistant(like) if like is not None else None
        default = self.profiles.settings.current.default_assistant_id
        if current is not None:
            self.set_assistant(chat, current.id)
        elif default and self.profiles.assistants.get(default) is not None:
            self.set_assistant(chat, default)
        return chat
