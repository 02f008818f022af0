"""Multi-turn round trips: the real orchestrator, OpenAIResponsesProvider and the fake
Responses server, which rejects unknown ``previous_response_id`` values and
``function_call_output`` items that answer no known call, as OpenAI does."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from desktop.core.events import ErrorEvent
from desktop.core.messages import Message, ReasoningPart, ToolCallPart, ToolResultPart
from desktop.core.orchestrator import Orchestrator
from desktop.core.provider import ToolSpec
from desktop.providers.openai_responses import OpenAIResponsesProvider
from desktop.providers.retry import RetryPolicy
from tests.support.fixtures import RecordingSleep
from tests.support.responses_server import FakeResponsesServer

ENCRYPTED = "gAAAAABoEncryptedReasoningBlob_" + "x" * 64
CALL = ("call_w1", "get_weather", '{"city":"São Paulo"}')
WEATHER = '{"temp_c": 24, "sky": "clear"}'


class WeatherTools:
    def specs(self) -> list[ToolSpec]:
        return [ToolSpec("get_weather", "Current weather", {"type": "object"})]

    async def run(self, call: ToolCallPart) -> ToolResultPart:
        return ToolResultPart(tool_call_id=call.id, name=call.name, content=WEATHER)


@pytest.fixture
def server() -> Iterator[FakeResponsesServer]:
    with FakeResponsesServer() as fake:
        yield fake


def script_turn_one(server: FakeResponsesServer) -> None:
    server.enqueue_calls([CALL], reasoning=("Need the weather.", ENCRYPTED), response_id="resp_1")
    server.enqueue_text("It is 24 °C and clear.", response_id="resp_2")


async def run_turn(
    provider: OpenAIResponsesProvider, history: list[Message], text: str
) -> list[Any]:
    """One user turn through the orchestrator; the history then survives storage."""
    history.append(Message.user(text))
    seen: list[Any] = []
    result = await Orchestrator(provider, WeatherTools()).run(
        history, model="o4-mini", system="Be brief.", sink=seen.append
    )
    assert result.status == "complete", result.error
    history[:] = [Message.model_validate_json(m.model_dump_json()) for m in history]
    return seen


def user_item(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


OUTPUT = {"type": "function_call_output", "call_id": "call_w1", "output": WEATHER}
REASONING_ITEM = {
    "type": "reasoning",
    "summary": [{"type": "summary_text", "text": "Need the weather."}],
    "encrypted_content": ENCRYPTED,
}
CALL_ITEM = {
    "type": "function_call",
    "call_id": "call_w1",
    "name": "get_weather",
    "arguments": '{"city":"São Paulo"}',
}
ANSWER_ITEM = {
    "type": "message",
    "role": "assistant",
    "content": [{"type": "output_text", "text": "It is 24 °C and clear."}],
}


async def test_chain_mode_sends_previous_response_id_and_only_new_items(
    server: FakeResponsesServer,
) -> None:
    script_turn_one(server)
    server.enqueue_text("You're welcome.", response_id="resp_3")
    history: list[Message] = []
    async with OpenAIResponsesProvider(server.base_url, "sk-test", name="R") as provider:
        await run_turn(provider, history, "Weather in São Paulo?")
        await run_turn(provider, history, "Thanks!")
    first, second, third = server.bodies
    assert first["input"] == [user_item("Weather in São Paulo?")]
    assert "previous_response_id" not in first and "store" not in first
    assert second["previous_response_id"] == "resp_1"
    assert second["input"] == [OUTPUT]  # the function_call_output only
    assert second["instructions"] == "Be brief." and second["tools"][0]["name"] == "get_weather"
    assert third["previous_response_id"] == "resp_2"
    assert third["input"] == [user_item("Thanks!")]
    assistant = [m for m in history if m.role == "assistant"]
    assert [m.provider_data for m in assistant] == [
        {"response_id": "resp_1"},
        {"response_id": "resp_2"},
        {"response_id": "resp_3"},
    ]
    reasoning = assistant[0].parts[0]
    assert isinstance(reasoning, ReasoningPart) and reasoning.text == "Need the weather."
    assert reasoning.provider_data == {"id": "rs_resp_1", "encrypted_content": ENCRYPTED}
    assert assistant[0].tool_calls[0].provider_data == {"item_id": "fc_resp_1_0"}


async def test_replay_mode_sends_everything_with_encrypted_reasoning(
    server: FakeResponsesServer,
) -> None:
    script_turn_one(server)
    server.enqueue_text("You're welcome.", response_id="resp_3")
    history: list[Message] = []
    options = {"responses_mode": "replay"}
    async with OpenAIResponsesProvider(server.base_url, options=options) as provider:
        await run_turn(provider, history, "Weather in São Paulo?")
        await run_turn(provider, history, "Thanks!")
    first, second, third = server.bodies
    for body in (first, second, third):
        assert body["store"] is False and body["include"] == ["reasoning.encrypted_content"]
        assert "previous_response_id" not in body
    assert first["input"] == [user_item("Weather in São Paulo?")]
    assert second["input"] == [
        user_item("Weather in São Paulo?"),
        REASONING_ITEM,
        CALL_ITEM,
        OUTPUT,
    ]
    assert third["input"] == [*second["input"], ANSWER_ITEM, user_item("Thanks!")]
    assert server.stored == {}  # nothing was kept server-side
    assert history[1].provider_data == {"response_id": "resp_1", "stored": False}


async def test_chain_falls_back_to_the_whole_conversation_when_the_server_forgot(
    server: FakeResponsesServer,
) -> None:
    script_turn_one(server)
    server.enqueue_text("Still 24 °C.", response_id="resp_3")
    server.enqueue_text("Bye!", response_id="resp_4")
    history: list[Message] = []
    sleep = RecordingSleep()
    provider = OpenAIResponsesProvider(server.base_url, retry=RetryPolicy(sleep=sleep))
    await run_turn(provider, history, "Weather in São Paulo?")
    server.forget()  # e.g. the stored responses expired
    seen = await run_turn(provider, history, "And now?")
    await run_turn(provider, history, "Bye")
    await provider.aclose()
    assert not [e for e in seen if isinstance(e, ErrorEvent)]  # nothing shown to the user
    rejected, replayed, chained = server.bodies[2:]
    assert rejected["previous_response_id"] == "resp_2"
    assert "previous_response_id" not in replayed and "store" not in replayed
    assert replayed["input"] == [
        user_item("Weather in São Paulo?"),
        REASONING_ITEM,
        CALL_ITEM,
        OUTPUT,
        ANSWER_ITEM,
        user_item("And now?"),
    ]
    assert chained["previous_response_id"] == "resp_3"  # stored again: chaining resumes
    assert chained["input"] == [user_item("Bye")]
    assert sleep.delays == []


def test_the_fake_server_checks_what_openai_checks(server: FakeResponsesServer) -> None:
    """The checks the round trips above rely on really reject bad requests."""
    import httpx

    url = f"{server.base_url}/responses"
    unknown = httpx.post(url, json={"model": "m", "previous_response_id": "resp_x", "input": []})
    assert unknown.status_code == 400
    assert unknown.json()["error"]["code"] == "previous_response_not_found"
    orphan = httpx.post(url, json={"model": "m", "input": [OUTPUT]})
    assert orphan.status_code == 400
    assert "No tool call found for function call output" in orphan.json()["error"]["message"]
    assert server.pending() == 0 and server.stored == {}
