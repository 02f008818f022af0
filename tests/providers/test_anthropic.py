"""AnthropicProvider end to end against the loopback fake Messages API server: what is
particular to Anthropic (the streaming contract shared by every API: test_stream_contract)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

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
from desktop.core.messages import Message, Source, Usage
from desktop.core.provider import ChatRequest, Provider
from desktop.providers.anthropic import AnthropicProvider
from desktop.providers.factory import create_provider
from desktop.providers.presets import config_from_preset
from desktop.providers.retry import RetryPolicy
from tests.support.anthropic_server import (
    FakeAnthropicServer,
    ScriptedResponse,
    anthropic_server,
)
from tests.support.fixtures import RecordingSleep

__all__ = ["anthropic_server"]  # the fixture, imported for this module

DATA = Path(__file__).parent / "data" / "anthropic"
KEY = "sk-ant-api03-abcdefghijklmnop0123456789"
REQUEST = ChatRequest(model="claude-sonnet-4-5", messages=[Message.user("Hi")])


def transcript(name: str) -> bytes:
    return (DATA / name).read_bytes()


def signatures(name: str) -> list[str]:
    return re.findall(r'"signature":"([^"]+)"', transcript(name).decode())


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
        return [(e.id, e.name, e.arguments) for e in self.of(ToolCallComplete)]

    @property
    def sources(self) -> list[Source]:
        return [s for e in self.of(SourcesEvent) for s in e.sources]

    @property
    def last(self) -> StreamEvent:
        return self.events[-1]

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


async def collect(provider: AnthropicProvider, request: ChatRequest = REQUEST) -> Outcome:
    return Outcome([event async for event in provider.stream(request)])


def make(server: FakeAnthropicServer, **kwargs: Any) -> AnthropicProvider:
    kwargs.setdefault("retry", RetryPolicy(sleep=RecordingSleep()))
    return AnthropicProvider(server.url, kwargs.pop("api_key", KEY), name="Fake", **kwargs)


def assert_terminal(outcome: Outcome) -> None:
    """Exactly one EndEvent or ErrorEvent, it is last, and usage comes once just before."""
    terminal = [e for e in outcome.events if isinstance(e, EndEvent | ErrorEvent)]
    assert len(terminal) == 1 and terminal[0] is outcome.last
    usage = [i for i, e in enumerate(outcome.events) if isinstance(e, UsageEvent)]
    assert usage in ([], [len(outcome.events) - 2])


# ---------------------------------------------------------------- recorded transcripts
#
# data/anthropic/*.sse are raw response bodies in the documented event format (`event:`
# line + compact JSON `data:`, `ping` with the spaced JSON the API sends), written after
# real transcripts. They live in a subfolder because test_openai_sdk_differential.py feeds
# every data/*.sse to the openai SDK.
#   text              message_start with cache usage fields, ping, UTF-8 text (flag emoji,
#                     CJK), message_delta with cumulative input and output usage
#   thinking_tool_use thinking deltas + signature_delta, text, tool_use whose input JSON
#                     arrives in 9 input_json_delta pieces (the first empty), cache reads
#   parallel_tools    text then two tool_use blocks, cache writes, output-only final usage
#   redacted_thinking thinking + signature, a redacted_thinking block, text (3.7 Sonnet)
#   citations         document citations: char_location and page_location citations_delta
#                     in separate text blocks, one source cited twice (spaced JSON)
#   web_search        server_tool_use + web_search_tool_result (not client tool calls),
#                     web_search_result_location citation, server_tool_use usage
#   refusal           stop_reason refusal with stop_details
#   error_event       text, then `event: error` overloaded_error; the body ends
#   cut               text, then the body stops in the middle of a data line
#   max_tokens_tool   tool_use input cut by max_tokens (block stopped, invalid JSON)

WEATHER_ARGS = '{"location": "São Paulo, Brazil", "unit": "celsius", "days": 3}'
EXPECTED: dict[str, dict[str, Any]] = {
    "anthropic_text.sse": {
        "text": "Bonjour ! Paris est la capitale de la France 🇫🇷.\n\nOn l’appelle aussi "
        "*la Ville Lumière* (光の都). Ça vous aide ?",
        "usage": Usage(input_tokens=21, output_tokens=42),
        "end": EndEvent("stop", {"raw_finish_reason": "end_turn"}),
    },
    "anthropic_thinking_tool_use.sse": {
        "reasoning": "The user wants the weather in São Paulo for the next three days. I have a "
        "get_weather tool that takes a location and a number of days. Celsius is the sensible "
        "unit there.",
        "text": "I'll look up the forecast for São Paulo.",
        "calls": [("toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather", WEATHER_ARGS)],
        "usage": Usage(input_tokens=2242, output_tokens=187, cached_tokens=1830),
        "end": EndEvent("tool_calls", {"raw_finish_reason": "tool_use"}),
    },
    "anthropic_parallel_tools.sse": {
        "text": "Let me read the entry point and search for `main` at the same time.",
        "calls": [
            ("toolu_01A09q90qw90lq917835lq9", "read_file", '{"path": "src/main.py"}'),
            (
                "toolu_01B5fD8pW3xQ7mN2kR9sT4vY",
                "search_files",
                '{"pattern": "def main(", "glob": "**/*.py"}',
            ),
        ],
        "usage": Usage(input_tokens=3252, output_tokens=118),
        "end": EndEvent("tool_calls", {"raw_finish_reason": "tool_use"}),
    },
    "anthropic_redacted_thinking.sse": {
        "reasoning": "Checking the request against policy; the safe part can be answered.",
        "redacted": True,
        "text": "Here is what I can tell you: the reaction is exothermic.",
        "usage": Usage(input_tokens=96, output_tokens=251),
        "end": EndEvent("stop", {"raw_finish_reason": "end_turn"}),
    },
    "anthropic_citations.sse": {
        "text": "According to the handbook, you get 25 days of paid leave a year, and unused days "
        "carry over until 31 March.",
        "sources": [
            Source(
                title="Employee Handbook 2025",
                snippet="Employees accrue 25 days of paid leave per year.",
            ),
            Source(title="Leave Policy (PDF)", snippet="Unused days carry over until 31 March."),
            Source(
                title="Employee Handbook 2025",
                snippet="Employees accrue 25 days of paid leave per year.",
            ),
        ],
        "usage": Usage(input_tokens=1560, output_tokens=64),
        "end": EndEvent("stop", {"raw_finish_reason": "end_turn"}),
    },
    "anthropic_web_search.sse": {  # server tools run at Anthropic: no client tool calls
        "text": "I'll search for that.Python 3.14 was released on 7 October 2025.",
        "sources": [
            Source(
                title="PEP 745 – Python 3.14 Release Schedule",
                url="https://peps.python.org/pep-0745/",
                snippet="Python 3.14.0 was released on 7 October 2025.",
            ),
        ],
        "usage": Usage(input_tokens=2210, output_tokens=97),
        "end": EndEvent("stop", {"raw_finish_reason": "end_turn"}),
    },
    "anthropic_refusal.sse": {
        "text": "I can't help with that.",
        "usage": Usage(input_tokens=44, output_tokens=9),
        "end": EndEvent("content_filter", {"raw_finish_reason": "refusal"}),
    },
    "anthropic_error_event.sse": {
        "text": "The answer is",
        "usage": Usage(input_tokens=30, output_tokens=1),
        "error": ("Fake: Overloaded", "overloaded_error"),
    },
    "anthropic_cut.sse": {
        "text": "Once upon a time, in a",
        "usage": Usage(input_tokens=12, output_tokens=1),
        "error": ("Fake: the stream ended unexpectedly", "stream_interrupted"),
    },
    "anthropic_max_tokens_tool.sse": {
        "started": [(0, "toolu_01MxTk9rQ2vL5xM9zR1wB7cY", "write_file")],
        "usage": Usage(input_tokens=640, output_tokens=32),
        "error": (
            "Fake: the response reached max_tokens in the middle of tool call "
            "'write_file'; raise max_tokens",
            "max_tokens",
        ),
    },
}


def check_expected(outcome: Outcome, name: str) -> None:
    expected = EXPECTED[name]
    assert outcome.text == expected.get("text", "")
    assert outcome.reasoning == expected.get("reasoning", "")
    assert outcome.calls == expected.get("calls", [])
    started = [(e.index, e.id, e.name) for e in outcome.of(ToolCallStarted)]
    assert started == expected.get(
        "started", [(i, c[0], c[1]) for i, c in enumerate(outcome.calls)]
    )
    assert outcome.sources == expected.get("sources", [])
    completed = outcome.of(ReasoningComplete)
    thinking = [ReasoningComplete(expected["reasoning"], s) for s in signatures(name)]
    if expected.get("redacted"):
        data = re.findall(r'"data":"([^"]+)"', transcript(name).decode())
        thinking.append(ReasoningComplete(redacted=True, provider_data={"data": data[0]}))
    assert completed == thinking
    assert outcome.of(UsageEvent) == [UsageEvent(expected["usage"])]
    assert_terminal(outcome)
    if "error" in expected:
        message, code = expected["error"]
        assert isinstance(outcome.last, ErrorEvent)
        assert outcome.last.message.startswith(message) and outcome.last.code == code
    else:
        assert outcome.last == expected["end"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_recorded_transcript_over_loopback(
    anthropic_server: FakeAnthropicServer, name: str
) -> None:
    """What each transcript means (any chunking gives the same: test_stream_contract)."""
    data = transcript(name)
    anthropic_server.enqueue(ScriptedResponse(chunks=[data], cut=name == "anthropic_cut.sse"))
    async with make(anthropic_server) as provider:
        outcome = await collect(provider)
    check_expected(outcome, name)


def test_every_transcript_has_expectations() -> None:
    assert sorted(p.name for p in DATA.glob("anthropic_*.sse")) == sorted(EXPECTED)


def mock_client(chunks: list[bytes], status: int = 200) -> httpx.AsyncClient:
    """An httpx client whose response body arrives in exactly these chunks."""

    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    def handler(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(status, headers=headers, content=body())

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def test_event_order_of_a_thinking_tool_turn() -> None:
    async with mock_client([transcript("anthropic_thinking_tool_use.sse")]) as client:
        provider = AnthropicProvider("http://test", name="Fake", client=client)
        outcome = await collect(provider)
    kinds: list[str] = []
    for event in outcome.events:
        if not kinds or kinds[-1] != event.type:
            kinds.append(event.type)
    assert kinds == [
        "reasoning_delta",
        "reasoning_complete",
        "text_delta",
        "tool_call_started",
        "tool_call_complete",
        "usage",
        "end",
    ]


async def test_server_ignoring_stream_flag(anthropic_server: FakeAnthropicServer) -> None:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [
            {"type": "thinking", "thinking": "Short.", "signature": "c2ln"},
            {"type": "text", "text": "Calling.", "citations": None},
            {"type": "tool_use", "id": "toolu_9", "name": "read_file", "input": {"path": "a"}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 7, "cache_read_input_tokens": 2},
    }
    anthropic_server.enqueue(ScriptedResponse.json_body(message))
    async with make(anthropic_server) as provider:
        outcome = await collect(provider)
    assert outcome.reasoning == "Short." and outcome.text == "Calling."
    assert outcome.of(ReasoningComplete) == [ReasoningComplete("Short.", "c2ln")]
    assert outcome.calls == [("toolu_9", "read_file", '{"path": "a"}')]
    assert outcome.of(UsageEvent) == [
        UsageEvent(Usage(input_tokens=5, output_tokens=7, cached_tokens=2))
    ]
    assert outcome.last == EndEvent("tool_calls", {"raw_finish_reason": "tool_use"})


# ---------------------------------------------------------------- set-up
# (statuses, retries, cut streams, redaction, hygiene: test_stream_contract, for every API)


def test_is_a_provider_and_hides_the_key() -> None:
    provider = AnthropicProvider("https://api.anthropic.com/v1/", KEY)
    assert isinstance(provider, Provider)
    assert provider.name == "Anthropic" and provider.supports_tools and provider.supports_reasoning
    assert provider.base_url == "https://api.anthropic.com"
    assert KEY not in repr(provider)


async def test_created_by_the_factory_from_the_preset(
    anthropic_server: FakeAnthropicServer,
) -> None:
    config = config_from_preset(
        "anthropic", base_url=anthropic_server.url + "/v1", options={"thinking": True}
    )
    provider = create_provider(config, KEY, retry=RetryPolicy.disabled())
    assert isinstance(provider, AnthropicProvider) and provider.name == "Anthropic"
    anthropic_server.enqueue_text("ok")
    outcome = Outcome([e async for e in provider.stream(REQUEST)])
    await provider.aclose()
    assert outcome.text == "ok"
    sent = anthropic_server.last_messages_body
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": 8192}
