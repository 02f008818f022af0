"""AnthropicProvider.list_models: pagination, display names, capabilities, learned limits."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.core.errors import ProviderError
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest, ModelCapabilities, ModelInfo
from desktop.providers.anthropic import AnthropicProvider
from desktop.providers.retry import RetryPolicy
from tests.support.anthropic_server import (
    FakeAnthropicServer,
    ScriptedResponse,
    anthropic_error,
    anthropic_server,
    model_entry,
)
from tests.support.fixtures import RecordingSleep

__all__ = ["anthropic_server"]  # the fixture, imported for this module

KEY = "sk-ant-api03-abcdefghijklmnop0123456789"


def make(server: FakeAnthropicServer, **kwargs: Any) -> AnthropicProvider:
    kwargs.setdefault("retry", RetryPolicy(sleep=RecordingSleep()))
    return AnthropicProvider(server.url, kwargs.pop("api_key", KEY), name="Fake", **kwargs)


async def send(provider: AnthropicProvider, request: ChatRequest) -> None:
    async for _event in provider.stream(request):
        pass


def capabilities(image: bool, thinking: bool, enabled: bool = True) -> dict[str, Any]:
    types = {"enabled": {"supported": enabled}, "adaptive": {"supported": not enabled}}
    return {
        "image_input": {"supported": image},
        "thinking": {"supported": thinking, "types": types},
    }


async def test_list_models_follows_pages(anthropic_server: FakeAnthropicServer) -> None:
    anthropic_server.models = [
        model_entry(
            "claude-next-1",
            "Claude Next",
            max_input_tokens=1_000_000,
            max_tokens=128_000,
            capabilities=capabilities(True, True, enabled=False),
        ),
        model_entry(
            "claude-sonnet-4-5-20250929",
            "Claude Sonnet 4.5",
            max_input_tokens=200_000,
            max_tokens=20_000,
            capabilities=capabilities(True, True),
        ),
        model_entry("claude-3-haiku-20240307", "Claude Haiku 3"),
        model_entry("claude-3-opus-20240229", "Claude Opus 3"),
        "claude-plain",
    ]
    anthropic_server.page_size = 2
    async with make(anthropic_server) as provider:
        models = await provider.list_models()
        anthropic_server.enqueue_text("a")
        anthropic_server.enqueue_text("b")
        await send(
            provider, ChatRequest(model="claude-sonnet-4-5-20250929", messages=[Message.user("Hi")])
        )
        await send(
            provider,
            ChatRequest(model="claude-next-1", messages=[Message.user("Hi")], reasoning=True),
        )
    pages = [r.path for r in anthropic_server.requests if r.path.startswith("/v1/models")]
    assert pages == [
        "/v1/models?limit=1000",
        "/v1/models?limit=1000&after_id=claude-sonnet-4-5-20250929",
        "/v1/models?limit=1000&after_id=claude-3-opus-20240229",
    ]
    assert anthropic_server.requests[0].headers["x-api-key"] == KEY
    assert anthropic_server.requests[0].headers["anthropic-version"] == "2023-06-01"
    assert [m.id for m in models] == [
        "claude-next-1",
        "claude-sonnet-4-5-20250929",
        "claude-3-haiku-20240307",
        "claude-3-opus-20240229",
        "claude-plain",
    ]
    assert models[1] == ModelInfo(
        "claude-sonnet-4-5-20250929",
        "Claude Sonnet 4.5",
        200_000,
        capabilities=ModelCapabilities(
            tools=True,
            vision=True,
            reasoning=True,
            max_output_tokens=20_000,
            context_window=200_000,
        ),
    )
    assert models[4] == ModelInfo("claude-plain", capabilities=ModelCapabilities(tools=True))
    sonnet, nxt = (r.json for r in anthropic_server.messages_requests)
    assert sonnet["max_tokens"] == 20_000  # what the API said, below the documented 64000
    assert nxt["max_tokens"] == 32_000 and nxt["thinking"] == {"type": "adaptive"}


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (
            anthropic_error(401, "invalid x-api-key", type="authentication_error"),
            "Fake (HTTP 401): invalid x-api-key (check the API key)",
        ),
        (
            ScriptedResponse.text(200, "<html>proxy</html>"),
            "/v1/models did not return JSON; check the base URL",
        ),
        (
            ScriptedResponse.json_body({"object": "list"}),
            "Fake: unexpected response from /v1/models (no model list)",
        ),
    ],
)
async def test_list_models_errors(
    anthropic_server: FakeAnthropicServer, response: ScriptedResponse, message: str
) -> None:
    anthropic_server.enqueue(response, path="/v1/models")
    async with make(anthropic_server) as provider:
        with pytest.raises(ProviderError) as info:
            await provider.list_models()
    assert message in str(info.value)
    assert KEY not in str(info.value)


async def test_list_models_retries_overloaded(anthropic_server: FakeAnthropicServer) -> None:
    sleep = RecordingSleep()
    overloaded = anthropic_error(529, "Overloaded", type="overloaded_error")
    anthropic_server.enqueue(overloaded, path="/v1/models")
    async with make(anthropic_server, retry=RetryPolicy(sleep=sleep)) as provider:
        models = await provider.list_models()
    assert [m.id for m in models] == ["claude-sonnet-4-5-20250929"] and len(sleep.delays) == 1
