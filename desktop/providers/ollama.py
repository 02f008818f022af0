"""The Ollama native API provider: ``POST /api/chat`` streamed as NDJSON, the model
list from ``GET /api/tags`` (+ ``POST /api/show``), and ``OLLAMA_HOST`` parsing.

Bodies are built in ``ollama_format``, lines parsed in ``ollama_stream``; the
streaming lifecycle is the template's, in :mod:`desktop.providers.http_base`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx
import msgspec

from desktop.core.errors import ProviderError
from desktop.core.provider import ChatRequest, ModelCapabilities, ModelInfo
from desktop.core.provider_options import CommonOptions, OllamaOptions
from desktop.providers.embedding import Embeds, floats
from desktop.providers.http_base import HttpProvider
from desktop.providers.http_errors import (
    describe_error_body,
    describe_transport_error,
)
from desktop.providers.ollama_format import build_ollama_body
from desktop.providers.ollama_stream import OllamaStreamParser, count_of
from desktop.providers.retry import RetryPolicy
from desktop.providers.wire import NDJSON

__all__ = ["DEFAULT_URL", "OllamaProvider", "ollama_host", "parse_tags", "preferred_model"]

log = logging.getLogger(__name__)

DEFAULT_URL = "http://localhost:11434"
DEFAULT_PORT = 11434
SHOW_TIMEOUT_S = 10.0
SHOW_CONCURRENCY = 4
SHOW_MAX_MODELS = 64  # beyond this, capabilities stay unknown rather than 64+ requests
_SUFFIX = re.compile(r"(?i)/(api|v1)$")


class OllamaProvider(Embeds, HttpProvider):
    """A :class:`desktop.core.provider.Provider` for Ollama (local, or ollama.com with a key).

    ``options`` (:class:`OllamaOptions`): ``think`` (bool or ``"low"|"medium"|"high"|
    "max"``), ``keep_alive`` (``"5m"``, seconds, ``-1``), ``num_ctx`` and
    ``model_options`` (any Modelfile parameter, e.g. ``{"top_k": 20}``). ``api_key`` is
    sent as a Bearer token.
    """

    kind = "ollama"
    key_variable = "OLLAMA_API_KEY"
    embedding_kind = "ollama"
    default_name = "Ollama"
    default_timeout = 300.0  # a local model may load for minutes before its first token
    wire = NDJSON
    Options = OllamaOptions
    options: OllamaOptions

    @classmethod
    def quiet_request(cls, options: CommonOptions, request: ChatRequest, *, preset: str,
                      reasoning: bool, always: bool) -> CommonOptions:
        if not reasoning:
            return options
        return options.model_copy(update={"think": "low" if always else False})

    def _configure(self) -> None:
        self.base_url = _SUFFIX.sub("", self.base_url).rstrip("/")

    def _stream_path(self, request: ChatRequest) -> str:
        return "/api/chat"

    def _embedding_request(self, model: str, texts: Sequence[str]
                           ) -> tuple[str, dict[str, Any]]:
        return "/api/embed", {"model": model, "input": list(texts)}

    def _embedding_vectors(self, data: Any) -> list[list[float]]:
        return [floats(v) for v in data["embeddings"]]

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        return build_ollama_body(request, self.options)

    def _parser(self, request: ChatRequest) -> OllamaStreamParser:
        return OllamaStreamParser(self.name, secrets=self._secrets)

    async def list_models(self) -> list[ModelInfo]:
        """Chat models from ``GET /api/tags``, sorted by name; raises ProviderError.

        Capabilities (tools, vision, thinking, context length) come from one
        ``POST /api/show`` per model, a few at a time; a model whose details cannot
        be read keeps unknown capabilities. Embedding-only models are left out.
        """
        models = parse_tags(await self._get_json("/api/tags"), self.name)
        if len(models) <= SHOW_MAX_MODELS:
            limit = asyncio.Semaphore(SHOW_CONCURRENCY)
            shown = await asyncio.gather(*(self._show(m.id, limit) for m in models))
            pairs = zip(models, shown, strict=True)
            models = [msgspec.structs.replace(m, capabilities=_capabilities(s))
                      for m, s in pairs if _can_chat(s)]
        return sorted(models, key=lambda m: m.id)

    async def _show(self, model: str, limit: asyncio.Semaphore) -> Any:
        async with limit:
            try:
                return await self._get_json("/api/show", body={"model": model},
                                            retry=RetryPolicy.disabled(),
                                            timeout=SHOW_TIMEOUT_S)  # fmt: skip
            except ProviderError as exc:
                log.info("%s: no details for %s: %s", self.name, model, exc)
                return None

    def _describe(self, exc: Exception, *, streaming: bool) -> tuple[str, str]:
        if not streaming and _refused(exc):
            message = (f"Ollama is not running at {self.base_url} (connection refused); "
                       "start the Ollama app or run `ollama serve`")  # fmt: skip
            return self._redact(message), "connection_error"
        message, code = describe_transport_error(exc, self.base_url, self.timeout,
                                                 streaming=streaming)  # fmt: skip
        return self._redact(message), code

    def _status_message(
        self, response: httpx.Response, body: bytes, model: str | None = None
    ) -> tuple[str, str | None]:
        status = response.status_code
        if status == 404 and model:  # Ollama: {"error": "model 'x' not found"}
            content_type = response.headers.get("content-type", "")
            message, code = describe_error_body(body, content_type, secrets=self._secrets)
            if message.startswith("model") and "not found" in message:
                return self._redact(f"{message} (run `ollama pull {model}`)"), code
        return super()._status_message(response, body, model)


def _refused(exc: BaseException | None) -> bool:
    """Whether a connect failure was "connection refused": nothing listens there."""
    while exc is not None:
        if isinstance(exc, ConnectionRefusedError):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


# ---------------------------------------------------------------- models and hosts


def _tag_entries(payload: Any, provider: str) -> list[tuple[str, dict[str, Any]]]:
    """``(name, details)`` of each model in a ``GET /api/tags`` answer, in its order."""
    models = payload.get("models") if isinstance(payload, dict) else None
    if not isinstance(models, list):
        raise ProviderError("unexpected response from /api/tags (no model list); is this Ollama?",
                            provider=provider, code="bad_response")  # fmt: skip
    entries: list[tuple[str, dict[str, Any]]] = []
    for item in models:
        name = (item.get("name") or item.get("model")) if isinstance(item, dict) else None
        if isinstance(name, str) and name:
            details = item.get("details")
            entries.append((name, details if isinstance(details, dict) else {}))
    return entries


def parse_tags(payload: Any, provider: str) -> list[ModelInfo]:
    """Models of a ``GET /api/tags`` answer; the name shows family, size and quantization."""
    models: list[ModelInfo] = []
    for model_id, details in _tag_entries(payload, provider):
        facts = [details.get(k) for k in ("family", "parameter_size", "quantization_level")]
        shown = ", ".join(f for f in facts if isinstance(f, str) and f)
        models.append(ModelInfo(id=model_id, name=f"{model_id} ({shown})" if shown else None))
    return models


def preferred_model(payload: Any) -> str:
    """The model a detected Ollama starts with: the first that looks like a chat model."""
    entries = _tag_entries(payload, "Ollama")
    for name, details in entries:  # embedding models: nomic-embed-text (nomic-bert), bge...
        if "embed" not in name.lower() and not str(details.get("family", "")).endswith("bert"):
            return name
    return entries[0][0] if entries else ""


def _can_chat(show: Any) -> bool:
    caps = show.get("capabilities") if isinstance(show, dict) else None
    return not isinstance(caps, list) or not caps or "completion" in caps


def _capabilities(show: Any) -> ModelCapabilities | None:
    """Tools / vision / thinking from ``/api/show`` (Ollama 0.6.4+), context from model_info."""
    if not isinstance(show, dict):
        return None
    info = show.get("model_info")
    info = info if isinstance(info, dict) else {}
    context = count_of(info.get(f"{info.get('general.architecture')}.context_length"))
    caps = show.get("capabilities")
    if not isinstance(caps, list):
        return ModelCapabilities(context_window=context) if context else None
    return ModelCapabilities(tools="tools" in caps, vision="vision" in caps,
                             reasoning="thinking" in caps, context_window=context)  # fmt: skip


def ollama_host(value: str | None) -> str:
    """The base URL for an ``OLLAMA_HOST`` value, read the way Ollama reads it.

    ``host``, ``host:port``, ``:port`` or ``scheme://host[:port][/path]``: no scheme
    means http on port 11434, ``http://`` without a port means 80 (``https``: 443).
    A bind-all address (``0.0.0.0``, ``::``) means this machine: ``localhost``.
    """
    text = (value or "").strip()
    if not text:
        return DEFAULT_URL
    if text == "ollama.com":
        return "https://ollama.com"
    scheme, sep, rest = text.partition("://")
    scheme, rest = (scheme.lower(), rest) if sep else ("http", text)
    default_port = {"http": 80, "https": 443}.get(scheme, DEFAULT_PORT) if sep else DEFAULT_PORT
    hostport, _, path = rest.partition("/")
    host: str | None
    port: int | None = None
    try:
        host = str(ipaddress.ip_address(hostport.strip("[]")))  # a bare IP, v4 or v6
    except ValueError:
        split = urlsplit(f"//{hostport}")
        host = split.hostname
        try:
            port = split.port
        except ValueError:  # not a number, or out of range: the default, as Ollama does
            port = None
    if not host or host in ("0.0.0.0", "::"):  # bind-all: this machine
        host = "localhost"
    elif ":" in host:
        host = f"[{host}]"
    port = port or default_port
    shown_port = "" if (scheme, port) in (("http", 80), ("https", 443)) else f":{port}"
    path = path.strip("/")
    return f"{scheme}://{host}{shown_port}{'/' + path if path else ''}"
