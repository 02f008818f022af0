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

#: Searches one Anthropic request may make (each is billed).
ANTHROPIC_MAX_USES = 5
NATIVE_KINDS = frozenset({"openai-responses", "anthropic", "gemini"})


def is_openrouter(base_url: str) -> bool:
    host = (urlsplit(base_url).hostname or "").lower()
    return host == "openrouter.ai" or host.endswith(".openrouter.ai")


def has_native_web_search(kind: str, base_url: str) -> bool:
    return kind in NATIVE_KINDS or (kind == "openai" and is_openrouter(base_url))


def responses_tool() -> dict[str, Any]:
    return {"type": "web_search"}


def anthropic_tool() -> dict[str, Any]:
    return {"type": "web_search_20250305", "name": "web_search", "max_uses": ANTHROPIC_MAX_USES}


def openrouter_plugins() -> list[dict[str, Any]]:
    return [{"id": "web"}]
