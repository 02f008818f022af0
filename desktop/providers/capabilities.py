"""What a model can do: tools, vision, reasoning, output and context limits.

Three sources, later ones winning: a table of well-known model families, what the
provider's model list reported, and the user's overrides (per provider, per model).
Unknown stays unknown until resolved: tools default on (a server that rejects them
says so), vision and reasoning default off.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import msgspec

from desktop.core.provider import ModelCapabilities
from desktop.core.provider_options import CapabilityOverrides


class Capabilities(msgspec.Struct, frozen=True):
    """Resolved capabilities: every flag decided."""

    tools: bool = True
    vision: bool = False
    reasoning: bool = False
    max_output_tokens: int | None = None
    context_window: int | None = None


def _caps(
    tools: bool | None = True,
    vision: bool | None = None,
    reasoning: bool | None = None,
    out: int | None = None,
    ctx: int | None = None,
) -> ModelCapabilities:
    return ModelCapabilities(tools=tools, vision=vision, reasoning=reasoning,
                             max_output_tokens=out, context_window=ctx)


# (pattern matched against the lower-cased model id, capabilities). First match wins,
# so specific patterns come before family patterns.
KNOWN_MODELS: list[tuple[re.Pattern[str], ModelCapabilities]] = [
    (re.compile(p), c)
    for p, c in [
        # OpenAI
        (r"(^|/)(o1-mini|o1-preview)", _caps(tools=False, reasoning=True, out=65536, ctx=128000)),
        (r"(^|/)o[134](-|$)", _caps(vision=True, reasoning=True, out=100000, ctx=200000)),
        (r"(^|/)gpt-5", _caps(vision=True, reasoning=True, out=128000, ctx=400000)),
        (r"(^|/)gpt-4\.1", _caps(vision=True, out=32768, ctx=1047576)),
        (r"(^|/)gpt-4o", _caps(vision=True, out=16384, ctx=128000)),
        (r"(^|/)gpt-4-turbo", _caps(vision=True, out=4096, ctx=128000)),
        (r"(^|/)gpt-3\.5", _caps(out=4096, ctx=16385)),
        (r"(^|/)gpt-oss", _caps(reasoning=True, out=32768, ctx=131072)),
        # Anthropic
        (r"claude-(opus-4|4-opus)", _caps(vision=True, reasoning=True, out=32000, ctx=200000)),
        (r"claude-(sonnet-4|4-sonnet|haiku-4)", _caps(vision=True, reasoning=True, out=64000,
                                                      ctx=200000)),
        (r"claude-3-7", _caps(vision=True, reasoning=True, out=64000, ctx=200000)),
        (r"claude-3-5", _caps(vision=True, out=8192, ctx=200000)),
        (r"claude-3", _caps(vision=True, out=4096, ctx=200000)),
        (r"claude", _caps(vision=True, reasoning=True, out=32000, ctx=200000)),
        # Google
        (r"gemini-(2\.5|3)", _caps(vision=True, reasoning=True, out=65536, ctx=1048576)),
        (r"gemini-2\.0", _caps(vision=True, out=8192, ctx=1048576)),
        (r"gemini-1\.5", _caps(vision=True, out=8192, ctx=1048576)),
        (r"gemma-?3", _caps(tools=None, vision=True, out=8192, ctx=131072)),
        # DeepSeek, Mistral, Qwen, Llama and friends (names as Ollama / OpenRouter use)
        (r"deepseek-(reasoner|r1)", _caps(tools=None, reasoning=True, out=32768, ctx=131072)),
        (r"deepseek", _caps(out=8192, ctx=131072)),
        (r"(pixtral|mistral-medium|mistral-small-3\.[12])", _caps(vision=True, ctx=131072)),
        (r"(magistral)", _caps(reasoning=True, ctx=131072)),
        (r"(mistral|mixtral|codestral|ministral)", _caps(ctx=131072)),
        (r"qwen3", _caps(reasoning=True, ctx=131072)),
        (r"qwen2\.5-?vl|qwen-vl", _caps(tools=None, vision=True, ctx=131072)),
        (r"qwq", _caps(reasoning=True, ctx=131072)),
        (r"qwen", _caps(ctx=131072)),
        (r"llama-?3\.2-?vision|llava|bakllava|moondream|minicpm-v", _caps(tools=None,
                                                                         vision=True)),
        (r"llama-?4", _caps(vision=True, ctx=131072)),
        (r"llama-?3\.[123]", _caps(ctx=131072)),
        (r"(phi-?4-reasoning|phi4-reasoning)", _caps(tools=None, reasoning=True)),
        (r"(grok-4|grok-3-mini)", _caps(vision=True, reasoning=True, ctx=256000)),
        (r"grok", _caps(vision=True, ctx=131072)),
    ]
]


def known_capabilities(model: str) -> ModelCapabilities | None:
    name = model.lower()
    for pattern, caps in KNOWN_MODELS:
        if pattern.search(name):
            return caps
    return None


def _merge(base: ModelCapabilities, top: ModelCapabilities | None) -> ModelCapabilities:
    if top is None:
        return base
    values = {f.name: getattr(top, f.name) for f in msgspec.structs.fields(ModelCapabilities)
              if getattr(top, f.name) is not None}
    return msgspec.structs.replace(base, **values)


def _from_mapping(data: Mapping[str, Any]) -> ModelCapabilities:
    names = set(ModelCapabilities.__struct_fields__)
    return ModelCapabilities(**{k: v for k, v in data.items() if k in names})


def resolve_capabilities(
    model: str,
    reported: ModelCapabilities | None = None,
    overrides: CapabilityOverrides | Mapping[str, Any] | None = None,
) -> Capabilities:
    """Capabilities of ``model``: known table < provider's report < user overrides.

    ``overrides`` is a provider's ``options.capabilities``: flags for every model
    (``vision=True``) and per model (``models={"llava:13b": ...}``), or the same as
    a plain mapping.
    """
    if isinstance(overrides, CapabilityOverrides):
        overrides = overrides.model_dump(exclude_none=True)
    merged = ModelCapabilities()
    merged = _merge(merged, known_capabilities(model))
    merged = _merge(merged, reported)
    if overrides:
        general = {k: v for k, v in overrides.items() if k != "models"}
        merged = _merge(merged, _from_mapping(general))
        per_model = overrides.get("models")
        if isinstance(per_model, Mapping) and isinstance(per_model.get(model), Mapping):
            merged = _merge(merged, _from_mapping(per_model[model]))
    default = Capabilities()
    return Capabilities(
        tools=default.tools if merged.tools is None else merged.tools,
        vision=default.vision if merged.vision is None else merged.vision,
        reasoning=default.reasoning if merged.reasoning is None else merged.reasoning,
        max_output_tokens=merged.max_output_tokens,
        context_window=merged.context_window,
    )
