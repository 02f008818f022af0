"""MCP sampling: a server asks the chat's model, once the user approved the exact
messages.

:class:`ChatSampler` is the :class:`~desktop.tools.mcp.server_requests.Sampler` the
chat service hands to MCP servers (``ChatTools.sampler``). For each request it asks
its :data:`SamplingApprover` (the CLI asks on a terminal and denies without one; the
window shows the messages with Allow/Deny), then runs the messages on the model of
the chat the request came from (``request.origin``): the model a running turn uses
(:meth:`ChatSampler.use_model`), else the chat's own provider and model. The request
goes through the provider limiter like any turn. Nothing the server sends is
stored in the chat.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from desktop.core.events import EndEvent, ErrorEvent, TextDelta
from desktop.core.provider import ChatRequest, RequestOrigin
from desktop.tools.mcp.server_requests import SamplingAnswer, SamplingDenied, SamplingRequest

if TYPE_CHECKING:
    from desktop.chat.service import ChatService
    from desktop.core.settings import ProviderConfig

log = logging.getLogger(__name__)

SamplingApprover = Callable[[SamplingRequest], Awaitable[bool]]
"""``async approve(request) -> allowed``: show ``request.messages`` exactly, ask the user."""

MAX_SAMPLING_TOKENS = 4_096  # a server cannot make the user pay for more than this


class ChatSampler:
    def __init__(self, service: ChatService, approve: SamplingApprover | None) -> None:
        self.service = service
        self.approve = approve
        self._models: dict[str, tuple[ProviderConfig, str]] = {}

    def use_model(self, origin: str, config: ProviderConfig, model: str) -> None:
        """Requests from ``origin`` (a chat or turn id) run on this provider and model."""
        self._models[origin] = (config, model)

    def forget(self, origin: str) -> None:
        self._models.pop(origin, None)

    async def __call__(self, request: SamplingRequest) -> SamplingAnswer:
        if self.approve is None:
            raise SamplingDenied("Nobody is there to approve the sampling request; "
                                 "it was declined.")
        if not await self.approve(request):
            raise SamplingDenied("The user declined the sampling request.")
        config, model = self._model_for(request.origin)
        provider = self.service.limiter.wrap(self.service.build_provider(config), config.id)
        chat_request = ChatRequest(
            model=model, messages=list(request.messages), system=request.system_prompt,
            temperature=request.temperature,
            max_tokens=min(max(request.max_tokens, 1), MAX_SAMPLING_TOKENS),
            origin=RequestOrigin(request.origin))  # recorded as the asking chat's
        text: list[str] = []
        stop_reason = "endTurn"
        try:
            async with contextlib.aclosing(provider.stream(chat_request)) as events:
                async for event in events:  # (closed on the loop, also on an error)
                    if isinstance(event, TextDelta):
                        text.append(event.text)
                    elif isinstance(event, ErrorEvent):
                        raise RuntimeError(event.message)
                    elif isinstance(event, EndEvent) and event.finish_reason == "length":
                        stop_reason = "maxTokens"
        finally:
            await provider.aclose()
        return SamplingAnswer("".join(text), model, stop_reason)

    def _model_for(self, origin: str | None) -> tuple[ProviderConfig, str]:
        if origin is not None and origin in self._models:
            return self._models[origin]
        profiles = self.service.profiles
        if origin is not None and self.service.sessions.get_session(origin) is not None:
            config = profiles.provider(origin)
            if config is not None:
                return config, profiles.model(origin)
        if len(self._models) == 1:  # one turn running (the CLI): it is the one asking
            return next(iter(self._models.values()))
        raise SamplingDenied("The sampling request does not belong to a chat; it was declined.")
