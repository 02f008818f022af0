"""The Ollama native API provider: ``POST /api/chat`` streamed as NDJSON, the model
list from ``GET /api/tags`` (+ ``POST /api/show``), and ``OLLAMA_HOST`` parsing.

The wire format (bodies, stream parsing) lives in ``ollama_format``. As in
``openai_chat``, ``stream()`` never raises for provider failures: the last event is
exactly one EndEvent or ErrorEvent; only ``asyncio.CancelledError`` propagates.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import re
from collections.abc import AsyncGenerator, Callable, Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

import httpx

from desktop.core.errors import ProviderError
from desktop.core.events import ErrorEvent, StreamEvent
from desktop.core.provider import ChatRequest, ModelCapabilities, ModelInfo
from desktop.providers.http_base import HttpProvider
from desktop.providers.http_errors import (
    describe_error_body,
    describe_status,
    describe_transport_error,
)
from desktop.providers.http_stream import DRAIN_TIMEOUT_S, drain
from desktop.providers.ndjson import NDJSONDecoder, NDJSONError
from desktop.providers.ollama_format import OllamaStreamParser, build_chat_body, count_of
from desktop.providers.retry import (
    USER_AGENT,
    RetryPolicy,
    is_retryable_status,
    send_with_retry,
)

__all__ = ["DEFAULT_URL", "OllamaProvider", "ollama_host", "parse_tags", "preferred_model"]

log = logging.getLogger(__name__)

DEFAULT_URL = "http://localhost:11434"
DEFAULT_PORT = 11434
SHOW_TIMEOUT_S = 10.0
SHOW_CONCURRENCY = 4
SHOW_MAX_MODELS = 64  # beyond this, capabilities stay unknown rather than 64+ requests
_SUFFIX = re.compile(r"(?i)/(api|v1)$")


class OllamaProvider(HttpProvider):
    """A :class:`desktop.core.provider.Provider` for Ollama (local, or ollama.com with a key).

    ``options``: ``think`` (bool or ``"low"|"medium"|"high"|"max"``), ``keep_alive``
    (``"5m"``, seconds, ``-1``), ``num_ctx`` and ``model_options`` (any Modelfile
    parameter, e.g. ``{"top_k": 20}``). ``api_key`` is sent as a Bearer token.
    """

    supports_tools: bool = True
    supports_reasoning: bool = True

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        name: str = "Ollama",
        headers: Mapping[str, str] | None = None,
        timeout: float = 300.0,
        retry: RetryPolicy | None = None,
        client: httpx.AsyncClient | None = None,
        on_retry: Callable[[int, float, str], None] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(base_url, api_key, name=name, headers=headers, timeout=timeout,
                         retry=retry, client=client, on_retry=on_retry, options=options)
        self.base_url = _SUFFIX.sub("", self.base_url).rstrip("/")

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamEvent, None]:
        """Yield normalized events; the last one is an EndEvent or an ErrorEvent."""
        opened = await self._open(request)
        if isinstance(opened, ErrorEvent):
            yield opened
            return
        response = opened
        parser = OllamaStreamParser(self.name, secrets=self._secrets)
        events: list[StreamEvent]
        try:
            if not 200 <= response.status_code < 300:
                events = [await self._model_status_error(response, request.model)]
            elif "html" in response.headers.get("content-type", ""):
                snippet, _ = describe_error_body(await self._read_body(response), "text/html")
                message = f"expected a stream but got a web page ({snippet}); check the base URL"
                events = parser.error(message, "unexpected_content")
            else:
                decoder = NDJSONDecoder()
                chunks = response.aiter_bytes()
                try:
                    async for chunk in chunks:
                        for line in decoder.feed(chunk):
                            for event in parser.feed(line):
                                yield event
                            if parser.closed:
                                return
                    events = _end_of_stream(decoder, parser)
                except NDJSONError as exc:
                    events = parser.error(f"malformed stream data: {exc.line[:120]!r}",
                                          "malformed_stream")  # fmt: skip
                except httpx.HTTPError as exc:  # mid-stream: never retried
                    events = parser.error(*self._describe(exc, streaming=True))
                finally:
                    await drain(chunks, DRAIN_TIMEOUT_S if parser.done else 0.0)
        except Exception as exc:  # a bug or an unexpected failure: report, don't crash the UI
            log.exception("%s: stream failed", self.name)
            events = parser.error(self._redact(f"unexpected error: {exc}"), "internal_error")
        finally:
            await response.aclose()
        for event in events:
            yield event

    async def list_models(self) -> list[ModelInfo]:
        """Chat models from ``GET /api/tags``, sorted by name; raises ProviderError.

        Capabilities (tools, vision, thinking, context length) come from one
        ``POST /api/show`` per model, a few at a time; a model whose details cannot
        be read keeps unknown capabilities. Embedding-only models are left out.
        """
        models = parse_tags(await self._get_json("/api/tags", None, self.retry), self.name)
        if len(models) <= SHOW_MAX_MODELS:
            limit = asyncio.Semaphore(SHOW_CONCURRENCY)
            shown = await asyncio.gather(*(self._show(m.id, limit) for m in models))
            pairs = zip(models, shown, strict=True)
            models = [replace(m, capabilities=_capabilities(s)) for m, s in pairs if _can_chat(s)]
        return sorted(models, key=lambda m: m.id)

    # -- internals

    def _error_event(self, message: str, code: str | None, status: int | None = None) -> ErrorEvent:
        text = str(ProviderError(message, provider=self.name, status=status))
        return ErrorEvent(text, code=code, status=status, provider=self.name)

    async def _open(self, request: ChatRequest) -> httpx.Response | ErrorEvent:
        """Send the request (with retries); the response or a terminal ErrorEvent."""
        try:
            body = build_chat_body(request, self.options)
            http_request = self._build_request("/api/chat", body)
            return await send_with_retry(
                self._get_client(), http_request, self.retry, on_retry=self._on_retry
            )
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            return self._error_event(*self._describe(exc, streaming=False))
        except Exception as exc:
            log.exception("%s: request failed", self.name)
            return self._error_event(self._redact(f"unexpected error: {exc}"), "internal_error")

    async def _show(self, model: str, limit: asyncio.Semaphore) -> Any:
        async with limit:
            try:
                body = {"model": model}
                return await self._get_json("/api/show", body, RetryPolicy.disabled(),
                                            SHOW_TIMEOUT_S)  # fmt: skip
            except ProviderError as exc:
                log.info("%s: no details for %s: %s", self.name, model, exc)
                return None

    async def _get_json(
        self,
        path: str,
        body: dict[str, Any] | None,
        retry: RetryPolicy,
        timeout: float | None = None,
    ) -> Any:
        """The decoded JSON answer of a small GET (or POST with ``body``); ProviderError."""
        try:
            request = self._build_request(path, body, timeout)
            response = await send_with_retry(
                self._get_client(), request, retry, stream=False, on_retry=self._on_retry
            )
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            message, code = self._describe(exc, streaming=False)
            raise ProviderError(message, provider=self.name, code=code, retryable=True) from None
        status = response.status_code
        if not 200 <= status < 300:
            message, error_code = self._model_status_message(response, response.content)
            raise ProviderError(message, provider=self.name, status=status, code=error_code,
                                retryable=is_retryable_status(status))  # fmt: skip
        try:
            return response.json()
        except ValueError:
            message = f"{self.base_url}{path} did not return JSON; check the base URL"
            raise ProviderError(message, provider=self.name) from None

    def _build_request(
        self, path: str, body: dict[str, Any] | None, timeout: float | None = None
    ) -> httpx.Request:
        """GET ``path`` without a body, POST with one (JSON); ``timeout`` overrides ours."""
        base = httpx.URL(self.base_url)
        url = base.copy_with(path=base.path.rstrip("/") + path)
        accept = "application/x-ndjson" if path == "/api/chat" else "application/json"
        headers = {"User-Agent": USER_AGENT, "Accept": accept}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        headers.update(self._headers)
        content = None
        if body is not None:
            content = json.dumps(body, ensure_ascii=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        return self._get_client().build_request(
            "GET" if body is None else "POST", url, content=content, headers=headers,
            timeout=self._timeout(timeout),
        )  # fmt: skip

    def _describe(self, exc: Exception, *, streaming: bool) -> tuple[str, str]:
        if not streaming and _refused(exc):
            message = (f"Ollama is not running at {self.base_url} (connection refused); "
                       "start the Ollama app or run `ollama serve`")  # fmt: skip
            return self._redact(message), "connection_error"
        message, code = describe_transport_error(exc, self.base_url, self.timeout,
                                                 streaming=streaming)  # fmt: skip
        return self._redact(message), code

    def _model_status_message(
        self, response: httpx.Response, body: bytes, model: str | None = None
    ) -> tuple[str, str | None]:
        status = response.status_code
        if 300 <= status < 400:
            location = response.headers.get("location", "?")
            return self._redact(f"unexpected redirect to {location}; check the base URL"), None
        content_type = response.headers.get("content-type", "")
        if status == 404 and model:  # Ollama: {"error": "model 'x' not found"}
            message, code = describe_error_body(body, content_type, secrets=self._secrets)
            if message.startswith("model") and "not found" in message:
                return self._redact(f"{message} (run `ollama pull {model}`)"), code
        return describe_status(status, body, content_type, secrets=self._secrets)

    async def _model_status_error(self, response: httpx.Response, model: str) -> ErrorEvent:
        message, code = self._model_status_message(response, await self._read_body(response), model)
        return self._error_event(message, code, response.status_code)

def _refused(exc: BaseException | None) -> bool:
    """Whether a connect failure was "connection refused": nothing listens there."""
    while exc is not None:
        if isinstance(exc, ConnectionRefusedError):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _end_of_stream(decoder: NDJSONDecoder, parser: OllamaStreamParser) -> list[StreamEvent]:
    """Events of a final line without a newline, then the terminal events."""
    try:
        lines = decoder.flush()
    except NDJSONError:  # a line cut mid-way: the stream was interrupted
        lines = []
    events = [event for line in lines for event in parser.feed(line)]
    return events + parser.finish()


# ---------------------------------------------------------------- models and hosts


def _tag_entries(payload: Any, provider: str) -> list[tuple[str, dict[str, Any]]]:
    """``(name, details)`` of each model in a ``GET /api/tags`` answer, in its order."""
    models = payload.get("models") if isinstance(payload, dict) else None
    if not isinstance(models, list):
        raise ProviderError("unexpected response from /api/tags (no model list); is this Ollama?",
                            provider=provider)  # fmt: skip
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
