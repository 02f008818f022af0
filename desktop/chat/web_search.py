"""Web search for a chat: the provider's own search where it has one, else the
``web_search`` tool on the search service chosen in Settings.

:func:`plan_web_search` decides per turn (the window's "Search the web" switch and
``assista ask --web`` alike); :func:`web_search_config` reads the service.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.errors import ConfigError
from desktop.providers.registry import wire_api
from desktop.providers.web_search import has_native_web_search
from desktop.tools.builtins.web_search import SERVICE_NAMES, WebSearchConfig

if TYPE_CHECKING:
    from collections.abc import Callable

    from desktop.core.provider_options import RequestOptions
    from desktop.core.services import KeyStore
    from desktop.core.settings import AppSettings, ProviderConfig

#: The key store entry of the search service's API key.
SECRET_ID = "web-search"


def web_search_config(secrets: Callable[[], KeyStore],
                      settings: AppSettings) -> WebSearchConfig | None:
    """The search service chosen in Settings (None: none chosen); ``secrets``: the key
    store, opened only when the service needs its key."""
    service = settings.web_search_service
    if not service:
        return None
    key = secrets().get(SECRET_ID) if service in ("brave", "tavily") else None
    return WebSearchConfig(service=service, url=settings.web_search_url, api_key=key)


def plan_web_search(secrets: Callable[[], KeyStore], settings: AppSettings, config: ProviderConfig,
                    request: RequestOptions, can_call_tools: bool, *,
                    has_tools: bool = False) -> tuple[RequestOptions, bool]:
    """The request options to send and whether the turn needs the ``web_search`` tool.

    Gemini refuses Google Search next to function declarations for many models ("Tool
    use with function calling is unsupported"): a Gemini turn that has tools uses the
    search service of Settings when there is one. Raises ConfigError with what to do
    when the chat wants the web and cannot have it.
    """
    if not request.web_search:
        return request, False
    service = web_search_config(secrets, settings)
    adapter = wire_api(config.kind)
    alongside_tools = adapter is None or adapter.web_search_with_tools
    if has_native_web_search(config.kind, config.base_url) and not (
            not alongside_tools and has_tools and service is not None):
        return request, False
    request = request.model_copy(update={"web_search": False})
    if service is None:
        raise ConfigError(
            f"{config.name} has no web search of its own: choose a search service "
            "(SearXNG, Brave or Tavily) in Settings, or turn off Search the web.",
            code="no_native_search", params={"provider": config.name})
    if (unusable := search_service_error(service)) is not None:
        raise unusable
    if not can_call_tools:
        raise ConfigError("This model cannot call tools, so it cannot search the web here; "
                          "pick a model with tools or turn off Search the web.",
                          code="search_needs_tools")
    return request, True


def search_service_error(service: WebSearchConfig) -> ConfigError | None:
    """Why the chosen search service cannot search, as an error with its code (None: it
    can)."""
    problem = service.problem()
    if problem is None:
        return None
    return ConfigError(problem, code=("search_needs_url" if service.service == "searxng"
                                      else "search_needs_key"),
                       params={"service": SERVICE_NAMES.get(service.service, service.service)})
