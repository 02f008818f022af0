"""What AnthropicProvider sends: headers, bodies, turns, thinking, tools, model listing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from desktop.core.messages import (
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from desktop.core.orchestrator import Orchestrator
from desktop.core.provider import ChatRequest, ToolSpec
from desktop.core.provider_options import AnthropicOptions
from desktop.providers.anthropic import AnthropicProvider
from desktop.providers.anthropic_format import (
    ModelLimits,
    build_anthropic_body,
    default_max_tokens,
    messages_to_anthropic,
)
from desktop.providers.retry import RetryPolicy
from tests.support.anthropic_server import (
    FakeAnthropicServer,
    ScriptedResponse,
    anthropic_server,
    message_stream,
)
from tests.support.fixtures import RecordingSleep

__all__ = ["anthropic_server"]  # the fixture, imported for this module

DATA = Path(__file__).parent / "data" / "anthropic"
KEY = "sk-ant-api03-abcdefghijklmnop0123456789"


def make(server: FakeAnthropicServer, **kwargs: Any) -> AnthropicProvider:
    kwargs.setdefault("retry", RetryPolicy(sleep=RecordingSleep()))
    return AnthropicProvider(server.url, kwargs.pop("api_key", KEY), name="Fake", **kwargs)


async def send(provider: AnthropicProvider, request: ChatRequest) -> None:
    async for _event in provider.stream(request):
        pass


def body(request: ChatRequest, **kwargs: Any) -> dict[str, Any]:
    return build_anthropic_body(request, **kwargs)


# ---------------------------------------------------------------- the HTTP request


async def test_headers_path_and_body(anthropic_server: FakeAnthropicServer) -> None:
    anthropic_server.enqueue_text("ok")
    request = ChatRequest(
        model="claude-sonnet-4-5", messages=[Message.user("Hi")], system="Be brief", temperature=0.5
    )
    async with make(anthropic_server, headers={"anthropic-beta": "a-b-2025"}) as provider:
        await send(provider, request)
    sent = anthropic_server.messages_requests[0]
    assert (sent.method, sent.path) == ("POST", "/v1/messages")
    assert sent.headers["x-api-key"] == KEY
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert sent.headers["anthropic-beta"] == "a-b-2025"
    assert sent.headers["content-type"] == "application/json"
    assert sent.headers["accept"] == "text/event-stream"
    assert sent.headers["user-agent"].startswith("AssistaDesktop/")
    assert "authorization" not in sent.headers
    assert sent.json == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64000,
        "system": "Be brief",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
        "temperature": 0.5,
        "stream": True,
    }


@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v1/"])
async def test_base_url_with_or_without_v1(
    anthropic_server: FakeAnthropicServer, suffix: str
) -> None:
    anthropic_server.enqueue_text("ok")
    provider = AnthropicProvider(anthropic_server.url + suffix, None, retry=RetryPolicy.disabled())
    await send(provider, ChatRequest(model="m", messages=[Message.user("Hi")]))
    await provider.aclose()
    sent = anthropic_server.messages_requests[0]
    assert sent.path == "/v1/messages" and "x-api-key" not in sent.headers


async def test_user_headers_may_override_the_version(
    anthropic_server: FakeAnthropicServer,
) -> None:
    anthropic_server.enqueue_text("ok")
    async with make(anthropic_server, headers={"anthropic-version": "2099-01-01"}) as provider:
        await send(provider, ChatRequest(model="m", messages=[Message.user("Hi")]))
    assert anthropic_server.messages_requests[0].headers["anthropic-version"] == "2099-01-01"


# ---------------------------------------------------------------- max_tokens and thinking


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("claude-opus-4-20250514", 32000),
        ("claude-opus-4-0", 32000),
        ("claude-opus-4-1-20250805", 32000),
        ("claude-opus-4-5-20251101", 64000),
        ("claude-sonnet-4-5", 64000),
        ("claude-sonnet-4-20250514", 64000),
        ("claude-haiku-4-5-20251001", 64000),
        ("claude-3-7-sonnet-latest", 64000),
        ("claude-3-5-haiku-20241022", 8192),
        ("claude-3-5-sonnet-20241022", 8192),
        ("claude-3-haiku-20240307", 4096),
        ("claude-3-opus-20240229", 4096),
        ("anthropic/claude-sonnet-4", 64000),
        ("claude-fable-7", 32000),  # a family newer than the table
        ("deepseek-chat", 8192),  # another model behind an Anthropic-compatible endpoint
    ],
)
def test_default_max_tokens(model: str, expected: int) -> None:
    assert default_max_tokens(model) == expected
    assert default_max_tokens(model, known=1000) == 1000  # what /v1/models says caps it


def thinking_body(**kwargs: Any) -> dict[str, Any]:
    options = AnthropicOptions.model_validate(kwargs.pop("options", {}))
    limits = kwargs.pop("limits", None)
    request = ChatRequest(model="claude-opus-4-1", messages=[Message.user("Hi")], **kwargs)
    out = body(request, options=options, limits=limits)
    return {key: out.get(key) for key in ("max_tokens", "thinking", "temperature")}


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({}, (32000, None, None)),
        ({"temperature": 0.2}, (32000, None, 0.2)),
        ({"reasoning": True, "temperature": 0.2}, (32000, 8192, None)),
        ({"reasoning": True, "reasoning_budget": 16000}, (32000, 16000, None)),
        ({"reasoning": True, "reasoning_budget": 100}, (32000, 1024, None)),
        ({"reasoning": True, "reasoning_budget": 90000}, (32000, 31999, None)),
        ({"reasoning": True, "max_tokens": 4096}, (4096, 2048, None)),
        ({"reasoning": True, "max_tokens": 4096, "reasoning_budget": 10000}, (4096, 4095, None)),
        ({"reasoning": True, "max_tokens": 500}, (1025, 1024, None)),
        ({"max_tokens": 999}, (999, None, None)),  # a provider default arrives this way too
        ({"options": {"thinking": True, "thinking_budget": 4096}}, (32000, 4096, None)),
        ({"options": {"thinking": True, "thinking_budget": "5000"}}, (32000, 5000, None)),
        ({"reasoning": True, "options": {"thinking_budget": 3000}}, (32000, 3000, None)),
    ],
)
def test_max_tokens_and_thinking_budget(
    kwargs: dict[str, Any], expected: tuple[int, int | None, float | None]
) -> None:
    out = thinking_body(**kwargs)
    max_tokens, budget, temperature = expected
    assert out["max_tokens"] == max_tokens and out["temperature"] == temperature
    if budget is None:
        assert out["thinking"] is None
    else:
        assert out["thinking"] == {"type": "enabled", "budget_tokens": budget}
        assert out["max_tokens"] > budget >= 1024


def test_adaptive_thinking() -> None:
    by_option = thinking_body(options={"thinking": "adaptive"}, temperature=1.0)
    assert by_option == {"max_tokens": 32000, "thinking": {"type": "adaptive"}, "temperature": None}
    limits = ModelLimits(max_tokens=128000, thinking_enabled=False, thinking_adaptive=True)
    learned = thinking_body(reasoning=True, limits=limits)
    assert learned["thinking"] == {"type": "adaptive"}


def test_tools_extra_and_system_messages() -> None:
    tools = [
        ToolSpec("read_file", "Read a file", {"type": "object", "properties": {"path": {}}}),
        ToolSpec("now", "", {}),
    ]
    request = ChatRequest(
        model="m",
        messages=[Message.system("Extra rules."), Message.user("Hi")],
        system="Main prompt.",
        tools=tools,
        extra={"top_k": 5, "stream": None, "metadata": {"user_id": "u1"}},
    )
    out = body(request)
    assert out["system"] == "Main prompt.\n\nExtra rules."
    assert out["tools"] == [
        {
            "name": "read_file",
            "description": "Read a file",
            "input_schema": {"type": "object", "properties": {"path": {}}},
        },
        {"name": "now", "input_schema": {"type": "object", "properties": {}}},
    ]
    assert out["tool_choice"] == {"type": "auto"}
    assert out["top_k"] == 5 and out["metadata"] == {"user_id": "u1"} and "stream" not in out


# ---------------------------------------------------------------- message conversion


def test_roles_merging_images_and_tool_results() -> None:
    png = "iVBORw0KGgo="
    history = [
        Message.user("First"),
        Message(
            role="user", parts=[TextPart(text="  "), ImagePart(media_type="image/png", data=png)]
        ),
        Message(
            role="assistant",
            parts=[
                TextPart(text="Two calls."),
                ToolCallPart(id="call_a.1", name="read_file", arguments='{"path": "a"}'),
                ToolCallPart(id="call_b", name="now", arguments="not json"),
            ],
        ),
        Message(
            role="tool",
            parts=[ToolResultPart(tool_call_id="call_a.1", name="read_file", content="A")],
        ),
        Message(
            role="tool",
            parts=[ToolResultPart(tool_call_id="call_b", name="now", content="", is_error=True)],
        ),
        Message.user("And now?"),
        Message(role="assistant", parts=[TextPart(text="Prefill  \n")]),
    ]
    messages, system = messages_to_anthropic(history)
    assert system == []
    assert messages == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "First"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": png},
                },
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Two calls."},
                {"type": "tool_use", "id": "call_a_1", "name": "read_file", "input": {"path": "a"}},
                {"type": "tool_use", "id": "call_b", "name": "now", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [  # all results in one message, before the text
                {
                    "type": "tool_result",
                    "tool_use_id": "call_a_1",
                    "content": "A",
                    "is_error": False,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "call_b",
                    "content": "(error)",
                    "is_error": True,
                },
                {"type": "text", "text": "And now?"},
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "Prefill"}]},
    ]


def test_thinking_blocks_sent_back_only_when_signed_and_ours() -> None:
    signed = ReasoningPart(text="Plan.", signature="c2lnMQ==")
    redacted = ReasoningPart(redacted=True, provider_data={"data": "ZW5jcnlwdGVk"})
    unsigned = ReasoningPart(text="Not signed (stopped, or from a chat-completions model).")
    call = ToolCallPart(id="toolu_1", name="now", arguments="{}")
    ours = Message(
        role="assistant",
        provider="Claude",
        parts=[signed, redacted, unsigned, TextPart(text="Ok."), call],
    )
    other = Message(
        role="assistant",
        provider="Gemini",
        parts=[ReasoningPart(text="x", signature="gemini-sig"), TextPart(text="Hi")],
    )
    result = Message(
        role="tool", parts=[ToolResultPart(tool_call_id="toolu_1", name="now", content="12:00")]
    )
    messages, _ = messages_to_anthropic(
        [Message.user("a"), other, Message.user("b"), ours, result], provider="Claude"
    )
    assert messages[1]["content"] == [{"type": "text", "text": "Hi"}]
    assert messages[3]["content"] == [
        {"type": "thinking", "thinking": "Plan.", "signature": "c2lnMQ=="},
        {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk"},
        {"type": "text", "text": "Ok."},
        {"type": "tool_use", "id": "toolu_1", "name": "now", "input": {}},
    ]


# ---------------------------------------------------------------- a multi-round agent turn


class WeatherTools:
    def __init__(self) -> None:
        self.calls: list[ToolCallPart] = []

    def specs(self) -> list[ToolSpec]:
        schema = {"type": "object", "properties": {"location": {"type": "string"}}}
        return [ToolSpec("get_weather", "Get the forecast", schema)]

    async def run(self, call: ToolCallPart) -> ToolResultPart:
        self.calls.append(call)
        location = json.loads(call.arguments)["location"]
        if location == "Atlantis":
            return ToolResultPart(
                tool_call_id=call.id,
                name=call.name,
                content="unknown place",
                is_error=True,
                status="failed",
            )
        return ToolResultPart(tool_call_id=call.id, name=call.name, content=f"{location}: 24°C")


async def test_multi_round_turn_sends_thinking_back_verbatim(
    anthropic_server: FakeAnthropicServer,
) -> None:
    turn1 = (DATA / "anthropic_thinking_tool_use.sse").read_bytes()
    sig1 = re.findall(r'"signature":"([^"]+)"', turn1.decode())[0]
    sig2 = "RXFvQkNrZ0lCeEFCR0FJaVFMOG4zcVZxNGxCMHoyaDhrQ2s5c1dmMUdtSG4yYzB5VA=="
    round2 = message_stream(
        [
            ("thinking", ("Now Rio and Atlantis, in parallel.", sig2)),
            ("tool_use", ("toolu_02Rio", "get_weather", '{"location": "Rio"}')),
            ("tool_use", ("toolu_03Atl", "get_weather", '{"location": "Atlantis"}')),
        ],
        stop_reason="tool_use",
    )
    anthropic_server.enqueue(ScriptedResponse(chunks=[turn1]), ScriptedResponse(chunks=round2))
    anthropic_server.enqueue_text("São Paulo and Rio: 24°C. Atlantis is unknown.")
    tools = WeatherTools()
    options = {"thinking": True, "thinking_budget": 2048}
    history = [Message.user("Weather in São Paulo, Rio and Atlantis?")]
    async with make(anthropic_server, options=options) as provider:
        result = await Orchestrator(provider, tools).run(
            history, model="claude-sonnet-4-5", system="Be brief."
        )
    assert result.status == "complete", result.error
    assert result.text == "São Paulo and Rio: 24°C. Atlantis is unknown."
    assert [c.id for c in tools.calls] == [
        "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        "toolu_02Rio",
        "toolu_03Atl",
    ]
    first, second, third = (r.json for r in anthropic_server.messages_requests)
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert first["system"] == "Be brief." and "temperature" not in first
    turn1_assistant = {
        "role": "assistant",
        "content": [
            {
                "type": "thinking",
                "signature": sig1,
                "thinking": "The user wants the weather in São Paulo for the next three days. "
                "I have a get_weather tool that takes a location and a number of days. Celsius "
                "is the sensible unit there.",
            },
            {"type": "text", "text": "I'll look up the forecast for São Paulo."},
            {
                "type": "tool_use",
                "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
                "name": "get_weather",
                "input": {"location": "São Paulo, Brazil", "unit": "celsius", "days": 3},
            },
        ],
    }
    turn1_results = {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
                "content": "São Paulo, Brazil: 24°C",
                "is_error": False,
            },
        ],
    }
    assert second["messages"] == [first["messages"][0], turn1_assistant, turn1_results]
    assert third["messages"][:3] == second["messages"]  # history is sent back unchanged
    assert third["messages"][3:] == [
        {
            "role": "assistant",
            "content": [
                {
                    "type": "thinking",
                    "thinking": "Now Rio and Atlantis, in parallel.",
                    "signature": sig2,
                },
                {
                    "type": "tool_use",
                    "id": "toolu_02Rio",
                    "name": "get_weather",
                    "input": {"location": "Rio"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_03Atl",
                    "name": "get_weather",
                    "input": {"location": "Atlantis"},
                },
            ],
        },
        {
            "role": "user",
            "content": [  # both results in ONE user message
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_02Rio",
                    "content": "Rio: 24°C",
                    "is_error": False,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_03Atl",
                    "content": "unknown place",
                    "is_error": True,
                },
            ],
        },
    ]
    # the signature bytes on the wire are exactly the ones received
    assert f'"signature":"{sig1}"'.encode() in anthropic_server.messages_requests[1].body
