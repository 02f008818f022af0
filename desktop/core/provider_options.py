"""Typed per-provider options: one pydantic model per wire API, bounded fields.

A provider's options hold two kinds of setting:

* request defaults (:class:`RequestOptions`: thinking on or off, its budget or effort,
  temperature, max_tokens), which reach the adapter by one route only: the agent loop
  applies them to each :class:`~desktop.core.provider.ChatRequest`;
* adapter switches, read by that API's adapter alone (``responses_mode``, Anthropic's
  ``thinking``, Gemini's ``google_search``, Ollama's ``keep_alive`` ...), and the
  user's capability overrides.

Options were stored as plain dicts before: :func:`options_for` reads such a dict
leniently (an unknown or invalid key is dropped with a logged warning), so an old
database never fails to load. Code that builds options itself validates strictly.
"""

from __future__ import annotations

import copy
import importlib
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, ValidationError

if TYPE_CHECKING:
    from desktop.core.provider import ChatRequest

__all__ = [
    "AnthropicOptions",
    "CapabilityFlags",
    "CapabilityOverrides",
    "CommonOptions",
    "GeminiOptions",
    "OllamaOptions",
    "OpenAIChatOptions",
    "ProviderOptions",
    "RequestOptions",
    "ResponsesOptions",
    "options_for",
]

log = logging.getLogger(__name__)

#: Every effort level one of the APIs names (OpenAI: none..xhigh; Ollama: max).
Effort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]
MAX_TOKENS_LIMIT = 10_000_000
#: Wire API -> its options model (each CommonOptions subclass with a kind adds itself).
_MODELS: dict[str, type[CommonOptions]] = {}
_LOADED: set[str] = set()  # kinds looked up with the registry loaded: no need again


class _Options(BaseModel):
    # (each kind's validator is built when that kind is first used, not at import:
    # the window's start needs only the configured providers' kinds)
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class RequestOptions(_Options):
    """Defaults for every request of one provider (the agent loop applies them)."""

    reasoning: bool = False
    # Tokens: Anthropic's budget_tokens, Gemini's thinkingBudget (0: off, -1: dynamic).
    reasoning_budget: int | None = Field(default=None, ge=-1, le=MAX_TOKENS_LIMIT)
    reasoning_effort: Effort | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=1, le=MAX_TOKENS_LIMIT)
    # The provider's own web search (set per chat; see desktop.providers.web_search).
    web_search: bool = False

    def apply(self, request: ChatRequest) -> None:
        """Set the request's fields; the budget and effort only with thinking on (they
        are its parameters: the form keeps them while thinking is switched off)."""
        if self.reasoning:
            request.reasoning = True
            if self.reasoning_budget is not None:
                request.reasoning_budget = self.reasoning_budget
            if self.reasoning_effort is not None:
                request.reasoning_effort = self.reasoning_effort
        if self.temperature is not None:
            request.temperature = self.temperature
        if self.max_tokens is not None:
            request.max_tokens = self.max_tokens
        if self.web_search:
            request.web_search = True


class CapabilityFlags(_Options):
    """What the user says a model can do, over what was detected (None: no opinion)."""

    tools: bool | None = None
    vision: bool | None = None
    reasoning: bool | None = None
    max_output_tokens: int | None = Field(default=None, ge=1, le=MAX_TOKENS_LIMIT)
    context_window: int | None = Field(default=None, ge=1, le=MAX_TOKENS_LIMIT)


class CapabilityOverrides(CapabilityFlags):
    """Flags for every model of the provider, and per model id in ``models``."""

    models: dict[str, CapabilityFlags] = Field(default_factory=dict)


