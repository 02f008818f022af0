"""The OpenAI Responses API provider (``POST {base_url}/responses``).

The streaming lifecycle is the template's (:mod:`desktop.providers.http_base`);
the model list is read as Chat Completions reads it. Only opening the request
differs, for the fallbacks below.

The option ``responses_mode`` picks how a conversation is carried:

* ``"chain"`` (default): ``previous_response_id`` from the last assistant message
  (its ``provider_data["response_id"]``, set from our :class:`EndEvent`) plus the
  items added since. If the server no longer knows that response, the same request
  is sent again at once with the whole conversation (and stored, so the next turn
  chains again) -- no error reaches the user.
* ``"replay"``: the whole conversation every time with ``store: false``, asking for
  encrypted reasoning (``include``) and sending it back. Models that reject
  ``include`` (non-reasoning models) get the request again without it, and are
  remembered so later requests skip it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator
from typing import Literal

import httpx

from desktop import providers
from desktop.core.events import ErrorEvent, StreamEvent
from desktop.core.images import uses_images_api
from desktop.core.provider import ChatRequest, ModelInfo
from desktop.core.provider_options import CommonOptions, ResponsesOptions
from desktop.providers.http_base import HttpProvider, Sending
from desktop.providers.openai_chat import parse_models
from desktop.providers.openai_responses_format import (
    build_openai_responses_body,
    encrypted_reasoning_unsupported,
    previous_response_missing,
)
from desktop.providers.openai_responses_stream import OpenAIResponsesStreamParser
from desktop.providers.sse import ServerSentEvent
from desktop.providers.stream_parser import StreamParser

__all__ = ["OpenAIResponsesProvider"]

log = logging.getLogger(__name__)

Mode = Literal["chain", "replay"]


class OpenAIResponsesProvider(HttpProvider):
    """A :class:`desktop.core.provider.Provider` for the OpenAI Responses API.

    ``options.responses_mode`` (:class:`ResponsesOptions`): ``"chain"`` (default) or
    ``"replay"``.
    """

    kind = "openai-responses"
    key_variable = "OPENAI_API_KEY"
    native_web_search = True
    embedding_kind = "openai"  # (its servers' /embeddings: the Chat Completions adapter's)
    default_name = "OpenAI (Responses API)"
    Options = ResponsesOptions
    options: ResponsesOptions

    @classmethod
    def quiet_request(cls, options: CommonOptions, request: ChatRequest, *, preset: str,
                      reasoning: bool, always: bool) -> CommonOptions:
        if always:
            request.reasoning_effort = "low"
        return options

    def _configure(self) -> None:
        self.mode: Mode = self.options.responses_mode
        self._no_encrypted: set[str] = set()  # models that rejected encrypted reasoning

    def __repr__(self) -> str:  # never shows the key
        return (
            f"OpenAIResponsesProvider(name={self.name!r}, base_url={self.base_url!r}, "
            f"mode={self.mode!r})"
        )

    def _stream_path(self, request: ChatRequest) -> str:
        return "/responses"

    def events(self, request: ChatRequest, sending: Sending | None = None
               ) -> AsyncGenerator[StreamEvent, None]:
        """An Images API model (``gpt-image-1``) answers through ``/images/generations``
        (:mod:`desktop.providers.images_api`); other models draw with the
        ``image_generation`` tool."""
        if uses_images_api(request.model):
            return providers.image_stream(self, request)
        return super().events(request, sending)  # (as it is: no layer per event)

    async def list_models(self) -> list[ModelInfo]:
        """Models from ``GET {base_url}/models``, sorted by id; raises ProviderError."""
        return parse_models(await self._get_json("/models"), self.name)

    def _parser(self, request: ChatRequest) -> StreamParser[ServerSentEvent]:
        # Stored (chainable) unless replaying, or the request's extra says otherwise
        # (an extra key set to None removes "store": the server default, stored).
        stored = request.extra.get("store", self.mode != "replay") is not False
        return OpenAIResponsesStreamParser(self.name, secrets=self._secrets, stored=stored)

    async def _open(self, request: ChatRequest, sending: Sending) -> httpx.Response | ErrorEvent:
        """Send the request (retries, then the chain/encryption fallbacks).

        Returns a 2xx response, or a terminal ErrorEvent for everything else.
        """
        stateless = self.mode == "replay"
        chain = not stateless
        encrypted = stateless and request.model not in self._no_encrypted
        try:
            while True:  # at most three rounds: each fallback switches itself off
                body = build_openai_responses_body(
                    request, chain=chain, store=not stateless, include_encrypted=encrypted,
                    image_generation=self.options.image_generation)
                http_request = self._build_request("POST", "/responses", body, stream=True,
                                                   extensions=sending.extensions)
                response = await self._send(http_request, sending)
                status = response.status_code
                if 200 <= status < 300:
                    return response
                raw = await self._read_body(response)
                await response.aclose()
                if "previous_response_id" in body and previous_response_missing(status, raw):
                    log.info("%s: previous response not found; resending it all", self.name)
                    chain = False  # the whole conversation, still stored
                    continue
                if encrypted and encrypted_reasoning_unsupported(status, raw):
                    log.info("%s: %s has no encrypted reasoning", self.name, request.model)
                    self._no_encrypted.add(request.model)
                    encrypted = False
                    continue
                return self._status_failure(response, raw, request.model)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            return self._error_event(*self._describe(exc, streaming=False))
        except Exception as exc:
            log.exception("%s: request failed", self.name)
            return self._error_event(self._redact(f"unexpected error: {exc}"), "internal_error")
