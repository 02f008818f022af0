"""The title request: small and quick, whichever model writes the title.

A title is a few words. The request caps the answer (``max_tokens``) and switches
reasoning off — or to its lowest level where a model cannot stop reasoning, with room
for a short thought — in the way each API allows. The provider's own request defaults
(temperature, max tokens, thinking on) are not applied: they are meant for answers.
The reply is read only until its first line is complete (:func:`title_complete`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import msgspec

from desktop.core.messages import Message, TextPart
from desktop.core.provider import ChatRequest
from desktop.providers.registry import wire_api

if TYPE_CHECKING:
    from desktop.core.settings import ProviderConfig

#: Tokens for the title itself: six words, in any script, and some slack.
TITLE_MAX_TOKENS = 48
#: Tokens for a model that reasons however it is asked (the thought counts against
#: the cap): enough for a short one and the title.
REASONING_MAX_TOKENS = 1024
#: (Models that cannot switch reasoning off are asked for "low", the level every API
#: and model family with levels knows: see each adapter's ``quiet_request``.)

# Models that keep reasoning whatever the request says (reasoning is their only mode).
_ALWAYS_REASONING = re.compile(
    r"(^|/)(o\d|gpt-5|gpt-oss|gemini-2\.5-pro|gemini-3|deepseek-(reasoner|r1)|qwq)", re.I)


class TitleCall(msgspec.Struct, frozen=True):
    """The provider to ask (its switches set for a title) and what to ask it."""

    config: ProviderConfig
    request: ChatRequest


def title_call(config: ProviderConfig, model: str, reasoning: bool, system: str,
               conversation: str) -> TitleCall:
    """The title request for ``model`` on ``config``; ``reasoning``: the model can
    reason (its capabilities say so)."""
    request = ChatRequest(model=model, system=system, max_tokens=TITLE_MAX_TOKENS,
                          messages=[Message(role="user", parts=[TextPart(text=conversation)])])
    options = config.options
    always = reasoning and bool(_ALWAYS_REASONING.search(model))
    if always:
        request.max_tokens = REASONING_MAX_TOKENS
    adapter = wire_api(config.kind)  # (each API switches thinking off its own way)
    if adapter is not None:
        options = adapter.quiet_request(options, request, preset=config.preset,
                                        reasoning=reasoning, always=always)
    if options is not config.options:
        config = config.model_copy(update={"options": options})
    return TitleCall(config, request)


def title_complete(text: str, limit: int) -> bool:
    """Whether ``text`` (the reply so far) holds the whole title: a line that has
    ended, or more characters than a title keeps (``limit``)."""
    stripped = text.lstrip()
    if not stripped:
        return False
    first, newline, _rest = stripped.partition("\n")
    return bool(newline and first.strip()) or len(first) > limit
