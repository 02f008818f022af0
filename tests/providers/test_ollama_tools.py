"""Multi-round tool use through the real Orchestrator against the loopback fake Ollama.

Round 1 is a recorded transcript with tool calls; round 2 must carry the assistant's
``tool_calls`` (arguments as objects), its ``thinking``, and one ``tool`` message per
result with ``tool_name`` — exactly the shapes of Ollama's docs/api.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.core.messages import Message, ToolCallPart, ToolResultPart
from desktop.core.orchestrator import Orchestrator
from desktop.core.provider import ChatRequest, ToolSpec
from desktop.providers.ollama import OllamaProvider
from desktop.providers.ollama_format import SERVER_ID, build_ollama_body
from desktop.providers.retry import RetryPolicy
from tests.support.ollama_server import FakeOllamaServer

DATA = Path(__file__).parent / "data"
WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


class WeatherTools:
    """``get_weather`` answers from a table; every call is recorded."""

    def __init__(self) -> None:
        self.calls: list[ToolCallPart] = []

    def specs(self) -> list[ToolSpec]:
        return [ToolSpec("get_weather", "Current weather in a city", WEATHER)]

    async def run(self, call: ToolCallPart) -> ToolResultPart:
        self.calls.append(call)
        city = json.loads(call.arguments)["city"]
        temperature = {"Paris": "18 °C", "London": "15 °C"}.get(city, "22 °C")
        return ToolResultPart(tool_call_id=call.id, name=call.name, content=temperature)


@pytest.fixture
def ollama() -> Iterator[FakeOllamaServer]:
    with FakeOllamaServer(models=["llama3.1:8b"]) as server:
        yield server


async def run_two_rounds(
    server: FakeOllamaServer, first: str
) -> tuple[list[Message], WeatherTools, Any]:
    server.enqueue_ndjson((DATA / first).read_bytes(), 7)
    server.enqueue_ndjson((DATA / "ollama_tool_answer.ndjson").read_bytes(), 7)
    tools = WeatherTools()
    history = [Message.user("Weather in Paris and London?")]
    async with OllamaProvider(server.base_url, retry=RetryPolicy.disabled()) as provider:
        result = await Orchestrator(provider, tools).run(
            history, model="llama3.1:8b", system="Be brief."
        )
    assert result.status == "complete"
    assert result.text == "It’s 18 °C in Paris and 15 °C in London."
    return history, tools, server.chat_requests[1].json


async def test_two_calls_to_the_same_tool_round_trip(ollama: FakeOllamaServer) -> None:
    history, tools, second = await run_two_rounds(ollama, "ollama_same_tool_twice.ndjson")
    assert [m.role for m in history] == ["user", "assistant", "tool", "assistant"]
    # Both calls ran, with distinct made-up ids (the server sent none).
    assert [json.loads(c.arguments) for c in tools.calls] == [{"city": "Paris"},
                                                             {"city": "London"}]  # fmt: skip
    ids = [c.id for c in tools.calls]
    assert len(set(ids)) == 2 and all(i.startswith("call_") for i in ids)
    assert not any(c.provider_data for c in history[1].tool_calls)
    assert history[1].finish_reason == "tool_calls"
    first = ollama.chat_requests[0].json
    assert first["tools"] == [
        {"type": "function", "function": {"name": "get_weather",
                                          "description": "Current weather in a city",
                                          "parameters": WEATHER}}
    ]  # fmt: skip
    assert second["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris and London?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
                {"function": {"name": "get_weather", "arguments": {"city": "London"}}},
            ],
        },
        {"role": "tool", "content": "18 °C", "tool_name": "get_weather"},
        {"role": "tool", "content": "15 °C", "tool_name": "get_weather"},
    ]
    assert second["tools"] == first["tools"] and second["stream"] is True


async def test_server_ids_and_thinking_are_sent_back(ollama: FakeOllamaServer) -> None:
    history, tools, second = await run_two_rounds(ollama, "ollama_tool_call.ndjson")
    call = history[1].tool_calls[0]
    assert (call.id, call.provider_data) == ("call_k3v9x2qa", {SERVER_ID: True})
    assert history[1].reasoning == (
        "The user wants the weather in São Paulo; I should call get_weather."
    )
    assert second["messages"][2:] == [
        {
            "role": "assistant",
            "content": "",
            "thinking": "The user wants the weather in São Paulo; I should call get_weather.",
            "tool_calls": [
                {"id": "call_k3v9x2qa",
                 "function": {"name": "get_weather",
                              "arguments": {"city": "São Paulo", "unit": "celsius"}}}
            ],
        },
        {"role": "tool", "content": "22 °C", "tool_name": "get_weather",
         "tool_call_id": "call_k3v9x2qa"},
    ]  # fmt: skip
    # The flag survives storage (messages are saved as JSON) and gives the same body.
    stored = [Message.model_validate_json(m.model_dump_json()) for m in history]
    request = ChatRequest(model="llama3.1:8b", messages=stored[:3], system="Be brief.",
                          tools=tools.specs())  # fmt: skip
    assert build_ollama_body(request)["messages"] == second["messages"]
