"""Google Gemini through the Generative Language API (``generativelanguage.googleapis.com``).

``POST {base_url}/models/{model}:streamGenerateContent?alt=sse`` streams one
``GenerateContentResponse`` per SSE event; ``GET {base_url}/models`` lists models
(paged with ``pageToken``). The API key travels in the ``x-goog-api-key`` header,
never in the URL, so no logged URL can leak it. Request bodies are built in
:mod:`desktop.providers.gemini_format`, the stream parsed in
:mod:`desktop.providers.gemini_stream`.

The streaming lifecycle (429 and 5xx retried before the stream starts, never after;
errors; cut streams) is the template's, in :mod:`desktop.providers.http_base`. A
blocked prompt or answer is an error the parser reports.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar
from urllib.parse import quote

import httpx

from desktop.core.errors import ProviderError
from desktop.core.provider import ChatRequest, ModelCapabilities, ModelInfo
from desktop.core.provider_options import CommonOptions, GeminiOptions
from desktop.providers.embedding import Embeds, floats, gemini_model
from desktop.providers.gemini_format import build_gemini_body
from desktop.providers.gemini_stream import GeminiStreamParser
from desktop.providers.http_base import ERROR_BODY_LIMIT, HttpProvider

__all__ = ["DEFAULT_URL", "GeminiProvider", "model_path", "parse_models_page"]

DEFAULT_URL = "https://generativelanguage.googleapis.com/v1beta"
MODELS_PAGE_SIZE = 1000
MAX_MODEL_PAGES = 20


def model_path(model: str) -> str:
    """``gemini-2.5-flash`` -> ``models/gemini-2.5-flash``; ``models/x`` and
    ``tunedModels/x`` are kept as they are. Unsafe characters are escaped."""
    model = model.strip().strip("/")
    if "/" not in model:
        model = f"models/{model}"
    return quote(model, safe="/-._~")


class GeminiProvider(Embeds, HttpProvider):
    """A :class:`desktop.core.provider.Provider` for the Gemini API.

    ``options`` (:class:`GeminiOptions`): ``thinking_level``, ``include_thoughts``,
    ``google_search`` (see
    :func:`~desktop.providers.gemini_format.build_gemini_body`).
    """

    kind = "gemini"
    key_variable = "GEMINI_API_KEY"
    native_web_search = True
    web_search_with_tools = False  # "Tool use with function calling is unsupported"
    embedding_kind = "gemini"
    default_name = "Google Gemini"
    Options = GeminiOptions
    options: GeminiOptions
    stream_params: ClassVar[Mapping[str, str]] = MappingProxyType({"alt": "sse"})

    @classmethod
    def quiet_request(cls, options: CommonOptions, request: ChatRequest, *, preset: str,
                      reasoning: bool, always: bool) -> CommonOptions:
        if not reasoning:
            return options
        if "gemini-3" in request.model:  # levels only; "low" is the least Gemini 3 takes
            return options.model_copy(update={"thinking_level": "low",
                                              "include_thoughts": False})
        # a budget: 0 is off, 128 the least 2.5 Pro accepts
        request.reasoning_budget = 128 if always else 0
        return options.model_copy(update={"thinking_level": None, "include_thoughts": False})

    def _auth_headers(self) -> dict[str, str]:
        return {"x-goog-api-key": self._api_key} if self._api_key else {}

    def _stream_path(self, request: ChatRequest) -> str:
        return f"/{model_path(request.model)}:streamGenerateContent"

    def _embedding_request(self, model: str, texts: Sequence[str]
                           ) -> tuple[str, dict[str, Any]]:
        name = gemini_model(model)
        return f"/{name}:batchEmbedContents", {"requests": [
            {"model": name, "content": {"parts": [{"text": t}]}} for t in texts]}

    def _embedding_vectors(self, data: Any) -> list[list[float]]:
        return [floats(e["values"]) for e in data["embeddings"]]

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        return build_gemini_body(request, self.options)

    def _parser(self, request: ChatRequest) -> GeminiStreamParser:
        return GeminiStreamParser(self.name, secrets=self._secrets)

    async def list_models(self) -> list[ModelInfo]:
        """Models that can ``generateContent``, sorted by id; raises ProviderError."""
        models: dict[str, ModelInfo] = {}
        token: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_MODEL_PAGES):
            params = {"pageSize": str(MODELS_PAGE_SIZE)}
            if token:
                params["pageToken"] = token
            page, token = parse_models_page(await self._get_json("/models", params), self.name)
            models.update((m.id, m) for m in page)
            if not token or token in seen:
                break
            seen.add(token)
        return [models[key] for key in sorted(models)]

    def _status_message(
        self, response: httpx.Response, body: bytes, model: str | None = None
    ) -> tuple[str, str | None]:
        """The message of ``{"error": {"code", "message", "status"}}`` (or an HTML page);
        the code is Google's ``status`` (``INVALID_ARGUMENT``, ``RESOURCE_EXHAUSTED``...)."""
        message, code = super()._status_message(response, body, model)
        if 300 <= response.status_code < 400:
            return message, code
        return message, _google_status(body) or code


def _google_status(body: bytes) -> str | None:
    """``error.status`` of a Google error body (also in the ``[{"error": ...}]`` form)."""
    try:
        data = json.loads(body[:ERROR_BODY_LIMIT])
    except ValueError:
        return None
    if isinstance(data, list) and data:
        data = data[0]
    error = data.get("error") if isinstance(data, dict) else None
    status = error.get("status") if isinstance(error, dict) else None
    return status if isinstance(status, str) and status else None


def _positive(value: Any) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value > 0
    return value if ok else None


def parse_models_page(payload: Any, provider: str) -> tuple[list[ModelInfo], str | None]:
    """``(models, next_page_token)`` of one ``models.list`` page.

    Only models whose ``supportedGenerationMethods`` include ``generateContent``;
    ids lose their ``models/`` prefix; token limits and ``thinking`` fill the
    capabilities (tools and vision are not reported, so they stay unknown).
    """
    if not isinstance(payload, dict) or not isinstance(payload.get("models", []), list):
        raise ProviderError("unexpected response from /models (no model list)", provider=provider,
                            code="bad_response")
    models: list[ModelInfo] = []
    for item in payload.get("models", []):
        if not isinstance(item, dict):
            continue
        methods = item.get("supportedGenerationMethods")
        name = item.get("name")
        if not isinstance(methods, list) or "generateContent" not in methods:
            continue
        if not isinstance(name, str) or not name:
            continue
        model_id = name.removeprefix("models/")
        display = item.get("displayName")
        context = _positive(item.get("inputTokenLimit"))
        thinking = item.get("thinking")
        capabilities = ModelCapabilities(
            reasoning=thinking if isinstance(thinking, bool) else None,
            max_output_tokens=_positive(item.get("outputTokenLimit")),
            context_window=context,
        )
        models.append(
            ModelInfo(
                id=model_id,
                name=display if isinstance(display, str) and display != model_id else None,
                context_window=context,
                owned_by="google",
                capabilities=capabilities,
            )
        )
    token = payload.get("nextPageToken")
    return models, token if isinstance(token, str) and token else None
