"""Servers that ask, through the chat service: a real SDK server (stdio, both protocol
eras) elicits and samples during a turn; sampling needs the approver's yes, shows the
exact messages and runs on the chat's model (a loopback OpenAI-compatible server)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop.chat.profile import NewChat
from desktop.chat.sampling import ChatSampler
from desktop.chat.service import ChatService
from desktop.chat.turn_plan import TurnOverrides
from desktop.tools.approval import allow_all
from desktop.tools.mcp.server_requests import (
    ElicitationAnswer,
    ElicitationRequest,
    SamplingRequest,
)
from tests.support.openai_server import FakeOpenAIServer
from tests.tools.mcp_servers import feature_config


async def run_turn(service: ChatService, tool: str, args: dict[str, Any],
                   protocol: str) -> str:
    """One turn whose model calls ``features__<tool>``; returns the tool's result text."""
    results = await service.tools.start_mcp([feature_config(protocol=protocol)])
    assert results == {"features": True}
    try:
        turn = service.start(NewChat(), "go", overrides=TurnOverrides(
            extra_tools=[f"features__{tool}"]), approver=allow_all, save=True)
        assert turn.task is not None
        await turn.task
        assert turn.result is not None, turn.failure
        [result] = [p for m in turn.result.new_messages for p in m.parts
                    if getattr(p, "type", "") == "tool_result"]
        payload = json.loads(result.content)  # type: ignore[union-attr]
        return str(payload.get("result", payload.get("error", {})).get(
            "text", payload.get("error", {}).get("message", "")))
    finally:
        await service.tools.stop_mcp()


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_elicitation_goes_to_the_elicitor_with_the_chat(
        service: ChatService, server: FakeOpenAIServer, protocol: str) -> None:
    asked: list[ElicitationRequest] = []

    async def elicitor(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer("accept", {"name": "Ann", "age": 7})

    service.tools.elicitor = elicitor
    server.enqueue_tool_calls([("features__register", "{}")])
    server.enqueue_text("done")
    assert await run_turn(service, "register", {}, protocol) == "registered Ann (7)"
    [request] = asked
    assert request.server == "features" and request.message == "Who are you?"
    assert list(request.fields) == ["name", "age"] and request.required == ["name", "age"]
    assert request.origin is not None  # the chat the turn ran in
    assert service.sessions.get_session(request.origin) is not None


async def test_without_an_elicitor_the_question_is_declined(
        service: ChatService, server: FakeOpenAIServer) -> None:
    server.enqueue_tool_calls([("features__register", "{}")])
    server.enqueue_text("done")
    text = await run_turn(service, "register", {}, "auto")
    # Without an elicitor the capability is not advertised, so the server knows not to ask.
    assert "did not declare the form elicitation capability" in text


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_sampling_runs_on_the_chats_model_after_approval(
        service: ChatService, server: FakeOpenAIServer, protocol: str) -> None:
    shown: list[SamplingRequest] = []

    async def approve(request: SamplingRequest) -> bool:
        shown.append(request)
        return True

    service.tools.sampler = ChatSampler(service, approve)
    server.enqueue_tool_calls([("features__haiku", '{"topic": "rain"}')])
    server.enqueue_text("leaves fall softly")  # the sampling request's answer
    server.enqueue_text("Here is your haiku.")
    assert await run_turn(service, "haiku", {"topic": "rain"}, protocol) == \
        "model gpt-test said: leaves fall softly"
    [request] = shown
    assert request.system_prompt == "You write haiku."
    assert [(m.role, m.parts[0].text) for m in request.messages] == [  # type: ignore[union-attr]
        ("user", "A haiku on rain")]
    sampled = server.chat_requests[1].json
    assert sampled["model"] == "gpt-test"
    assert sampled["messages"] == [{"role": "system", "content": "You write haiku."},
                                   {"role": "user", "content": "A haiku on rain"}]
    assert "tools" not in sampled
    session = service.sessions.load_active_branch(request.origin or "")
    assert any("haiku" in str(m.parts) for m in session.messages)  # the origin is this chat


async def test_denied_sampling_never_reaches_the_model(
        service: ChatService, server: FakeOpenAIServer) -> None:
    async def deny(request: SamplingRequest) -> bool:
        return False

    service.tools.sampler = ChatSampler(service, deny)
    server.enqueue_tool_calls([("features__haiku", '{"topic": "rain"}')])
    server.enqueue_text("I could not write it.")
    text = await run_turn(service, "haiku", {"topic": "rain"}, "auto")
    assert "declined" in text
    assert len(server.chat_requests) == 2  # the turn's two requests, no sampling one