class CommonOptions(RequestOptions):
    """The options every wire API has; each API's model (its adapter's nested
    ``Options``) adds its switches and says which thinking controls the provider form
    shows. A subclass with a ``kind`` is known to :func:`model_for` once defined."""

    #: The provider form shows the thinking switch; its token budget; its effort levels.
    shows_thinking: ClassVar[bool] = False
    shows_budget: ClassVar[bool] = False
    shows_effort: ClassVar[bool] = False

    capabilities: CapabilityOverrides | None = None

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        kind = cls.model_fields["kind"].default if "kind" in cls.model_fields else None
        if isinstance(kind, str) and kind:
            _MODELS[kind] = cls

    def request_options(self) -> RequestOptions:
        fields = set(RequestOptions.model_fields)
        return RequestOptions.model_validate(self.model_dump(include=fields))


class OpenAIChatOptions(CommonOptions):
    kind: Literal["openai"] = "openai"


class ResponsesOptions(CommonOptions):
    shows_thinking = True
    shows_effort = True
    kind: Literal["openai-responses"] = "openai-responses"
    # chain: previous_response_id; replay: the whole conversation, store: false.
    responses_mode: Literal["chain", "replay"] = "chain"
    image_generation: bool = False  # offer the image_generation tool to every model


class AnthropicOptions(CommonOptions):
    shows_thinking = True
    shows_budget = True
    kind: Literal["anthropic"] = "anthropic"
    thinking: bool | Literal["adaptive"] = False  # thinking without asking per request
    thinking_budget: int | None = Field(default=None, ge=1024, le=MAX_TOKENS_LIMIT)


class GeminiOptions(CommonOptions):
    shows_thinking = True
    shows_budget = True
    kind: Literal["gemini"] = "gemini"
    thinking_level: Literal["minimal", "low", "medium", "high"] | None = None  # Gemini 3
    include_thoughts: bool | None = None  # None: whenever thinking is not off
    google_search: bool = False


class OllamaOptions(CommonOptions):
    shows_thinking = True
    kind: Literal["ollama"] = "ollama"
    think: bool | Literal["low", "medium", "high", "max"] | None = None
    keep_alive: str | int | None = None  # "5m", seconds, -1: keep loaded
    num_ctx: int | None = Field(default=None, ge=1, le=MAX_TOKENS_LIMIT)
    model_options: dict[str, Any] = Field(default_factory=dict)  # any Modelfile parameter


#: A provider's options: its kind's model (stored with every field of that model).
ProviderOptions = SerializeAsAny[CommonOptions]


def model_for(kind: str) -> type[CommonOptions]:
    """The options model of a wire API (an unknown kind gets the common fields).

    The built-in APIs' models are defined above; another API's model is defined with
    its adapter, known once the wire APIs are loaded (desktop.providers.registry,
    imported by name: core does not depend on the providers)."""
    if kind not in _MODELS and kind not in _LOADED:
        _LOADED.add(kind)
        importlib.import_module("desktop.providers.registry").wire_apis()
    return _MODELS.get(kind, OpenAIChatOptions)


def _drop(data: dict[str, Any], loc: tuple[int | str, ...]) -> str:
    """Remove the deepest key on ``loc`` that ``data`` has; its dotted path."""
    node: Any = data
    path: list[str] = []
    for key in loc:
        if not isinstance(node, dict) or key not in node:
            break
        parent, node = node, node[key]
        path.append(str(key))
    if path:
        del parent[path[-1]]
    return ".".join(path) or "?"


def options_for(kind: str, raw: Mapping[str, Any] | None, *, owner: str = "provider") -> Any:
    """``raw`` (stored options) as ``kind``'s model, leniently: what it does not know or
    cannot accept is dropped with a warning naming ``owner``. Returns a ProviderOptions
    member (typed ``Any`` so that the caller's field annotation decides)."""
    model = model_for(kind)
    data = copy.deepcopy({k: v for k, v in (raw or {}).items() if k != "kind"})
    unknown = sorted(k for k in data if k not in model.model_fields)
    for key in unknown:
        del data[key]
    if unknown:
        log.warning("%s: ignoring unknown options: %s", owner, ", ".join(unknown))
    for _ in range(len(data) + 1):  # each round drops at least one key
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            dropped = sorted({_drop(data, tuple(e["loc"])) for e in exc.errors()})
            log.warning("%s: ignoring invalid options: %s", owner, ", ".join(dropped))
    return model()
