"""OpenAIResponsesProvider end to end against the loopback fake Responses server: what
is particular to the Responses API (the streaming contract shared by every API:
test_stream_contract)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from desktop.core.errors import ConfigError, ProviderError
from desktop.core.events import (
    EndEvent,
    ErrorEvent,
    ReasoningComplete,
    ReasoningDelta,
    SourcesEvent,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    ToolCallStarted,
    UsageEvent,
)
from desktop.core.messages import Message, Source, TextPart, Usage
from desktop.core.provider import ChatRequest, ModelInfo, Provider, ToolSpec
from desktop.core.settings import ProviderConfig
from desktop.providers.factory import create_provider
from desktop.providers.openai_responses import OpenAIResponsesProvider
from desktop.providers.retry import RetryPolicy
from tests.support.fixtures import RecordingSleep
from tests.support.openai_server import ScriptedResponse
from tests.support.responses_server import FakeResponsesServer

DATA = Path(__file__).parent / "data" / "responses"
KEY = "sk-test-abcdefghijklmnop0123456789"
REQUEST = ChatRequest(model="gpt-test", messages=[Message.user("Hi")])


@pytest.fixture
def server() -> Iterator[FakeResponsesServer]:
    with FakeResponsesServer() as fake:
        yield fake


def fixture_bytes(name: str) -> bytes:
    return (DATA / name).read_bytes()


def done_item(name: str, item_type: str) -> dict[str, Any]:
    """The first ``response.output_item.done`` item of ``item_type`` in a transcript."""
    for line in fixture_bytes(name).splitlines():
        if line.startswith(b"data: "):
            data = json.loads(line[6:])
            if data["type"] == "response.output_item.done" and data["item"]["type"] == item_type:
                item: dict[str, Any] = data["item"]
                return item
    raise AssertionError(f"no {item_type} item in {name}")


@dataclass
class Outcome:
    events: list[StreamEvent]

    @property
    def text(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, TextDelta))

    @property
    def reasoning(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, ReasoningDelta))

    @property
    def calls(self) -> list[tuple[str, str, str]]:
        return [(e.id, e.name, e.arguments) for e in self.of(ToolCallComplete)]

    @property
    def usage(self) -> Usage | None:
        found = [e.usage for e in self.of(UsageEvent)]
        return found[-1] if found else None

    @property
    def last(self) -> StreamEvent:
        return self.events[-1]

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


async def collect(provider: OpenAIResponsesProvider, request: ChatRequest = REQUEST) -> Outcome:
    return Outcome([event async for event in provider.stream(request)])


def make(server: FakeResponsesServer, **kwargs: Any) -> OpenAIResponsesProvider:
    kwargs.setdefault("retry", RetryPolicy(sleep=RecordingSleep()))
    return OpenAIResponsesProvider(
        server.base_url, kwargs.pop("api_key", KEY), name="Fake", **kwargs
    )


def assert_terminal(outcome: Outcome) -> None:
    """Exactly one EndEvent or ErrorEvent, and it is the last event."""
    terminal = [e for e in outcome.events if isinstance(e, EndEvent | ErrorEvent)]
    assert len(terminal) == 1 and terminal[0] is outcome.last


# ---------------------------------------------------------------- recorded transcripts

REASONING = (
    "**Checking the weather**\n\nThe user asks about São Paulo; I should call get_weather."
    "\n\n**Choosing units**\n\nCelsius fits Brazil."
)
EXPECTED: dict[str, dict[str, Any]] = {
    "text.sse": {
        "text": "Sure! Here’s a quick summary:\n\n- **Paris** is the capital of France 🇫🇷.\n"
        "- It is known as *la Ville Lumière* (光の都).\n\nWant more détails?",
        "usage": Usage(input_tokens=1290, output_tokens=41, cached_tokens=1152),
        "end": "stop",
        "response_id": "resp_68a1c0ffee0a81a2b7d4e5f60718293a0b1c2d3e4f506172",
    },
    "reasoning_tool_call.sse": {
        "reasoning": REASONING,
        "calls": [
            (
                "call_Qm3xV8tLr2Kp9Wn4Zs7Yb1Hd",
                "get_weather",
                '{"city":"São Paulo, Brazil","unit":"celsius"}',
            )
        ],
        "usage": Usage(input_tokens=312, output_tokens=187, reasoning_tokens=128),
        "end": "tool_calls",
        "response_id": "resp_68a1c1aa5e9c8190a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8",
    },
    "parallel_calls.sse": {
        "calls": [
            ("call_fT3nK8pQ2vL5xM9zR1wB7cYd", "read_file", '{"path":"src/main.py"}'),
            (
                "call_Jh6sW2eR9tY4uI1oP8aS3dFg",
                "search_files",
                '{"pattern":"def main(","glob":"**/*.py"}',
            ),
        ],
        "usage": Usage(input_tokens=452, output_tokens=53, cached_tokens=384),
        "end": "tool_calls",
        "response_id": "resp_68a1c2bb6f0d8190b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9",
    },
    "url_citation.sse": {
        "text": "Here are two uplifting stories from today:\n\n1. A rare white bison calf was "
        "born ([example-news.test](https://www.example-news.test/bison?utm_source=openai)).\n"
        "2. A community garden now feeds 400 families ([local.example.org](https://local."
        "example.org/garden-2025?utm_source=openai)).\n\nThe bison story again: ([example-"
        "news.test](https://www.example-news.test/bison?utm_source=openai)).",
        "sources": [
            Source(
                title="Rare white bison calf born in Yellowstone",
                url="https://www.example-news.test/bison?utm_source=openai",
            ),
            Source(
                title="Community garden feeds 400 families",
                url="https://local.example.org/garden-2025?utm_source=openai",
            ),
        ],
        "usage": Usage(input_tokens=8921, output_tokens=97),
        "end": "stop",
        "response_id": "resp_68a1c3cc7a1e8190c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0",
    },
    "incomplete.sse": {
        "text": "Rivers shape landscapes by erosion and",
        "reasoning": "**Drafting**\n\nA long essay is wanted.",
        "usage": Usage(input_tokens=64, output_tokens=256, reasoning_tokens=248),
        "end": "length",
        "response_id": "resp_68a1c5ee9c3a8190a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d3",
    },
    "failed.sse": {
        "text": "The answer is",
        "error": ("The model failed to generate a response. Please try again.", "server_error"),
    },
    "error_event.sse": {
        "text": "Partial",
        "error": ("The server had an error processing your request.", "server_error"),
    },
    "cut.sse": {
        "text": "Once upon a time, in a",
        "error": ("the stream ended unexpectedly", "stream_interrupted"),
    },
}


def check_expected(name: str, outcome: Outcome) -> None:
    expected = EXPECTED[name]
    assert outcome.text == expected.get("text", "")
    assert outcome.reasoning == expected.get("reasoning", "")
    assert outcome.calls == expected.get("calls", [])
    started = [(e.index, e.id, e.name) for e in outcome.of(ToolCallStarted)]
    assert [(e.index, e.id, e.name) for e in outcome.of(ToolCallComplete)] == started
    sources = [s for e in outcome.of(SourcesEvent) for s in e.sources]
    assert sources == expected.get("sources", [])
    if expected.get("reasoning"):
        item = done_item(name, "reasoning")
        assert outcome.of(ReasoningComplete) == [
            ReasoningComplete(
                expected["reasoning"],
                provider_data={"id": item["id"], "encrypted_content": item["encrypted_content"]},
            )
        ]
    for event in outcome.of(ToolCallComplete):
        assert event.provider_data["item_id"].startswith("fc_")
    assert outcome.usage == expected.get("usage")
    assert_terminal(outcome)
    if "error" in expected:
        fragment, code = expected["error"]
        assert isinstance(outcome.last, ErrorEvent)
        assert outcome.last.message.startswith("Fake: ") and fragment in outcome.last.message
        assert outcome.last.code == code
    else:
        assert outcome.last == EndEvent(expected["end"], {"response_id": expected["response_id"]})


@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_recorded_transcript_over_loopback(server: FakeResponsesServer, name: str) -> None:
    """What each transcript means (any chunking gives the same: test_stream_contract)."""
    data = fixture_bytes(name)
    server.enqueue(ScriptedResponse(chunks=[data], cut=name == "cut.sse"))
    async with make(server) as provider:
        outcome = await collect(provider)
    check_expected(name, outcome)


def test_every_transcript_is_checked() -> None:
    assert sorted(p.name for p in DATA.glob("*.sse")) == sorted(EXPECTED)


async def test_request_headers_and_body(server: FakeResponsesServer) -> None:
    server.enqueue_text("ok")
    provider = make(server, headers={"X-Title": "Assista Desktop"})
    request = ChatRequest(
        model="gpt-test", messages=[Message.user("Hi")], system="Be brief", temperature=0.5
    )
    await collect(provider, request)
    await provider.aclose()
    recorded = server.responses_requests[0]
    assert recorded.method == "POST" and recorded.path == "/v1/responses"
    assert recorded.headers["authorization"] == f"Bearer {KEY}"
    assert recorded.headers["x-title"] == "Assista Desktop"
    assert recorded.headers["accept"] == "text/event-stream"
    assert recorded.headers["content-type"] == "application/json"
    assert recorded.json == {
        "model": "gpt-test",
        "instructions": "Be brief",
        "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]}
        ],
        "stream": True,
        "temperature": 0.5,
    }


async def test_replay_mode_body(server: FakeResponsesServer) -> None:
    server.enqueue_text("ok")
    request = ChatRequest(
        model="o4-mini",
        messages=[Message.user("Hi")],
        tools=[ToolSpec("read_file", "Read a file", {"type": "object"})],
        reasoning_effort="high",
        max_tokens=800,
    )
    async with make(server, options={"responses_mode": "replay"}) as provider:
        outcome = await collect(provider, request)
    assert outcome.last == EndEvent("stop", {"response_id": "resp_text", "stored": False})
    body = server.bodies[0]
    assert body["store"] is False and body["include"] == ["reasoning.encrypted_content"]
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["max_output_tokens"] == 800
    assert body["tools"] == [
        {
            "type": "function",
            "name": "read_file",
            "strict": False,
            "description": "Read a file",
            "parameters": {"type": "object"},
        }
    ]
    assert "previous_response_id" not in body


def test_is_a_provider_and_checks_its_mode() -> None:
    provider = OpenAIResponsesProvider("https://api.openai.com/v1", KEY)
    assert isinstance(provider, Provider) and provider.mode == "chain"
    assert provider.name == "OpenAI (Responses API)"
    assert provider.supports_tools and provider.supports_reasoning
    assert KEY not in repr(provider)
    with pytest.raises(ConfigError, match=r"invalid option responses_mode: .*'chain' or 'replay'"):
        OpenAIResponsesProvider("http://x/v1", options={"responses_mode": "stateless"})


def test_factory_builds_it_from_a_config() -> None:
    config = ProviderConfig(
        name="OpenAI R",
        kind="openai-responses",
        base_url="https://api.openai.com/v1",
        options={"responses_mode": "replay"},
    )
    provider = create_provider(config, KEY)
    assert isinstance(provider, OpenAIResponsesProvider)
    assert (provider.name, provider.mode) == ("OpenAI R", "replay")


async def test_server_ignoring_stream_flag(server: FakeResponsesServer) -> None:
    whole = {
        "id": "resp_whole",
        "object": "response",
        "status": "completed",
        "output": [
            {
                "id": "rs_1",
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "Think"}],
            },
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "Whole", "annotations": []}],
            },
            {
                "id": "fc_1",
                "type": "function_call",
                "call_id": "call_1",
                "name": "f",
                "arguments": "{}",
                "status": "completed",
            },
        ],
        "usage": {"input_tokens": 3, "output_tokens": 2},
    }
    server.enqueue(ScriptedResponse.json_body(whole))
    async with make(server) as provider:
        outcome = await collect(provider)
    assert outcome.text == "Whole"
    assert outcome.of(ReasoningComplete) == [
        ReasoningComplete("Think", provider_data={"id": "rs_1"})
    ]
    assert outcome.calls == [("call_1", "f", "{}")]
    assert outcome.usage == Usage(input_tokens=3, output_tokens=2)
    assert outcome.last == EndEvent("tool_calls", {"response_id": "resp_whole"})


# ---------------------------------------------------------------- chain / replay fallbacks


def turn_two(response_id: str = "resp_1") -> ChatRequest:
    answered = Message(
        role="assistant",
        parts=[TextPart(text="Hello!")],
        provider_data={"response_id": response_id},
    )
    return ChatRequest(
        model="gpt-test", messages=[Message.user("Hi"), answered, Message.user("More")]
    )


async def test_chain_sends_previous_response_id_and_new_items(
    server: FakeResponsesServer,
) -> None:
    server.enqueue_text("first", response_id="resp_1")
    server.enqueue_text("second", response_id="resp_2")
    async with make(server) as provider:
        await collect(provider)
        outcome = await collect(provider, turn_two("resp_1"))
    assert outcome.text == "second" and outcome.last == EndEvent("stop", {"response_id": "resp_2"})
    body = server.bodies[1]
    assert body["previous_response_id"] == "resp_1"
    assert body["input"] == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "More"}]}
    ]


async def test_forgotten_response_falls_back_to_the_whole_conversation(
    server: FakeResponsesServer,
) -> None:
    server.enqueue_text("again", response_id="resp_new")
    sleep = RecordingSleep()
    async with make(server, retry=RetryPolicy(sleep=sleep)) as provider:
        outcome = await collect(provider, turn_two("resp_unknown"))
    assert outcome.text == "again" and not outcome.of(ErrorEvent)
    assert outcome.last == EndEvent("stop", {"response_id": "resp_new"})
    first, second = server.bodies
    assert first["previous_response_id"] == "resp_unknown" and len(first["input"]) == 1
    assert "previous_response_id" not in second and "store" not in second  # stored: chains
    assert [item.get("role") for item in second["input"]] == ["user", "assistant", "user"]
    assert second["input"][1] == {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Hello!"}],
    }
    assert sleep.delays == []  # no retry wait: a different request, sent at once


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (
            400,
            {
                "error": {
                    "message": "Previous response with id 'resp_x' not found.",
                    "type": "invalid_request_error",
                    "param": "previous_response_id",
                    "code": "previous_response_not_found",
                }
            },
        ),
        (
            404,
            {"error": {"message": "Previous response with id 'resp_x' not found.", "code": None}},
        ),
        (400, {"error": {"message": "Item not found", "param": "previous_response_id"}}),
    ],
)
async def test_previous_response_missing_variants(
    server: FakeResponsesServer, status: int, body: dict[str, Any]
) -> None:
    server.enqueue(ScriptedResponse.json_body(body, status))
    server.enqueue_text("ok", response_id="resp_ok")
    server.stored["resp_1"] = []  # the fake itself would accept the id: the script says no
    async with make(server) as provider:
        outcome = await collect(provider, turn_two("resp_1"))
    assert outcome.text == "ok"
    assert "previous_response_id" not in server.bodies[1]


async def test_other_400_is_reported_without_fallback(server: FakeResponsesServer) -> None:
    server.enqueue_error(400, "Invalid value: 'input_image'.", code="invalid_value")
    server.stored["resp_1"] = []
    async with make(server) as provider:
        outcome = await collect(provider, turn_two("resp_1"))
    assert outcome.events == [
        ErrorEvent(
            "Fake (HTTP 400): Invalid value: 'input_image'.",
            code="invalid_value",
            status=400,
            provider="Fake",
        )
    ]
    assert len(server.bodies) == 1


async def test_replay_drops_include_for_models_without_encrypted_reasoning(
    server: FakeResponsesServer,
) -> None:
    server.enqueue(
        ScriptedResponse.json_body(
            {
                "error": {
                    "message": "Encrypted content is not supported with this model.",
                    "type": "invalid_request_error",
                    "param": "include",
                    "code": None,
                }
            },
            400,
        )
    )
    server.enqueue_text("one")
    server.enqueue_text("two")
    async with make(server, options={"responses_mode": "replay"}) as provider:
        assert (await collect(provider)).text == "one"
        assert (await collect(provider)).text == "two"
    assert [("include" in body, body["store"]) for body in server.bodies] == [
        (True, False),
        (False, False),
        (False, False),  # remembered for this model
    ]


# ---------------------------------------------------------------- list_models
# (statuses, retries, cut streams, redaction: test_stream_contract, for every API)


async def test_list_models(server: FakeResponsesServer) -> None:
    server.models = ["o4-mini", "gpt-4.1"]
    async with make(server) as provider:
        assert await provider.list_models() == [
            ModelInfo("gpt-4.1", owned_by="fake"),
            ModelInfo("o4-mini", owned_by="fake"),
        ]
    assert server.requests[0].path == "/v1/models"


async def test_list_models_error(server: FakeResponsesServer) -> None:
    server.enqueue(ScriptedResponse.error(401, "Invalid API key"), path="/v1/models")
    async with make(server) as provider:
        with pytest.raises(ProviderError, match=r"Fake \(HTTP 401\): Invalid API key"):
            await provider.list_models()
