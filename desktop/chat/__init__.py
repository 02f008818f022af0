"""The chat service: assembles and runs the turns of every chat (Qt-free).

:class:`desktop.chat.service.ChatService` is built once by the entry point and used
by the window (through a thin Qt adapter) and by ``assista ask``. Modules:

- ``profile``: what a chat answers as (provider, model, assistant, prompt, tools);
- ``chat_settings``: changing those per chat;
- ``chat_tools``: which tools a chat gets, MCP servers, the unknown-tool check;
- ``turn_plan``: the one place the next request of a chat is put together;
- ``turn_runner``: the one place a turn is built, run and ended (chats and compare);
- ``running``: a turn in progress, its event log and observers;
- ``approvals``: tool calls of any chat waiting for the user;
- ``limiter``: how many requests one provider streams at once;
- ``events``: what observers are told besides the agent loop's events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.lazy import lazy_names

if TYPE_CHECKING:
    from desktop.chat.compare import CompareRunner
    from desktop.chat.inspector_service import InspectorService
    from desktop.chat.model_catalog import ModelCatalog
    from desktop.chat.research.gather import Gatherer
    from desktop.chat.research.start import ResearchJob
    from desktop.chat.title_request import title_call, title_complete
    from desktop.chat.titling import ChatTitler
    from desktop.chat.turn_undo import TurnUndo
    from desktop.chat.usage import usage_by_model
    from desktop.chat.voice import VoiceService, system_voice
    from desktop.chat.web_search import plan_web_search, search_service_error, web_search_config

#: The chats' features loaded when first used, not on the way to the window (web search,
#: the request inspector, undo, voice, usage, the model catalog, a research run), nor
#: before a question typed while it loads is sent (compare, the model-written titles and
#: the request asking for one): callers import this package at their top (``from
#: desktop import chat``) and use ``chat.VoiceService`` and so on where needed.
_LAZY: dict[str, str] = {
    "ChatTitler": "desktop.chat.titling",
    "CompareRunner": "desktop.chat.compare",
    "Gatherer": "desktop.chat.research.gather",
    "InspectorService": "desktop.chat.inspector_service",
    "ModelCatalog": "desktop.chat.model_catalog",
    "ResearchJob": "desktop.chat.research.start",
    "TurnUndo": "desktop.chat.turn_undo",
    "VoiceService": "desktop.chat.voice",
    **dict.fromkeys(["plan_web_search", "search_service_error", "web_search_config"],
                    "desktop.chat.web_search"),
    "system_voice": "desktop.chat.voice",
    **dict.fromkeys(["title_call", "title_complete"], "desktop.chat.title_request"),
    "usage_by_model": "desktop.chat.usage",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


__all__ = [
    "ChatTitler",
    "CompareRunner",
    "Gatherer",
    "InspectorService",
    "ModelCatalog",
    "ResearchJob",
    "TurnUndo",
    "VoiceService",
    "plan_web_search",
    "search_service_error",
    "system_voice",
    "title_call",
    "title_complete",
    "usage_by_model",
    "web_search_config",
]
