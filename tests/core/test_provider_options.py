"""Typed provider options: one model per wire API, bounded fields, old dicts read leniently."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from desktop.core.errors import ConfigError
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest
from desktop.core.provider_options import (
    AnthropicOptions,
    CapabilityFlags,
    CapabilityOverrides,
    GeminiOptions,
    OllamaOptions,
    OpenAIChatOptions,
    RequestOptions,
    ResponsesOptions,
)
from desktop.core.settings import ProviderConfig
from desktop.providers.capabilities import resolve_capabilities
from desktop.providers.factory import create_provider
from desktop.storage.database import Database
from desktop.storage.settings_store import SettingsStore


def config(kind: str, options: Any) -> ProviderConfig:
    return ProviderConfig(name="P", kind=kind, base_url="http://localhost:1/v1", options=options)


@pytest.mark.parametrize(
    ("kind", "model"),
    [("openai", OpenAIChatOptions), ("openai-responses", ResponsesOptions),
     ("anthropic", AnthropicOptions), ("gemini", GeminiOptions), ("ollama", OllamaOptions),
     ("a-future-kind", OpenAIChatOptions)],
)  # fmt: skip
def test_each_kind_gets_its_model(kind: str, model: type) -> None:
    assert type(config(kind, None).options) is model
    assert type(config(kind, {}).options) is model


def test_a_stored_dict_keeps_what_is_valid_and_drops_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    stored = {
        "reasoning": True, "reasoning_budget": "4096", "temperature": 7,
        "thinking": "adaptive", "thinking_budget": 100, "bogus": 1, "kind": "openai",
        "capabilities": {"vision": True, "models": {"m": {"tools": "nope", "reasoning": True}}},
    }  # fmt: skip
    with caplog.at_level(logging.WARNING):
        options = config("anthropic", stored).options
    assert options == AnthropicOptions(
        reasoning=True, reasoning_budget=4096, thinking="adaptive",
        capabilities=CapabilityOverrides(vision=True,
                                         models={"m": CapabilityFlags(reasoning=True)}),
    )  # fmt: skip
    text = caplog.text
    assert "provider P: ignoring unknown options: bogus" in text
    assert "capabilities.models.m.tools" in text and "temperature" in text
    assert "thinking_budget" in text


@pytest.mark.parametrize("stored", ["not a mapping", 42, ["list"]])
def test_options_that_are_not_a_mapping_are_ignored(stored: Any) -> None:
    assert config("ollama", stored).options == OllamaOptions()


def test_a_database_with_old_style_options_loads(tmp_path: Path) -> None:
    db = Database(tmp_path / "assista.db")
    try:
        store = SettingsStore(db)
        old = {"id": "prov_old", "name": "Old", "kind": "openai-responses",
               "base_url": "https://api.openai.com/v1",
               "options": {"responses_mode": "replay", "reasoning": True,
                           "reasoning_effort": "extreme", "removed_setting": True}}  # fmt: skip
        db.execute("INSERT INTO providers (id, position, config) VALUES (?, 0, ?)",
                   ("prov_old", json.dumps(old)))  # fmt: skip
        [loaded] = store.list_providers()
        assert loaded.options == ResponsesOptions(responses_mode="replay", reasoning=True)
        store.save_provider(loaded)  # written back typed, read back the same
        assert store.list_providers() == [loaded]
    finally:
        db.close()


def test_options_for_another_kind_become_this_kinds() -> None:
    moved = config("gemini", OllamaOptions(reasoning=True, temperature=0.5, num_ctx=4096))
    assert moved.options == GeminiOptions(reasoning=True, temperature=0.5)


def test_bounds() -> None:
    assert config("openai", {"temperature": 2.5, "max_tokens": 0}).options == OpenAIChatOptions()
    assert config("anthropic", {"thinking_budget": 1023}).options.thinking_budget is None
    assert config("openai-responses", {"responses_mode": "stateless"}).options == (
        ResponsesOptions()
    )


def test_request_options_are_the_request_defaults_only() -> None:
    options = AnthropicOptions(reasoning=True, reasoning_budget=2048, max_tokens=900,
                               thinking=True, capabilities=CapabilityOverrides(vision=True))
    assert options.request_options() == RequestOptions(reasoning=True, reasoning_budget=2048,
                                                       max_tokens=900)  # fmt: skip
    request = ChatRequest(model="m", messages=[Message.user("x")])
    options.request_options().apply(request)
    assert (request.reasoning, request.reasoning_budget, request.max_tokens) == (True, 2048, 900)


def test_the_factory_hands_the_typed_options_to_the_adapter() -> None:
    cfg = config("openai-responses", {"responses_mode": "replay"})
    provider = create_provider(cfg, None)
    assert provider.options is cfg.options  # type: ignore[attr-defined]
    assert provider.mode == "replay"  # type: ignore[attr-defined]


def test_adapters_validate_options_they_are_given_strictly() -> None:
    from desktop.providers.anthropic import AnthropicProvider

    with pytest.raises(ConfigError, match="invalid option thinking_budget"):
        AnthropicProvider("https://api.anthropic.com", options={"thinking_budget": 10})
    with pytest.raises(ConfigError, match="invalid option google_search"):
        AnthropicProvider("https://api.anthropic.com", options={"google_search": True})


def test_capability_overrides_resolve_typed_or_as_a_mapping() -> None:
    typed = CapabilityOverrides(tools=False, models={"llava": CapabilityFlags(vision=True)})
    for overrides in (typed, typed.model_dump(exclude_none=True)):
        caps = resolve_capabilities("llava", None, overrides)
        assert (caps.tools, caps.vision) == (False, True)
