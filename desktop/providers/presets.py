"""Known OpenAI-compatible services: default URL, key variable, headers, sample model."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import msgspec

from desktop.core.errors import ConfigError
from desktop.core.settings import ProviderConfig, ProviderSource
from desktop.providers.registry import wire_apis

__all__ = ["APP_TITLE", "APP_URL", "PRESETS", "ProviderPreset", "all_presets",
           "config_from_preset", "find_preset", "get_preset"]

#: Sent to OpenRouter for app attribution (https://openrouter.ai/docs/api-reference/overview).
APP_URL = "https://github.com/assista/assista-desktop"
APP_TITLE = "Assista Desktop"


def _headers(**values: str) -> MappingProxyType[str, str]:
    return MappingProxyType(dict(values))


class ProviderPreset(msgspec.Struct, frozen=True):
    """A known provider service: kind, default URL, key variables, headers, sample model."""

    id: str
    name: str
    kind: str = "openai"
    base_url: str | None = None  # None: the user must enter one
    api_key_env: str | None = None
    requires_key: bool = True
    headers: MappingProxyType[str, str] = msgspec.field(default_factory=_headers)
    default_model: str | None = None
    keys_url: str | None = None  # where a user gets a key
    # Further variables that may hold the key, tried after api_key_env (GOOGLE_API_KEY).
    other_key_envs: tuple[str, ...] = ()

    @property
    def key_envs(self) -> tuple[str, ...]:
        first = (self.api_key_env,) if self.api_key_env else ()
        return first + self.other_key_envs

    def key_from_env(self, environ: Mapping[str, str]) -> tuple[str, str] | None:
        """``(variable, key)`` for the first of :attr:`key_envs` that is set."""
        for name in self.key_envs:
            value = environ.get(name, "").strip()
            if value:
                return name, value
        return None


PRESETS: dict[str, ProviderPreset] = {
    p.id: p
    for p in (
        ProviderPreset(
            id="openai",
            name="OpenAI",
            base_url="https://api.openai.com/v1",
            api_key_env="OPENAI_API_KEY",
            default_model="gpt-4o-mini",
            keys_url="https://platform.openai.com/api-keys",
        ),
        ProviderPreset(
            id="openrouter",
            name="OpenRouter",
            base_url="https://openrouter.ai/api/v1",
            api_key_env="OPENROUTER_API_KEY",
            headers=_headers(**{"HTTP-Referer": APP_URL, "X-Title": APP_TITLE}),
            default_model="openai/gpt-4o-mini",
            keys_url="https://openrouter.ai/keys",
        ),
        ProviderPreset(
            id="lmstudio",
            name="LM Studio",
            base_url="http://localhost:1234/v1",
            requires_key=False,
        ),
        ProviderPreset(
            id="groq",
            name="Groq",
            base_url="https://api.groq.com/openai/v1",
            api_key_env="GROQ_API_KEY",
            default_model="llama-3.3-70b-versatile",
            keys_url="https://console.groq.com/keys",
        ),
        ProviderPreset(
            id="together",
            name="Together AI",
            base_url="https://api.together.xyz/v1",
            api_key_env="TOGETHER_API_KEY",
            default_model="meta-llama/Llama-3.3-70B-Instruct-Turbo",
            keys_url="https://api.together.ai/settings/api-keys",
        ),
        ProviderPreset(
            id="mistral",
            name="Mistral",
            base_url="https://api.mistral.ai/v1",
            api_key_env="MISTRAL_API_KEY",
            default_model="mistral-small-latest",
            keys_url="https://console.mistral.ai/api-keys",
        ),
        ProviderPreset(
            id="deepseek",
            name="DeepSeek",
            base_url="https://api.deepseek.com/v1",
            api_key_env="DEEPSEEK_API_KEY",
            default_model="deepseek-chat",
            keys_url="https://platform.deepseek.com/api_keys",
        ),
        ProviderPreset(
            id="llamacpp",
            name="llama.cpp server",
            base_url="http://localhost:8080/v1",
            requires_key=False,
        ),
        ProviderPreset(
            id="vllm",
            name="vLLM",
            base_url="http://localhost:8000/v1",
            requires_key=False,
        ),
        ProviderPreset(id="custom", name="Custom (OpenAI-compatible)", requires_key=False),
        ProviderPreset(
            id="openai-responses",
            name="OpenAI (Responses API)",
            kind="openai-responses",
            base_url="https://api.openai.com/v1",
            api_key_env="OPENAI_API_KEY",
            default_model="gpt-4.1-mini",
            keys_url="https://platform.openai.com/api-keys",
        ),
        ProviderPreset(
            id="anthropic",
            name="Anthropic",
            kind="anthropic",
            base_url="https://api.anthropic.com",
            api_key_env="ANTHROPIC_API_KEY",
            default_model="claude-sonnet-4-5",
            keys_url="https://console.anthropic.com/settings/keys",
        ),
        ProviderPreset(
            id="gemini",
            name="Google Gemini",
            kind="gemini",
            base_url="https://generativelanguage.googleapis.com/v1beta",
            api_key_env="GEMINI_API_KEY",
            other_key_envs=("GOOGLE_API_KEY",),
            default_model="gemini-2.5-flash",
            keys_url="https://aistudio.google.com/apikey",
        ),
        ProviderPreset(
            id="ollama",
            name="Ollama",
            kind="ollama",
            base_url="http://localhost:11434",
            requires_key=False,
        ),
    )
}


def all_presets() -> dict[str, ProviderPreset]:
    """The presets above, then those the wire APIs' adapters declare (``presets`` on
    the adapter class: a new API brings its own services)."""
    found = dict(PRESETS)
    for cls in wire_apis().values():
        for preset in cls.presets:
            found.setdefault(preset.id, preset)
    return found


def find_preset(preset_id: str) -> ProviderPreset | None:
    """The preset ``preset_id`` (the adapters are loaded only for one not above)."""
    return PRESETS.get(preset_id) or all_presets().get(preset_id)


def get_preset(preset_id: str) -> ProviderPreset:
    preset = find_preset(preset_id)
    if preset is None:
        known = ", ".join(all_presets())
        raise ConfigError(f"unknown provider preset {preset_id!r} (known: {known})",
                          code="unknown_preset",
                          params={"preset": preset_id, "known": known}) from None
    return preset


def config_from_preset(
    preset_id: str,
    *,
    name: str | None = None,
    base_url: str | None = None,
    model: str | None = None,
    source: ProviderSource = "user",
    **fields: Any,
) -> ProviderConfig:
    """A :class:`ProviderConfig` filled from a preset; explicit arguments win."""
    preset = get_preset(preset_id)
    url = base_url or preset.base_url
    if not url:
        raise ConfigError(f"{preset.name} needs a base URL (for example http://localhost:8080/v1)",
                          code="preset_needs_url", params={"provider": preset.name})
    return ProviderConfig(
        name=name or preset.name,
        kind=preset.kind,
        preset=preset.id,
        base_url=url,
        model=model if model is not None else (preset.default_model or ""),
        headers=dict(preset.headers),
        source=source,
        **fields,
    )
