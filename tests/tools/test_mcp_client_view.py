"""What the client declares and does, seen from a real SDK server
(tests/tools/mcp_client_view_server.py over stdio): the capabilities it announces
(elicitation in form and URL mode and sampling only when the app can answer them;
never roots), URL-mode elicitation over the wire, and a resource list that changes
while connected.

URL-mode elicitation is tried in the 2025 protocol era (a standalone
``elicitation/create`` mid-call): the SDK's server framework has no URL-mode request
for 2026-07-28 ``input_required`` rounds (its ``Resolve`` only elicits forms)."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest

from desktop.tools.mcp import McpManager
from desktop.tools.mcp.live_lists import ListChanged, McpEvent
from desktop.tools.mcp.server_requests import (
    ElicitationAnswer,
    ElicitationRequest,
    SamplingAnswer,
    SamplingRequest,
)
from tests.tools.mcp_servers import HERE, feature_config, feature_manager

VIEWER = str(HERE / "mcp_client_view_server.py")


def manager(protocol: str, **kwargs: Any) -> McpManager:
    return feature_manager(feature_config("viewer", args=[VIEWER], command=sys.executable,
                                          protocol=protocol), **kwargs)


async def text(mcp: McpManager, tool: str) -> str:
    result = await mcp.connections["viewer"].call_tool(tool, {}, 30)
    return str(result.content[0].text)  # type: ignore[union-attr]


async def decline(request: ElicitationRequest) -> ElicitationAnswer:
    return ElicitationAnswer.decline()


async def answer(request: SamplingRequest) -> SamplingAnswer:
    return SamplingAnswer(text="sampled", model="test")


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_the_client_announces_elicitation_modes_and_sampling_but_never_roots(
        protocol: str) -> None:
    mcp = manager(protocol, elicitor=decline, sampler=answer)
    try:
        assert await mcp.start_all() == {"viewer": True}
        declared = json.loads(await text(mcp, "client_capabilities"))
    finally:
        await mcp.stop_all()
    assert "form" in declared["elicitation"] and "url" in declared["elicitation"]
    assert "sampling" in declared
    assert "tools" not in declared["sampling"]  # sampling with tools is not offered
    assert "roots" not in declared


async def test_without_an_elicitor_or_sampler_neither_is_announced() -> None:
    mcp = manager("legacy")
    try:
        assert await mcp.start_all() == {"viewer": True}
        declared = json.loads(await text(mcp, "client_capabilities"))
    finally:
        await mcp.stop_all()
    assert not {"elicitation", "sampling", "roots"} & set(declared or {})


@pytest.mark.parametrize("action", ["accept", "decline"])
async def test_url_mode_elicitation_reaches_the_elicitor_and_the_answer_the_server(
        action: str) -> None:
    asked: list[ElicitationRequest] = []

    async def elicitor(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer(action)  # type: ignore[arg-type]

    mcp = manager("legacy", elicitor=elicitor)
    try:
        assert await mcp.start_all() == {"viewer": True}
        assert await text(mcp, "connect") == f"connect: {action}"
    finally:
        await mcp.stop_all()
    [request] = asked
    assert request.server == "viewer" and request.message == "Connect your calendar account"
    assert request.url == "https://calendar.example/connect?state=42"
    assert request.fields == {}


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_resource_list_changes_while_connected(protocol: str) -> None:
    events: asyncio.Queue[McpEvent] = asyncio.Queue()
    mcp = manager(protocol)
    try:
        assert await mcp.start_all() == {"viewer": True}
        connection = mcp.connections["viewer"]
        connection.observers.append(events.put_nowait)
        assert [str(r.uri) for r in connection.lists.resources] == ["memo://first"]
        assert await text(mcp, "add_resource") == "added"
        async with asyncio.timeout(20):
            while await events.get() != ListChanged("viewer", "resources"):
                pass
        assert [str(r.uri) for r in connection.lists.resources] == [
            "memo://first", "memo://late"]
    finally:
        await mcp.stop_all()
