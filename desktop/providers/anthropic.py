"""The Anthropic Messages API provider (``POST /v1/messages`` with ``stream: true``).

The streaming lifecycle (retries of 429, 5xx and 529 overloaded before the first
byte, errors, cut streams) is the template's, in :mod:`desktop.providers.http_base`;
the body is built in ``anthropic_format`` and the stream parsed in ``anthropic_stream``
(which also reports a cut tool input).
"""

from __future__ import annotations

from typing import Any

import msgspec

from desktop.core.errors import ProviderError
from desktop.core.provider import ChatRequest, ModelCapabilities, ModelInfo
from desktop.core.provider_options import AnthropicOptions, CommonOptions
from desktop.providers.anthropic_format import ModelLimits, build_anthropic_body
from desktop.providers.anthropic_stream import AnthropicStreamParser
from desktop.providers.http_base import HttpProvider

__all__ = ["ANTHROPIC_VERSION", "AnthropicProvider", "ModelsPage", "parse_models_page"]

ANTHROPIC_VERSION = "2023-06-01"
MODELS_PAGE_LIMIT = 1000
MAX_MODEL_PAGES = 50


class AnthropicProvider(HttpProvider):
    """A :class:`desktop.core.provider.Provider` for Anthropic's Messages API.

    ``base_url`` is like ``https://api.anthropic.com`` (a trailing ``/v1`` is fine).
    ``options`` (:class:`AnthropicOptions`): ``thinking`` (true, or ``"adaptive"``),
    ``thinking_budget`` (tokens).
    ``headers`` are added last, so they can set ``anthropic-beta`` or override
    ``anthropic-version``.
    """

    kind = "anthropic"
    key_variable = "ANTHROPIC_API_KEY"
    native_web_search = True
    default_name = "Anthropic"
    path_prefix = "/v1"
    Options = AnthropicOptions
    options: AnthropicOptions

    @classmethod
    def quiet_request(cls, options: CommonOptions, request: ChatRequest, *, preset: str,
                      reasoning: bool, always: bool) -> CommonOptions:
        return options.model_copy(update={"thinking": False})  # (only when asked for)

    def _configure(self) -> None:
        self.base_url = self.base_url.removesuffix("/v1")
        self._limits: dict[str, ModelLimits] = {}  # learned from list_models()

    def _auth_headers(self) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        return headers

    def _stream_path(self, request: ChatRequest) -> str:
        return "/messages"

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        return build_anthropic_body(request, options=self.options,
                                    limits=self._limits.get(request.model),
                                    provider=self.name)  # fmt: skip

    def _parser(self, request: ChatRequest) -> AnthropicStreamParser:
        return AnthropicStreamParser(self.name, secrets=self._secrets)

    async def list_models(self) -> list[ModelInfo]:
        """Models from ``GET /v1/models`` (every page, newest first); raises ProviderError."""
        models: list[ModelInfo] = []
        after: str | None = None
        for _ in range(MAX_MODEL_PAGES):
            params = {"limit": str(MODELS_PAGE_LIMIT)}
            if after:
                params["after_id"] = after
            page = parse_models_page(await self._get_json("/models", params), self.name)
            models.extend(page.models)
            self._limits.update(page.limits)
            if not page.has_more or not page.last_id or page.last_id == after:
                break
            after = page.last_id
        return models


def _supported(capabilities: Any, *path: str) -> bool | None:
    node = capabilities
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    value = node.get("supported") if isinstance(node, dict) else None
    return value if isinstance(value, bool) else None


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


class ModelsPage(msgspec.Struct):
    """One page of ``GET /v1/models``; ``limits`` feed request building (max_tokens,
    which thinking types the model accepts)."""

    models: list[ModelInfo]
    limits: dict[str, ModelLimits]
    has_more: bool = False
    last_id: str | None = None


def parse_models_page(payload: Any, provider: str = "Anthropic") -> ModelsPage:
    items = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(payload, dict) or not isinstance(items, list):
        raise ProviderError(
            "unexpected response from /v1/models (no model list)", provider=provider,
            code="bad_response"
        )
    page = ModelsPage([], {}, payload.get("has_more") is True)
    last_id = payload.get("last_id")
    page.last_id = last_id if isinstance(last_id, str) and last_id else None
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"]:
            continue
        model_id: str = item["id"]
        caps = item.get("capabilities")
        name = item.get("display_name")
        context = _positive(item.get("max_input_tokens"))
        max_tokens = _positive(item.get("max_tokens"))
        page.models.append(
            ModelInfo(
                id=model_id,
                name=name if isinstance(name, str) and name and name != model_id else None,
                context_window=context,
                capabilities=ModelCapabilities(
                    tools=True,
                    vision=_supported(caps, "image_input"),
                    reasoning=_supported(caps, "thinking"),
                    max_output_tokens=max_tokens,
                    context_window=context,
                ),
            )
        )
        page.limits[model_id] = ModelLimits(
            max_tokens=max_tokens,
            thinking_enabled=_supported(caps, "thinking", "types", "enabled"),
            thinking_adaptive=_supported(caps, "thinking", "types", "adaptive"),
        )
    return page
