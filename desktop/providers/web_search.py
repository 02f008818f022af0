"""Which wire APIs search the web themselves, and what they are sent for it.

Verified against each provider's documentation: OpenAI Responses takes the hosted tool
``{"type": "web_search"}``; Anthropic the server tool ``web_search_20250305`` (named
``web_search``, ``max_uses`` caps the searches of one request); Gemini the
``google_search`` tool (``googleSearch`` in proto JSON, which the API accepts as well);
OpenRouter's chat completions the ``plugins: [{"id": "web"}]`` plugin. Other
OpenAI-compatible servers and Ollama have no search of their own: the app gives their
models the ``web_search`` tool backed by the search service chosen in Settings.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from desktop.providers.registry import wire_api

#: Searches one Anthropic request may make (each is billed).
ANTHROPIC_MAX_USES = 5


def is_openrouter(base_url: str) -> bool:
    host = (urlsplit(base_url).hostname or "").lower()
    return host == "openrouter.ai" or host.endswith(".openrouter.ai")


def has_native_web_search(kind: str, base_url: str) -> bool:
    """The adapter of ``kind`` says (``native_web_search``, ``searches_web``)."""
    adapter = wire_api(kind)
    return adapter is not None and adapter.searches_web(base_url)


def responses_tool() -> dict[str, Any]:
    return {"type": "web_search"}


def anthropic_tool() -> dict[str, Any]:
    return {"type": "web_search_20250305", "name": "web_search", "max_uses": ANTHROPIC_MAX_USES}


def openrouter_plugins() -> list[dict[str, Any]]:
    return [{"id": "web"}]
