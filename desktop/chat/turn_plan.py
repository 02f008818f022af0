"""What the next turn of a chat is sent: provider, model, system prompt, tools, and
request options (temperature, max tokens, reasoning).

The one place a request is put together, for the window and for ``assista ask``
alike; the command line may only override what the user typed on it
(:class:`TurnOverrides`), never leave out a part of the chat's own setup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from desktop import chat as chat_features
from desktop import knowledge as knowledge_bases
from desktop.chat.chat_tools import (
    KNOWLEDGE_TOOL,
    REMEMBER_TOOL,
    SKILL_TOOL,
    WEB_TOOL,
    ChatTools,
    check_known,
)
from desktop.chat.memory_recall import recall_for_turn
from desktop.chat.profile import ChatProfiles, ChatRef, NewChat
from desktop.core.errors import ConfigError
from desktop.core.messages import ImagePart, Part
from desktop.core.prompt import with_memories

if TYPE_CHECKING:
    from desktop.chat.memory_recall import VectorRecall
    from desktop.core.provider_options import RequestOptions
    from desktop.core.settings import AppSettings, ProviderConfig
    from desktop.skills.format import Skill
    from desktop.storage.memories import MemoryStore
    from desktop.tools.approval import Policy


class ProviderMissing(ConfigError):
    """No provider is configured: the window opens the Providers dialog."""


class TurnOverrides(msgspec.Struct, weakref=True):
    """Choices made for one turn from outside the chat (the command line)."""

    config: ProviderConfig | None = None  # a provider given by --provider/--base-url
    model: str | None = None
    system: str | None = None  # replaces the assembled system prompt (--system)
    tools: list[str] | None = None  # exactly these tools (--tools)
    extra_tools: list[str] = msgspec.field(default_factory=list)  # added (--mcp-config, --allow)
    workspace: str | None = None
    policies: dict[str, Policy] = msgspec.field(default_factory=dict)
    knowledge: list[str] = msgspec.field(default_factory=list)  # knowledge bases (--knowledge)
    web_search: bool = False  # search the web this turn (--web)
    memory: bool = True  # read and write memories (off: --no-memory, --temporary)


class TurnPlan(msgspec.Struct, frozen=True):
    """Everything the next turn of a chat is sent with, put together once."""

    config: ProviderConfig
    model: str
    system: str | None
    temperature: float | None
    tools: tuple[str, ...]
    workspace: str | None
    # The provider's request defaults with the assistant's and the chat's own choices
    # over them (temperature, max tokens, reasoning): what every request is sent with.
    request: RequestOptions
    # Knowledge bases searched by the search_knowledge tool (the chat's, its assistant's).
    knowledge: tuple[str, ...] = ()
    # Memory: whether this turn reads and writes memories, and into which scope
    # (a project's id; None: global). The memories sent are in the system prompt.
    memory: bool = False
    memory_project: str | None = None
    memories: tuple[str, ...] = ()
    # The system prompt without the memories, the question they were chosen for, and
    # the embedding model that ranks them again by vectors when there are many.
    base_system: str | None = None
    question: str = ""
    recall: VectorRecall | None = None
    # The skills offered (listed in the system prompt, read by load_skill).
    skills: tuple[Skill, ...] = ()


def plan_turn(profiles: ChatProfiles, tools: ChatTools, settings: AppSettings,
              chat: ChatRef, attachments: Sequence[Part] = (), *, memories: MemoryStore,
              overrides: TurnOverrides | None = None, question: str = "") -> TurnPlan:
    """The request setup of ``chat``'s next turn; raises ConfigError (with a sentence
    for the user) when it cannot be sent. ``memories``: the memories it may be told."""
    o = overrides or TurnOverrides()
    config = o.config or profiles.provider(chat)
    if config is None:
        raise ProviderMissing("Add a provider to start chatting.", code="no_provider")
    model = o.model or (o.config.model if o.config is not None else profiles.model(chat))
    if not model:
        raise ConfigError(f"Choose a model for {config.name} first.", code="no_model",
                          params={"provider": config.name})
    caps = profiles.providers.capabilities(config, model)
    if any(isinstance(p, ImagePart) for p in attachments) and not caps.vision:
        raise ConfigError(
            f"{model} cannot see images. Pick a vision model, or turn on vision for "
            f"it in Providers if you know it supports images.", code="no_vision",
            params={"model": model})
    workspace = o.workspace or profiles.workspace(chat)
    if o.tools is not None:
        names = list(o.tools)
    else:
        disabled = set(profiles.disabled_tools(chat))
        allowed = profiles.project_tools(chat)  # None: every tool the app enables
        names = [n for n in tools.available(settings, workspace)
                 if n not in disabled and (allowed is None or n in allowed)]
    names += [n for n in o.extra_tools if n not in names]
    asked_remember = REMEMBER_TOOL in names  # (--allow remember, --tools remember)
    names = [n for n in names if n != REMEMBER_TOOL]  # made below when memory is on
    check_known(names, tools.registry())
    knowledge = tuple(dict.fromkeys([*o.knowledge,
                                     *knowledge_bases.chat_knowledge(profiles, chat)]))
    if knowledge and KNOWLEDGE_TOOL not in names:
        names.append(KNOWLEDGE_TOOL)  # made for this turn, bound to these bases
    request = profiles.request_options(chat, config)
    if o.web_search:
        request = request.model_copy(update={"web_search": True})
    request, web_tool = chat_features.plan_web_search(
        tools.secrets, settings, config, request, bool(caps.tools),
        has_tools=bool(names) and bool(caps.tools))
    if web_tool and WEB_TOOL not in names:
        names.append(WEB_TOOL)  # made for this turn, on the search service of Settings
    memory = memory_on(settings, chat, o)
    project = profiles.project_id(chat) if memory else None
    told: tuple[str, ...] = ()
    recall = None
    if memory:
        told = tuple(m.text for m in memories.for_chat(project, question))
        recall = recall_for_turn(profiles.providers, memories, project, knowledge,
                                 config.base_url)
        if asked_remember or (o.tools is None and
                              REMEMBER_TOOL not in profiles.disabled_tools(chat)):
            names.append(REMEMBER_TOOL)  # made for this turn, bound to its scope
    skills = _offered_skills(profiles, chat, o, names, workspace)
    if not caps.tools:
        names = []  # this model cannot call tools (or the user said so)
    if SKILL_TOOL not in names:
        skills = ()
    base = o.system if o.system is not None else profiles.system_prompt(
        chat, tuple(names), workspace=workspace, skills=skills)
    return TurnPlan(config=config, model=model, system=with_memories(base, told),
                    temperature=request.temperature, tools=tuple(names),
                    workspace=workspace, request=request, knowledge=knowledge,
                    memory=memory, memory_project=project, memories=told,
                    base_system=base, question=question, recall=recall, skills=skills)


def _offered_skills(profiles: ChatProfiles, chat: ChatRef, o: TurnOverrides,
                    names: list[str], workspace: str | None) -> tuple[Skill, ...]:
    """The skills the chat offers this turn (``load_skill`` added to ``names``)."""
    if (o.tools is not None and SKILL_TOOL not in o.tools) \
            or SKILL_TOOL in profiles.disabled_tools(chat):
        return ()
    skills = tuple(profiles.skills(chat, workspace))
    if skills and SKILL_TOOL not in names:
        names.append(SKILL_TOOL)  # made for this turn, bound to these skills
    return skills


def memory_on(settings: AppSettings, chat: ChatRef, overrides: TurnOverrides) -> bool:
    """Whether a turn reads and writes memories: memory not paused in Settings, not
    turned off for this turn, and not a temporary chat."""
    return settings.memory_enabled and overrides.memory and not (
        isinstance(chat, NewChat) and chat.temporary)
