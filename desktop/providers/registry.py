"""The wire APIs, built from their adapter classes.

Everything the app knows about a wire API is on its adapter class (a subclass of
:class:`~desktop.providers.http_base.HttpProvider`): ``kind``, its options model
``Options`` (which also tells the provider form which thinking controls to show),
``key_variable`` (the curl command's key), ``native_web_search`` / ``searches_web``,
``embedding_kind`` and ``embed``. Every consumer (the factory, the options of a
stored config, the request inspector, the provider form, web search, the knowledge
bases' embeddings) looks the class up here, so a new wire API is its own module plus
one line in :data:`ADAPTERS`.

The modules are imported on the first look-up (httpx and the adapters are slow to
import: never before the window's first frame).
"""

from __future__ import annotations

import importlib
import re
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop.providers.http_base import HttpProvider

__all__ = ["ADAPTERS", "embedding_adapter", "key_variable", "register", "unregister",
           "wire_api", "wire_apis"]

#: One line per wire API: ``module:Class`` of its adapter.
ADAPTERS: tuple[str, ...] = (
    "desktop.providers.openai_chat:OpenAIChatProvider",
    "desktop.providers.openai_responses:OpenAIResponsesProvider",
    "desktop.providers.anthropic:AnthropicProvider",
    "desktop.providers.gemini:GeminiProvider",
    "desktop.providers.ollama:OllamaProvider",
)

_classes: dict[str, type[HttpProvider]] = {}
_loaded = False
_lock = threading.Lock()  # (indexing looks adapters up from a worker thread)


def register(cls: type[HttpProvider]) -> type[HttpProvider]:
    """Make ``cls`` known by its ``kind`` (usable as a class decorator)."""
    if not cls.kind:
        raise ValueError(f"{cls.__name__} has no kind")
    with _lock:
        _classes[cls.kind] = cls
    return cls


def unregister(kind: str) -> None:
    """Forget a class given to :func:`register` (a test's, or a plug-in's)."""
    with _lock:
        _classes.pop(kind, None)


def wire_apis() -> dict[str, type[HttpProvider]]:
    """Every known wire API by kind, in registration order."""
    global _loaded
    if not _loaded:
        with _lock:
            if not _loaded:
                found: dict[str, type[HttpProvider]] = {}
                for path in ADAPTERS:
                    module_name, _, class_name = path.partition(":")
                    cls = getattr(importlib.import_module(module_name), class_name)
                    found[cls.kind] = cls
                merged = {**found, **_classes}  # (a class registered first wins)
                _classes.clear()
                _classes.update(merged)
                _loaded = True
    return dict(_classes)


def wire_api(kind: str) -> type[HttpProvider] | None:
    return wire_apis().get(kind)


def key_variable(kind: str) -> str:
    """The environment variable named for a kind's key (``OPENAI_API_KEY``)."""
    cls = wire_api(kind)
    return (cls.key_variable if cls is not None and cls.key_variable else
            re.sub(r"[^A-Z0-9]+", "_", kind.upper()) + "_API_KEY")


def embedding_adapter(kind: str) -> type[HttpProvider] | None:
    """The adapter whose ``embed`` serves a provider of ``kind`` (None: its servers do
    not embed). An embedding kind (``openai``, ``ollama``, ``gemini``) gives itself."""
    cls = wire_api(kind)
    if cls is None or cls.embedding_kind is None:
        return None
    return wire_api(cls.embedding_kind)
