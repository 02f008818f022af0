"""A chat's own request settings: temperature, max tokens and reasoning effort.

Each is ``None`` until the user sets it for the chat; then the chat's assistant decides
(its temperature), else the provider's request defaults
(:class:`desktop.core.provider_options.RequestOptions`). :func:`layered` puts the three
together into the options one turn is sent with.
"""

from __future__ import annotations

from typing import Any, Literal, cast, get_args

import msgspec

from desktop.core.provider_options import MAX_TOKENS_LIMIT, RequestOptions

#: What the chat-settings popover offers; "off" sends no thinking at all.
ReasoningEffort = Literal["off", "low", "medium", "high"]
EFFORTS: tuple[ReasoningEffort, ...] = get_args(ReasoningEffort)
#: Where a saved chat keeps them (``SessionInfo.extra``).
CHAT_OPTIONS_KEY = "request"


class ChatOptions(msgspec.Struct, frozen=True):
    """A chat's own request settings; each ``None`` until the user sets it for the chat."""

    temperature: float | None = None
    max_tokens: int | None = None
    reasoning_effort: ReasoningEffort | None = None
    web_search: bool | None = None  # "Search the web" in this chat

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in msgspec.structs.asdict(self).items() if v is not None}

    @classmethod
    def from_json(cls, raw: object) -> ChatOptions:
        """Leniently: a value that is out of range or of the wrong type is left out (an
        edited or synced row never stops a chat from opening)."""
        if not isinstance(raw, dict):
            return cls()
        temperature = raw.get("temperature")
        max_tokens = raw.get("max_tokens")
        effort = raw.get("reasoning_effort")
        web = raw.get("web_search")
        return cls(
            temperature=float(temperature) if isinstance(temperature, int | float)
            and not isinstance(temperature, bool) and 0 <= temperature <= 2 else None,
            max_tokens=max_tokens if isinstance(max_tokens, int)
            and not isinstance(max_tokens, bool) and 1 <= max_tokens <= MAX_TOKENS_LIMIT
            else None,
            reasoning_effort=cast(ReasoningEffort, effort) if effort in EFFORTS else None,
            web_search=web if isinstance(web, bool) else None)

    def changed(self, **fields: Any) -> ChatOptions:
        return msgspec.structs.replace(self, **fields)

    def is_default(self) -> bool:
        return self == ChatOptions()


def layered(provider: RequestOptions, assistant_temperature: float | None,
            chat: ChatOptions) -> RequestOptions:
    """What a turn is sent with: the provider's defaults, under the assistant's
    temperature, under the chat's own choices."""
    update: dict[str, Any] = {}
    if assistant_temperature is not None:
        update["temperature"] = assistant_temperature
    if chat.temperature is not None:
        update["temperature"] = chat.temperature
    if chat.max_tokens is not None:
        update["max_tokens"] = chat.max_tokens
    if chat.web_search is not None:
        update["web_search"] = chat.web_search
    if chat.reasoning_effort == "off":
        update.update(reasoning=False, reasoning_effort=None, reasoning_budget=None)
    elif chat.reasoning_effort is not None:
        # An effort names a level, not a token budget: the provider's budget would win
        # over it in the adapters that take both.
        update.update(reasoning=True, reasoning_effort=chat.reasoning_effort,
                      reasoning_budget=None)
    return provider.model_copy(update=update) if update else provider
