"""The OpenAI-compatible Chat Completions provider (OpenAI, OpenRouter, LM Studio, ...).

The streaming lifecycle (retries, errors, cut streams) is the template's, in
:mod:`desktop.providers.http_base`; this module names the path, the body builder
(``openai_chat_format``) and the parser (``openai_chat_stream``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import Any

from desktop import providers
from desktop.core.errors import ProviderError
from desktop.core.events import StreamEvent
from desktop.core.images import uses_images_api
from desktop.core.provider import ChatRequest, ModelInfo
from desktop.core.provider_options import CommonOptions
from desktop.providers.embedding import Embeds, floats
from desktop.providers.http_base import HttpProvider, Sending
from desktop.providers.openai_chat_format import build_openai_chat_body
from desktop.providers.openai_chat_stream import OpenAIChatStreamParser
from desktop.providers.sse import ServerSentEvent
from desktop.providers.stream_parser import StreamParser
from desktop.providers.web_search import is_openrouter

__all__ = ["OpenAIChatProvider", "parse_models"]


class OpenAIChatProvider(Embeds, HttpProvider):
    """A :class:`desktop.core.provider.Provider` for ``POST {base_url}/chat/completions``."""

    kind = "openai"
    key_variable = "OPENAI_API_KEY"
    embedding_kind = "openai"
    default_name = "OpenAI-compatible"

    @classmethod
    def searches_web(cls, base_url: str) -> bool:
        return cls.native_web_search or is_openrouter(base_url)  # (OpenRouter's plugin)

    @classmethod
    def quiet_request(cls, options: CommonOptions, request: ChatRequest, *, preset: str,
                      reasoning: bool, always: bool) -> CommonOptions:
        if always and preset == "openai":
            # OpenAI's reasoning models: their own cap and effort fields on Chat Completions.
            request.extra = {"max_completion_tokens": request.max_tokens,
                             "reasoning_effort": "low"}
            request.max_tokens = None
        return options

    def _embedding_request(self, model: str, texts: Sequence[str]
                           ) -> tuple[str, dict[str, Any]]:
        return "/embeddings", {"model": model, "input": list(texts)}

    def _embedding_vectors(self, data: Any) -> list[list[float]]:
        ordered = sorted(data["data"], key=lambda item: item.get("index", 0))
        return [floats(item["embedding"]) for item in ordered]

    def _stream_path(self, request: ChatRequest) -> str:
        return "/chat/completions"

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        return build_openai_chat_body(request)

    def _parser(self, request: ChatRequest) -> StreamParser[ServerSentEvent]:
        return OpenAIChatStreamParser(self.name, secrets=self._secrets)

    def events(self, request: ChatRequest, sending: Sending | None = None
               ) -> AsyncGenerator[StreamEvent, None]:
        """An Images API model (``gpt-image-1``, ``dall-e-3``) answers through
        ``/images/generations`` (:mod:`desktop.providers.images_api`)."""
        if uses_images_api(request.model):
            return providers.image_stream(self, request)
        return super().events(request, sending)  # (as it is: no layer per event)

    async def list_models(self) -> list[ModelInfo]:
        """Models from ``GET {base_url}/models``, sorted by id; raises ProviderError."""
        return parse_models(await self._get_json("/models"), self.name)


def _first_int(item: dict[str, Any], *keys: str) -> int | None:
    for key in keys:
        value = item.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def parse_models(payload: Any, provider: str) -> list[ModelInfo]:
    items = payload
    if isinstance(payload, dict):
        items = payload.get("data", payload.get("models"))
    if not isinstance(items, list):
        raise ProviderError("unexpected response from /models (no model list)", provider=provider,
                            code="bad_response")
    models: dict[str, ModelInfo] = {}
    for entry in items:
        item = {"id": entry} if isinstance(entry, str) else entry
        if not isinstance(item, dict):
            continue
        model_id = item.get("id") or item.get("model") or item.get("name")
        if not isinstance(model_id, str) or not model_id:
            continue
        name = item.get("name")
        owner = item.get("owned_by")
        models[model_id] = ModelInfo(
            id=model_id,
            name=name if isinstance(name, str) and name != model_id else None,
            context_window=_first_int(
                item, "context_length", "context_window", "max_model_len", "max_context_length"
            ),
            owned_by=owner if isinstance(owner, str) else None,
        )
    return [models[key] for key in sorted(models)]
