"""Building providers from configurations, and finding ones that need no setup."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, cast

from desktop.core.errors import ConfigError
from desktop.core.settings import ProviderConfig
from desktop.providers.presets import PRESETS, config_from_preset, find_preset
from desktop.providers.registry import wire_api

if TYPE_CHECKING:  # httpx and the adapters load with the first provider (slow imports)
    import httpx

    from desktop.core.exchange import ExchangeRecording
    from desktop.core.provider import Provider
    from desktop.core.proxy import Proxy
    from desktop.providers.retry import RetryPolicy
    from desktop.providers.stream_pace import StreamPace

__all__ = ["create_provider", "detect_lmstudio", "detect_ollama", "providers_from_environment"]

log = logging.getLogger(__name__)

#: Presets not listed from the environment: the same key already lists its main preset.
ENV_SKIPPED_PRESETS = frozenset({"openai-responses"})

LMSTUDIO_URL = "http://localhost:1234/v1"
DETECT_TIMEOUT_S = 1.5


def create_provider(
    config: ProviderConfig,
    api_key: str | None,
    *,
    client: httpx.AsyncClient | None = None,
    retry: RetryPolicy | None = None,
    on_retry: Callable[[int, float, str], None] | None = None,
    proxy: Proxy | None = None,
    recording: ExchangeRecording | None = None,
    pace: StreamPace | None = None,
) -> Provider:
    """The adapter for ``config.kind``; raises ConfigError for bad settings.

    Headers come from the config (presets copy theirs in when the config is made).
    A preset that needs a key (OpenAI, OpenRouter, ...) without one is a ConfigError.
    ``on_retry(attempt, delay_s, reason)`` is called before each retry wait (the
    window says so in its status line). ``proxy``: the provider's HTTP client goes
    through it, whatever the process environment says (``None``: the environment's
    proxy variables apply). ``recording``: its requests go to the request inspector.
    ``pace``: how often its streams reach the reader (none: 15 times a second).
    """
    url = config.base_url.strip()
    if not url.startswith(("http://", "https://")):
        raise ConfigError(
            f"{config.name}: the base URL must start with http:// or https:// (got {url!r})",
            code="invalid_url", params={"provider": config.name, "url": url}
        )
    preset = find_preset(config.preset)
    if preset is not None and preset.requires_key and not api_key:
        where = f"set {preset.api_key_env} or " if preset.api_key_env else ""
        raise ConfigError(f"{config.name} needs an API key: {where}add one in Settings",
                          code="api_key_needed", params={"provider": config.name})
    # Every adapter takes the same constructor (see HttpProvider).
    cls = wire_api(config.kind)
    if cls is None:
        raise ConfigError(f"{config.name}: unsupported provider kind {config.kind!r}",
                          code="unsupported_kind",
                          params={"provider": config.name, "kind": config.kind})
    from desktop.providers.recording import recorded

    provider = cls(
        url,
        api_key,
        name=config.name,
        headers=config.headers,
        timeout=config.timeout_s,
        retry=retry,
        client=client,
        options=config.options,
        on_retry=on_retry,
        proxy=proxy,
        pace=pace,
    )
    return cast("Provider", recorded(provider, recording))


def providers_from_environment(environ: Mapping[str, str] | None = None) -> list[ProviderConfig]:
    """Configs for every preset whose key variable is set (OPENAI_API_KEY, ...).

    ``OPENAI_BASE_URL`` overrides OpenAI's URL. Ids are stable (``env_<preset>``) so
    a saved ``active_provider_id`` still matches on the next start.
    """
    env = os.environ if environ is None else environ
    configs: list[ProviderConfig] = []
    for preset in PRESETS.values():
        found = preset.key_from_env(env)
        if found is None or preset.id in ENV_SKIPPED_PRESETS:
            continue
        base_url = None
        if preset.id == "openai":
            base_url = env.get("OPENAI_BASE_URL", "").strip() or None
        configs.append(
            config_from_preset(
                preset.id,
                base_url=base_url,
                source="environment",
                id=f"env_{preset.id}",
                api_key_env=found[0],
            )
        )
    return configs


async def detect_lmstudio(
    client: httpx.AsyncClient, url: str = LMSTUDIO_URL, *, timeout: float = DETECT_TIMEOUT_S
) -> ProviderConfig | None:
    """A config for an LM Studio (or any OpenAI-compatible) server answering at ``url``.

    ``None`` when nothing answers quickly or the answer is not a model list.
    """
    from desktop.providers.openai_chat import parse_models

    base = url.rstrip("/")
    try:
        response = await asyncio.wait_for(client.get(f"{base}/models", timeout=timeout), timeout)
        if response.status_code != 200:
            return None
        models = parse_models(response.json(), "LM Studio")
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # nothing there, or not an OpenAI-compatible server
        log.debug("no LM Studio at %s: %s", base, exc)
        return None
    return config_from_preset(
        "lmstudio",
        base_url=base,
        model=models[0].id if models else "",
        source="detected",
        id="detected_lmstudio",
    )


async def detect_ollama(
    client: httpx.AsyncClient,
    environ: Mapping[str, str] | None = None,
    *,
    timeout: float = DETECT_TIMEOUT_S,
) -> ProviderConfig | None:
    """A config for an Ollama answering at ``OLLAMA_HOST`` (else ``localhost:11434``).

    ``OLLAMA_HOST`` is read as Ollama reads it (``host:port``, ``http://host:port``,
    ``0.0.0.0`` meaning this machine). ``None`` when nothing answers ``GET /api/tags``
    quickly with a model list. The model is the first that looks like a chat model.
    """
    from desktop.providers.ollama import ollama_host, preferred_model

    env = os.environ if environ is None else environ
    base = ollama_host(env.get("OLLAMA_HOST"))
    try:
        response = await asyncio.wait_for(client.get(f"{base}/api/tags", timeout=timeout), timeout)
        if response.status_code != 200:
            return None
        model = preferred_model(response.json())
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # nothing there, or not an Ollama server
        log.debug("no Ollama at %s: %s", base, exc)
        return None
    return config_from_preset(
        "ollama", base_url=base, model=model, source="detected", id="detected_ollama"
    )
