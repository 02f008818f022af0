"""OpenAIChatProvider end to end against the loopback fake server: what is particular
to Chat Completions (the streaming contract shared by every API: test_stream_contract)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from desktop.core.errors import ProviderError
from desktop.core.events import (
    EndEvent,
    ErrorEvent,
    ReasoningComplete,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    ToolCallStarted,
    UsageEvent,
)
from desktop.core.messages import Message, Usage
from desktop.core.provider import ChatRequest, ModelInfo
from desktop.providers.openai_chat import OpenAIChatProvider
from desktop.providers.retry import RetryPolicy
from tests.support.fixtures import RecordingSleep
from tests.support.openai_server import (
    FakeOpenAIServer,
    ScriptedResponse,
    unused_port,
)

DATA = Path(__file__).parent / "data"
KEY = "sk-test-abcdefghijklmnop0123456789"
REQUEST = ChatRequest(model="gpt-test", messages=[Message.user("Hi")])


def fixture_bytes(name: str) -> bytes:
    return (DATA / name).read_bytes()


@dataclass
class Outcome:
    """Everything one stream produced, assembled."""

    events: list[StreamEvent]

    @property
    def text(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, TextDelta))

    @property
    def reasoning(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, ReasoningDelta))

    @property
    def calls(self) -> list[tuple[str, str, str]]:
        return [(e.id, e.name, e.arguments) for e in self.events if isinstance(e, ToolCallComplete)]

    @property
    def usage(self) -> Usage | None:
        found = [e.usage for e in self.events if isinstance(e, UsageEvent)]
        return found[-1] if found else None

    @property
    def last(self) -> StreamEvent:
        return self.events[-1]

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


async def collect(provider: OpenAIChatProvider, request: ChatRequest = REQUEST) -> Outcome:
    return Outcome([event async for event in provider.stream(request)])


def make(server: FakeOpenAIServer, **kwargs: Any) -> OpenAIChatProvider:
    kwargs.setdefault("retry", RetryPolicy(sleep=RecordingSleep()))
    return OpenAIChatProvider(server.base_url, kwargs.pop("api_key", KEY), name="Fake", **kwargs)


def assert_terminal(outcome: Outcome) -> None:
    """Exactly one EndEvent or ErrorEvent, and it is the last event."""
    terminal = [e for e in outcome.events if isinstance(e, EndEvent | ErrorEvent)]
    assert len(terminal) == 1 and terminal[0] is outcome.last


# ---------------------------------------------------------------- recorded fixtures

TEXT_ONLY = (
    "Sure! Here’s a quick summary:\n\n- **Paris** is the capital of France 🇫🇷.\n- It is "
    "known as *la Ville Lumière* (光の都).\n\nWant more détails?"
)
EXPECTED: dict[str, dict[str, Any]] = {
    "text_only.sse": {
        "text": TEXT_ONLY,
        "usage": Usage(input_tokens=26, output_tokens=38),
        "end": "stop",
    },
    "tool_calls_split.sse": {
        "calls": [
            (
                "call_8Yq2kPz1wXb4LmN0rT5vJc7D",
                "get_weather",
                '{"location":"São Paulo, Brazil","unit":"celsius","days":3}',
            )
        ],
        "usage": Usage(input_tokens=84, output_tokens=24),
        "end": "tool_calls",
    },
    "parallel_tool_calls.sse": {
        "calls": [
            ("call_fT3nK8pQ2vL5xM9zR1wB7cYd", "read_file", '{"path": "src/main.py"}'),
            (
                "call_Jh6sW2eR9tY4uI1oP8aS3dFg",
                "search_files",
                '{"pattern": "def main(", "glob": "**/*.py"}',
            ),
        ],
        "usage": Usage(input_tokens=152, output_tokens=53, cached_tokens=128),
        "end": "tool_calls",
    },
    "reasoning_content.sse": {
        "text": "**9.8** is larger than 9.11.",
        "reasoning": "Okay, the user asks 9.11 vs 9.8. Compare decimals: 0.11 < 0.80, so 9.8 is "
        "larger.",
        "usage": Usage(input_tokens=17, output_tokens=46, reasoning_tokens=33),
        "end": "stop",
    },
    "openrouter_reasoning.sse": {
        "text": "Hi there! 👋 How can I help?",
        "reasoning": "The user greets me; reply warmly.",
        "usage": Usage(input_tokens=12, output_tokens=21, reasoning_tokens=8, cost=0.0000513),
        "end": "stop",
    },
    "legacy_function_call.sse": {
        "calls": [(None, "get_current_weather", '{\n  "location": "Boston, MA"\n}')],
        "end": "tool_calls",
    },
    "error_in_stream.sse": {
        "text": "The answer is",
        "error": ("The server had an error while processing your request.", "server_error"),
    },
    "openrouter_error.sse": {
        "text": "Partial",
        "error": ("Provider disconnected unexpectedly", "502"),
    },
    "cut_midway.sse": {
        "text": "Once upon a time, in a",
        "error": ("ended unexpectedly", "stream_interrupted"),
    },
}


def check_expected(outcome: Outcome, expected: dict[str, Any]) -> None:
    assert outcome.text == expected.get("text", "")
    assert outcome.reasoning == expected.get("reasoning", "")
    calls = expected.get("calls", [])
    assert len(outcome.calls) == len(calls)
    for (got_id, got_name, got_args), (want_id, want_name, want_args) in zip(
        outcome.calls, calls, strict=True
    ):
        assert got_id == want_id if want_id else got_id.startswith("call_")
        assert (got_name, got_args) == (want_name, want_args)
    # Every completed call was announced first, with the same id and name.
    started = {(e.index, e.id, e.name) for e in outcome.of(ToolCallStarted)}
    assert {(e.index, e.id, e.name) for e in outcome.of(ToolCallComplete)} <= started
    if expected.get("reasoning"):
        assert outcome.of(ReasoningComplete) == [ReasoningComplete(expected["reasoning"])]
    assert outcome.usage == expected.get("usage", outcome.usage)
    assert_terminal(outcome)
    if "error" in expected:
        fragment, code = expected["error"]
        assert isinstance(outcome.last, ErrorEvent)
        assert fragment in outcome.last.message and outcome.last.code == code
        assert outcome.last.message.startswith("Fake: ")
    else:
        assert outcome.last == EndEvent(expected["end"], outcome.last.provider_data)


@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_recorded_fixture_over_loopback(openai_server: FakeOpenAIServer, name: str) -> None:
    """What each transcript means (any chunking gives the same: test_stream_contract)."""
    data = fixture_bytes(name)
    openai_server.enqueue(ScriptedResponse(chunks=[data], cut=name.startswith("cut")))
    async with make(openai_server) as provider:
        outcome = await collect(provider)
    check_expected(outcome, EXPECTED[name])


async def test_request_headers_and_body(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue_text("ok")
    provider = make(openai_server, headers={"X-Title": "Assista Desktop"})
    await collect(provider, ChatRequest(model="gpt-test", messages=[Message.user("Hi")],
                                        system="Be brief", temperature=0.5))  # fmt: skip
    await provider.aclose()
    request = openai_server.chat_requests[0]
    assert request.method == "POST" and request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["x-title"] == "Assista Desktop"
    assert request.headers["accept"] == "text/event-stream"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["user-agent"].startswith("AssistaDesktop/")
    assert request.json == {
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": "Be brief"},
            {"role": "user", "content": "Hi"},
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": 0.5,
    }


async def test_no_key_no_authorization_header(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue_text("ok")
    async with make(openai_server, api_key=None) as provider:
        assert (await collect(provider)).text == "ok"
    assert "authorization" not in openai_server.chat_requests[0].headers


async def test_base_url_query_string_is_kept(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue_text("ok")
    provider = OpenAIChatProvider(f"{openai_server.base_url}/?api-version=2024-10-21")
    await collect(provider)
    await provider.aclose()
    assert openai_server.requests[0].path == "/v1/chat/completions?api-version=2024-10-21"


async def test_server_ignoring_stream_flag(openai_server: FakeOpenAIServer) -> None:
    completion = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Whole"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
    }
    openai_server.enqueue(ScriptedResponse.json_body(completion))
    async with make(openai_server) as provider:
        outcome = await collect(provider)
    assert outcome.text == "Whole"
    assert outcome.usage == Usage(input_tokens=3, output_tokens=1)
    assert outcome.last == EndEvent("stop")


# ---------------------------------------------------------------- error dialects
# (statuses, retries, cut streams, redaction: test_stream_contract, for every API)


async def test_openrouter_style_error_with_metadata(openai_server: FakeOpenAIServer) -> None:
    body = {"error": {"message": "Provider returned error", "code": 400,
                      "metadata": {"raw": '{"error":{"message":"context too long"}}',
                                   "provider_name": "Foo"}}}  # fmt: skip
    openai_server.enqueue(ScriptedResponse.json_body(body, 400))
    async with make(openai_server) as provider:
        event = (await collect(provider)).last
    assert isinstance(event, ErrorEvent)
    assert event.message == "Fake (HTTP 400): Provider returned error: context too long"
    assert event.code == "400"


async def test_empty_queue_message_from_fake_server(openai_server: FakeOpenAIServer) -> None:
    async with make(openai_server) as provider:
        event = (await collect(provider)).last
    assert isinstance(event, ErrorEvent) and "no scripted response left" in event.message


# ---------------------------------------------------------------- list_models


async def test_list_models_sorted(openai_server: FakeOpenAIServer) -> None:
    openai_server.models = [
        "gpt-4o",
        {"id": "anthropic/claude", "name": "Claude", "context_length": 200000, "owned_by": "x"},
        "gpt-4o-mini",
    ]
    async with make(openai_server) as provider:
        models = await provider.list_models()
    assert models == [
        ModelInfo("anthropic/claude", "Claude", 200000, "x"),
        ModelInfo("gpt-4o", owned_by="fake"),
        ModelInfo("gpt-4o-mini", owned_by="fake"),
    ]
    request = openai_server.requests[0]
    assert (request.method, request.path) == ("GET", "/v1/models")
    assert request.headers["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize(
    ("response", "fragment"),
    [
        (ScriptedResponse.error(401, "Invalid API key"), "Fake (HTTP 401): Invalid API key"),
        (ScriptedResponse.text(200, "<html>LM Studio</html>"), "did not return JSON"),
        (ScriptedResponse.json_body({"object": "list"}), "no model list"),
    ],
)
async def test_list_models_errors(
    openai_server: FakeOpenAIServer, response: ScriptedResponse, fragment: str
) -> None:
    openai_server.enqueue(response, path="/v1/models")
    async with make(openai_server) as provider:
        with pytest.raises(ProviderError) as info:
            await provider.list_models()
    assert fragment in str(info.value)


async def test_list_models_connection_refused() -> None:
    provider = OpenAIChatProvider(f"http://127.0.0.1:{unused_port()}/v1", name="Local",
                                  retry=RetryPolicy.disabled())  # fmt: skip
    with pytest.raises(ProviderError) as info:
        await provider.list_models()
    assert str(info.value).startswith("Local: could not connect")
    assert info.value.retryable


async def test_list_models_retries_5xx(openai_server: FakeOpenAIServer) -> None:
    sleep = RecordingSleep()
    openai_server.enqueue(ScriptedResponse.error(503, "warming up"), path="/v1/models")
    async with make(openai_server, retry=RetryPolicy(sleep=sleep)) as provider:
        models = await provider.list_models()
    assert [m.id for m in models] == ["gpt-test"] and len(sleep.delays) == 1


