"""What a chat answers as: its provider and model, assistant, own system prompt,
workspace and tool switches — and the system prompt its next turn is sent.

A chat that is not saved yet (the window's "New chat", a CLI run without
``--session``) keeps these in a :class:`NewChat`; once its first message is sent the
chat is created with them. A saved chat keeps them in its session row. Both the
window and ``assista ask`` read them through here, so the same chat gets the same
request from either.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from desktop import projects as project_feature
from desktop import skills as agent_skills
from desktop.chat.chat_options import CHAT_OPTIONS_KEY, ChatOptions, layered
from desktop.core.prompt import PromptSources, build_system_prompt

if TYPE_CHECKING:
    from desktop.chat.provider_service import ProviderService
    from desktop.core.messages import Message
    from desktop.core.provider_options import RequestOptions
    from desktop.core.records import Assistant, Project, SessionInfo
    from desktop.core.services import AssistantSource, SettingsSource
    from desktop.core.settings import ProviderConfig
    from desktop.projects.service import ProjectService
    from desktop.skills.format import Skill
    from desktop.storage.sessions import SessionStore

DISABLED_TOOLS_KEY = "disabled_tools"


class NewChat(msgspec.Struct, weakref=True):
    """The choices for a chat before its first message (``None``: the default)."""

    assistant_id: str | None = None
    system_prompt: str | None = None
    disabled_tools: list[str] = msgspec.field(default_factory=list)
    provider_id: str | None = None
    model: str | None = None
    workspace: str | None = None
    draft: str = ""  # typed, not sent yet (desktop.chat.drafts)
    options: ChatOptions = msgspec.field(default_factory=ChatOptions)
    knowledge: list[str] = msgspec.field(default_factory=list)  # knowledge bases it searches
    # A temporary chat: no memory read or written, and not kept once closed; its
    # messages live here only (the service adds each turn's).
    temporary: bool = False
    history: list[Message] = msgspec.field(default_factory=list)
    project_id: str | None = None  # the project it is started in (desktop.projects)
    disabled_skills: list[str] = msgspec.field(default_factory=list)  # skills it does not offer

    @property
    def temporary_id(self) -> str:
        """The id its turns run under (never a stored chat's)."""
        return f"unsaved-temporary-{id(self)}"

    @property
    def grant_key(self) -> str:
        """The key of its "allow for this chat" grants until it is saved (then its id)."""
        return f"new-{id(self)}"


#: A chat: a saved chat's id, or the choices of one not saved yet.
ChatRef = str | NewChat


class ChatProfiles:
    """Reads and changes the per-chat choices of any chat."""

    def __init__(self, sessions: SessionStore, settings: SettingsSource,
                 providers: ProviderService, *, assistants: AssistantSource,
                 projects: ProjectService, data_folder: Path) -> None:
        """``data_folder``: where the user's own skills are (``skills`` below it)."""
        self.sessions = sessions
        self.settings = settings
        self.providers = providers
        self.assistants = assistants
        self.projects = projects
        self.data_folder = data_folder

    def info(self, chat: ChatRef) -> SessionInfo | None:
        return self.sessions.get_session(chat) if isinstance(chat, str) else None

    # -- assistant and prompt ------------------------------------------------------------

    def assistant(self, chat: ChatRef) -> Assistant | None:
        if isinstance(chat, NewChat):
            assistant_id = chat.assistant_id
        else:
            info = self.info(chat)
            assistant_id = info.assistant_id if info is not None else None
        return self.assistants.get(assistant_id) if assistant_id else None

    def project(self, chat: ChatRef) -> Project | None:
        """The project the chat is in (None: in none, or the project is gone)."""
        if isinstance(chat, NewChat):
            project_id = chat.project_id
        else:
            info = self.info(chat)
            project_id = info.project_id if info is not None else None
        return self.projects.get(project_id)

    def project_prompt(self, chat: ChatRef) -> str:
        """What the chat's project adds to its system prompt ("" outside a project)."""
        project = self.project(chat)
        if project is None:
            return ""
        return project_feature.project_context(project, self.projects.files(project))

    def own_prompt(self, chat: ChatRef) -> str | None:
        """The chat's own system prompt (``None``: its assistant's, else the default)."""
        if isinstance(chat, NewChat):
            return chat.system_prompt
        info = self.info(chat)
        return info.system_prompt if info is not None else None

    def workspace(self, chat: ChatRef) -> str | None:
        """The chat's own folder, else its project's, else the app's."""
        if isinstance(chat, NewChat):
            own = chat.workspace
        else:
            info = self.info(chat)
            own = info.workspace if info is not None else None
        if own:
            return own
        project = self.project(chat)
        if project is not None and project.workspace:
            return project.workspace
        return self.settings.current.workspace

    def project_id(self, chat: ChatRef) -> str | None:
        """The chat's project (its memory scope); None: in no project."""
        if isinstance(chat, NewChat):
            return chat.project_id
        info = self.info(chat)
        return info.project_id if info is not None else None

    def prompt_sources(self, chat: ChatRef, tools: tuple[str, ...] = (), *,
                       workspace: str | None = None,
                       skills: Sequence[Skill] | None = None) -> PromptSources:
        """``skills``: those the turn offers (None: the chat's, when ``tools`` has
        load_skill)."""
        settings = self.settings.current
        assistant = self.assistant(chat)
        workspace = workspace if workspace is not None else self.workspace(chat)
        if skills is None:
            skills = self.skills(chat, workspace) if "load_skill" in tools else ()
        return PromptSources(
            default=settings.system_prompt,
            assistant=assistant.system_prompt if assistant is not None else None,
            session=self.own_prompt(chat), custom_instructions=settings.custom_instructions,
            workspace=workspace, tools=tools, today=date.today(),
            project=self.project_prompt(chat), skills=agent_skills.skills_prompt(skills))

    def system_prompt(self, chat: ChatRef, tools: tuple[str, ...] = (), *,
                      workspace: str | None = None,
                      skills: Sequence[Skill] | None = None) -> str | None:
        return build_system_prompt(self.prompt_sources(chat, tools, workspace=workspace,
                                                       skills=skills))

    # -- skills --------------------------------------------------------------------------

    def disabled_skills(self, chat: ChatRef) -> list[str]:
        """The skills the chat itself switched off."""
        if isinstance(chat, NewChat):
            return list(chat.disabled_skills)
        info = self.info(chat)
        raw = (info.extra or {}).get("disabled_skills") if info is not None else None
        return [str(n) for n in raw] if isinstance(raw, list) else []

    def set_disabled_skills(self, chat: ChatRef, names: list[str]) -> None:
        if isinstance(chat, NewChat):
            chat.disabled_skills = list(names)
            return
        info = self.info(chat)
        extra = dict(info.extra or {}) if info is not None else {}
        extra["disabled_skills"] = list(names)
        self.sessions.update_session(chat, extra=extra)

    def skills(self, chat: ChatRef, workspace: str | None = None) -> list[Skill]:
        """The valid skills the chat offers: found in the app's skills folder and its
        workspace, less those switched off in Settings, by its assistant or by it."""
        assistant = self.assistant(chat)
        off = agent_skills.disabled_names(self.settings.current.disabled_skills,
                             assistant.extra if assistant is not None else None,
                             self.disabled_skills(chat))
        found = agent_skills.find_skills(self.data_folder,
                            workspace if workspace is not None else self.workspace(chat))
        return agent_skills.usable(found, off)

    # -- request settings ----------------------------------------------------------------

    def options(self, chat: ChatRef) -> ChatOptions:
        """The chat's own temperature, max tokens and reasoning effort (unset: None)."""
        if isinstance(chat, NewChat):
            return chat.options
        info = self.info(chat)
        return ChatOptions.from_json((info.extra or {}).get(CHAT_OPTIONS_KEY)
                                     if info is not None else None)

    def set_options(self, chat: ChatRef, options: ChatOptions) -> None:
        if isinstance(chat, NewChat):
            chat.options = options
            return
        info = self.info(chat)
        extra = dict(info.extra or {}) if info is not None else {}
        if options.is_default():
            extra.pop(CHAT_OPTIONS_KEY, None)
        else:
            extra[CHAT_OPTIONS_KEY] = options.to_json()
        self.sessions.update_session(chat, extra=extra)

    def request_defaults(self, chat: ChatRef) -> RequestOptions | None:
        """What the chat would be sent with if it set nothing itself: the provider's
        request defaults under its assistant's temperature (None: no provider)."""
        config = self.provider(chat)
        if config is None:
            return None
        assistant = self.assistant(chat)
        return layered(config.options.request_options(),
                       assistant.temperature if assistant is not None else None, ChatOptions())

    def request_options(self, chat: ChatRef, config: ProviderConfig) -> RequestOptions:
        """The options the chat's next turn on ``config`` is sent with."""
        assistant = self.assistant(chat)
        return layered(config.options.request_options(),
                       assistant.temperature if assistant is not None else None,
                       self.options(chat))

    def temperature(self, chat: ChatRef) -> float | None:
        """The chat's own temperature, else its assistant's (None: the provider's)."""
        own = self.options(chat).temperature
        if own is not None:
            return own
        assistant = self.assistant(chat)
        return assistant.temperature if assistant is not None else None

    # -- provider and model --------------------------------------------------------------

    def provider(self, chat: ChatRef) -> ProviderConfig | None:
        """The chat's provider: its own when it still exists, else its assistant's,
        else its project's, else the one picked last (the top bar's default for new
        chats)."""
        known = {p.id: p for p in self.providers.all()}
        wanted: str | None
        if isinstance(chat, NewChat):
            wanted = chat.provider_id
        else:
            info = self.info(chat)
            wanted = info.provider_id if info is not None else None
        if wanted in known:
            return known[str(wanted)]
        assistant = self.assistant(chat)
        if assistant is not None and assistant.provider_id in known:
            return known[str(assistant.provider_id)]
        project = self.project(chat)
        if project is not None and project.provider_id in known:
            return known[str(project.provider_id)]
        return self.providers.active(self.settings.current)

    def model(self, chat: ChatRef) -> str:
        """The chat's model; for a chat on another provider than it was saved with,
        that provider's model."""
        config = self.provider(chat)
        if config is None:
            return ""
        if isinstance(chat, NewChat):
            if chat.model and chat.provider_id in (None, config.id):
                return chat.model
        else:
            info = self.info(chat)
            if info is not None and info.model and info.provider_id == config.id:
                return info.model
        assistant = self.assistant(chat)
        if assistant is not None and assistant.model and \
                assistant.provider_id in (None, config.id):
            return assistant.model
        project = self.project(chat)
        if project is not None and project.model and \
                project.provider_id in (None, config.id):
            return project.model
        return config.model

    def saved_extra(self, chat: NewChat) -> dict[str, object] | None:
        """What a new chat keeps in its session row's ``extra`` when it is saved."""
        extra: dict[str, object] = {}
        if chat.disabled_tools:
            extra[DISABLED_TOOLS_KEY] = list(chat.disabled_tools)
        if not chat.options.is_default():
            extra[CHAT_OPTIONS_KEY] = chat.options.to_json()
        if chat.knowledge:
            extra["knowledge"] = list(chat.knowledge)  # desktop.knowledge.chat_link
        if chat.disabled_skills:
            extra["disabled_skills"] = list(chat.disabled_skills)
        return extra or None

    # -- tool switches -------------------------------------------------------------------

    def project_tools(self, chat: ChatRef) -> tuple[str, ...] | None:
        """The tools the chat's project allows (None: no project, or no limit)."""
        project = self.project(chat)
        return project.tools if project is not None else None

    def disabled_tools(self, chat: ChatRef) -> list[str]:
        if isinstance(chat, NewChat):
            return list(chat.disabled_tools)
        info = self.info(chat)
        raw = (info.extra or {}).get(DISABLED_TOOLS_KEY) if info is not None else None
        return [str(n) for n in raw] if isinstance(raw, list) else []

    def set_disabled_tools(self, chat: ChatRef, names: list[str]) -> None:
        if isinstance(chat, NewChat):
            chat.disabled_tools = list(names)
            return
        info = self.info(chat)
        extra = dict(info.extra or {}) if info is not None else {}
        extra[DISABLED_TOOLS_KEY] = list(names)
        self.sessions.update_session(chat, extra=extra)
