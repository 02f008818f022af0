from __future__ import annotations

import httpx
import pytest

from desktop.core.errors import ConfigError
from desktop.core.settings import ProviderConfig
from desktop.providers.factory import create_provider, detect_lmstudio, providers_from_environment
from desktop.providers.openai_chat import OpenAIChatProvider
from desktop.providers.presets import PRESETS, config_from_preset, get_preset
from desktop.providers.retry import RetryPolicy
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, unused_port


def test_presets_table() -> None:
    assert set(PRESETS) == {
        "openai", "openrouter", "lmstudio", "groq", "together", "mistral", "deepseek",
        "llamacpp", "vllm", "custom", "openai-responses", "anthropic", "gemini", "ollama",
    }
    expected = {
        "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY", True),
        "openrouter": ("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", True),
        "lmstudio": ("http://localhost:1234/v1", None, False),
        "groq": ("https://api.groq.com/openai/v1", "GROQ_API_KEY", True),
        "together": ("https://api.together.xyz/v1", "TOGETHER_API_KEY", True),
        "custom": (None, None, False),
    }
    for preset_id, (url, env, needs_key) in expected.items():
        preset = get_preset(preset_id)
        assert (preset.base_url, preset.api_key_env, preset.requires_key) == (url, env, needs_key)
        assert preset.kind == "openai"
    assert set(PRESETS["openrouter"].headers) == {"HTTP-Referer", "X-Title"}
    with pytest.raises(ConfigError, match="unknown provider preset"):
        get_preset("nope")


def test_config_from_preset() -> None:
    config = config_from_preset("openrouter", model="meta/llama")
    assert config.preset == "openrouter" and config.kind == "openai"
    assert config.base_url == "https://openrouter.ai/api/v1"
    assert config.headers["X-Title"] == "Assista Desktop"
    assert config.model == "meta/llama"
    assert config_from_preset("openai").model == "gpt-4o-mini"
    with pytest.raises(ConfigError, match="needs a base URL"):
        config_from_preset("custom")
    custom = config_from_preset("custom", base_url="http://localhost:8080/v1", name="vLLM")
    assert (custom.name, custom.model) == ("vLLM", "")


def test_create_provider() -> None:
    config = config_from_preset("openrouter")
    config.timeout_s = 33
    provider = create_provider(config, "sk-or-v1-xyz")
    assert isinstance(provider, OpenAIChatProvider)
    assert provider.name == "OpenRouter" and provider.base_url == "https://openrouter.ai/api/v1"
    assert provider.timeout == 33
    assert provider._headers["HTTP-Referer"]
    local = create_provider(config_from_preset("lmstudio"), None)
    assert isinstance(local, OpenAIChatProvider) and local._api_key is None


def test_create_provider_errors() -> None:
    with pytest.raises(ConfigError, match="needs an API key: set OPENAI_API_KEY"):
        create_provider(config_from_preset("openai"), None)
    with pytest.raises(ConfigError, match="unsupported provider kind 'telepathy'"):
        create_provider(ProviderConfig(name="X", kind="telepathy", base_url="https://x.test"), "k")
    with pytest.raises(ConfigError, match="must start with http"):
        create_provider(ProviderConfig(name="X", base_url="localhost:1234/v1"), None)


async def test_create_provider_with_injected_client(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue_text("hi")
    config = ProviderConfig(name="Fake", base_url=openai_server.base_url)
    async with httpx.AsyncClient() as client:
        provider = create_provider(config, None, client=client, retry=RetryPolicy.disabled())
        models = await provider.list_models()
        await provider.aclose()
        assert not client.is_closed
    assert [m.id for m in models] == ["gpt-test"]


def test_providers_from_environment() -> None:
    env = {
        "OPENAI_API_KEY": "sk-a",
        "OPENAI_BASE_URL": "https://proxy.example/v1",
        "OPENROUTER_API_KEY": "sk-or-b",
        "GROQ_API_KEY": "  ",  # blank: ignored
    }
    configs = providers_from_environment(env)
    assert [c.preset for c in configs] == ["openai", "openrouter"]
    openai_config, openrouter = configs
    assert openai_config.base_url == "https://proxy.example/v1"
    assert openai_config.api_key_env == "OPENAI_API_KEY"
    assert openai_config.source == "environment" and openai_config.id == "env_openai"
    assert openrouter.base_url == "https://openrouter.ai/api/v1"
    assert openrouter.api_key_env == "OPENROUTER_API_KEY"
    assert openrouter.headers["X-Title"] == "Assista Desktop"
    assert providers_from_environment({}) == []
    # Stable ids: detecting twice gives the same configs.
    assert providers_from_environment(env) == configs


async def test_detect_lmstudio(openai_server: FakeOpenAIServer) -> None:
    openai_server.models = ["qwen2.5-7b-instruct", "text-embedding-nomic"]
    async with httpx.AsyncClient() as client:
        config = await detect_lmstudio(client, openai_server.base_url)
        nothing = await detect_lmstudio(client, f"http://127.0.0.1:{unused_port()}/v1")
    assert config is not None
    assert (config.preset, config.source, config.base_url) == (
        "lmstudio",
        "detected",
        openai_server.base_url,
    )
    assert config.model == "qwen2.5-7b-instruct"
    assert nothing is None


async def test_detect_lmstudio_rejects_non_openai_answers(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(ScriptedResponse.text(200, "<html>hello</html>"), path="/v1/models")
    async with httpx.AsyncClient() as client:
        assert await detect_lmstudio(client, openai_server.base_url) is None


async def test_detect_lmstudio_times_out_quickly(openai_server: FakeOpenAIServer) -> None:
    slow = ScriptedResponse.json_body({"data": []})
    slow.chunks = [b'{"data": [', b"]}"]
    slow.hold_after = 1
    openai_server.enqueue(slow, path="/v1/models")
    async with httpx.AsyncClient() as client:
        assert await detect_lmstudio(client, openai_server.base_url, timeout=0.1) is None
    slow.release()
