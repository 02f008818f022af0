"""The title request: small and quick, whichever model writes the title.

A title is a few words. The request caps the answer (``max_tokens``) and switches
reasoning off — or to its lowest level where a model cannot stop reasoning, with room
for a short thought — in the way each API allows. The provider's own request defaults
(temperature, max tokens, thinking on) are not applied: they are meant for answers.
The reply is read only until its first line is complete (:func:`title_complete`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop.core.messages import Message, TextPart
from desktop.core.provider import ChatRequest

if TYPE_CHECKING:
    from desktop.core.settings import ProviderConfig

#: Tokens for the title itself: six words, in any script, and some slack.
TITLE_MAX_TOKENS = 48
#: Tokens for a model that reasons however it is asked (the thought counts against
#: the cap): enough for a short one and the title.
REASONING_MAX_TOKENS = 1024
#: The level asked of models that cannot switch reasoning off (every API and model
#: family that has levels knows "low").
LOW_EFFORT = "low"

# Models that keep reasoning whatever the request says (reasoning is their only mode).
_ALWAYS_REASONING = re.compile(
    r"(^|/)(o\d|gpt-5|gpt-oss|gemini-2\.5-pro|gemini-3|deepseek-(reasoner|r1)|qwq)", re.I)


@dataclass(frozen=True)
class TitleCall:
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
    kind = config.kind
    if kind == "anthropic":  # thinking only when asked for: never here
        options = options.model_copy(update={"thinking": False})
    elif kind == "gemini" and reasoning:
        if "gemini-3" in model:  # levels only; "low" is the least every Gemini 3 takes
            options = options.model_copy(update={"thinking_level": LOW_EFFORT,
                                                 "include_thoughts": False})
        else:  # a budget: 0 is off, 128 the least 2.5 Pro accepts
            options = options.model_copy(update={"thinking_level": None,
                                                 "include_thoughts": False})
            request.reasoning_budget = 128 if always else 0
    elif kind == "ollama" and reasoning:
        options = options.model_copy(update={"think": LOW_EFFORT if always else False})
    elif kind == "openai-responses" and always:
        request.reasoning_effort = LOW_EFFORT
    elif kind == "openai" and always and config.preset == "openai":
        # OpenAI's reasoning models: their own cap and effort fields on Chat Completions.
        request.max_tokens = None
        request.extra = {"max_completion_tokens": REASONING_MAX_TOKENS,
                         "reasoning_effort": LOW_EFFORT}
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
