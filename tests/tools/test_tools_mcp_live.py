"""Live lists, progress and cancellation against a real SDK server
(tests/tools/mcp_feature_server.py) over stdio and Streamable HTTP, in both protocol
eras (2026-07-28 ``subscriptions/listen`` and 2025 notifications)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from desktop.core.messages import ToolCallPart
from desktop.tools import ToolExecutor
from desktop.tools.approval import ToolProgress, allow_all
from desktop.tools.mcp import McpManager
from desktop.tools.mcp.live_lists import ListChanged, McpEvent, ResourceChanged
from tests.tools.mcp_servers import FEATURES, ServerProcess, feature_config, feature_manager


class Events:
    def __init__(self) -> None:
        self.queue: asyncio.Queue[McpEvent] = asyncio.Queue()

    def __call__(self, event: McpEvent) -> None:
        self.queue.put_nowait(event)

    async def next(self, wanted: McpEvent) -> None:
        async with asyncio.timeout(20):
            while await self.queue.get() != wanted:
                pass


async def call(mcp: McpManager, name: str, args: dict[str, Any] | None = None,
               **kwargs: Any) -> dict[str, Any]:
    executor = ToolExecutor(mcp.registry(), None, approver=allow_all, **kwargs)
    part = await executor.run(ToolCallPart(id="c", name=name, arguments=json.dumps(args or {})))
    payload: dict[str, Any] = json.loads(part.content)
    return payload


@pytest.fixture(params=["auto", "legacy"])
async def stdio(request: pytest.FixtureRequest) -> AsyncIterator[McpManager]:
    mcp = feature_manager(feature_config(protocol=request.param))
    assert await mcp.start_all() == {"features": True}
    try:
        yield mcp
    finally:
        await mcp.stop_all()


@pytest.fixture
def http_process() -> Iterator[ServerProcess]:
    process = ServerProcess(FEATURES, "http")
    try:
        yield process
    finally:
        process.stop()


async def test_tool_list_changes_while_connected(stdio: McpManager) -> None:
    connection = stdio.connections["features"]
    events = Events()
    connection.observers.append(events)
    assert "features__extra" not in stdio.registry().names()
    assert (await call(stdio, "features__grow"))["result"]["text"] == "grown"
    await events.next(ListChanged("features", "tools"))
    assert "features__extra" in stdio.registry().names()
    extra = await call(stdio, "features__extra")
    assert extra["result"]["text"] == "I was added while connected"
    await call(stdio, "features__shrink")
    await events.next(ListChanged("features", "tools"))
    assert "features__extra" not in stdio.registry().names()


async def test_prompt_list_and_subscribed_resource_changes(stdio: McpManager) -> None:
    connection = stdio.connections["features"]
    events = Events()
    connection.observers.append(events)
    assert [p.name for p in connection.lists.prompts] == ["review", "hello"]
    await call(stdio, "features__add_prompt")
    await events.next(ListChanged("features", "prompts"))
    assert "late" in [p.name for p in connection.lists.prompts]
    stdio.subscribe("features", "memo://counter")
    assert await stdio.wait_subscribed("features", "memo://counter")
    await call(stdio, "features__bump")
    await events.next(ResourceChanged("features", "memo://counter"))


async def test_streamable_http_tool_list_changes(http_process: ServerProcess) -> None:
    mcp = feature_manager(feature_config(transport="http", url=http_process.url(), command=""))
    events = Events()
    try:
        assert await mcp.start_all() == {"features": True}
        mcp.connections["features"].observers.append(events)
        await call(mcp, "features__grow")
        await events.next(ListChanged("features", "tools"))
        assert "features__extra" in mcp.registry().names()
    finally:
        await mcp.stop_all()


async def test_progress_reaches_the_running_call(stdio: McpManager) -> None:
    seen: list[ToolProgress] = []
    result = await call(stdio, "features__slow_count", on_progress=seen.append)
    assert result["result"]["text"] == "counted"
    progress = [p for p in seen if p.kind == "progress"]
    assert [(p.done, p.total, p.text) for p in progress] == [
        (1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    assert all(p.call_id == "c" and p.name == "features__slow_count" for p in progress)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_stopping_a_call_cancels_it_on_the_server(transport: str) -> None:
    process = ServerProcess(FEATURES, "http") if transport == "http" else None
    config = (feature_config(transport="http", url=process.url(), command="")
              if process else feature_config())
    mcp = feature_manager(config)
    try:
        assert await mcp.start_all() == {"features": True}
        executor = ToolExecutor(mcp.registry(), None, approver=allow_all)
        running = asyncio.ensure_future(executor.run(ToolCallPart(
            id="w", name="features__wait_forever", arguments='{"marker": "m1"}')))
        if process is None:
            stderr = mcp.connections["features"].stderr
            assert await asyncio.to_thread(stderr.wait_for, "started m1", 20)
        else:
            await _wait_for_running(executor, "w")
        assert executor.cancel("w")
        result = await running
        assert result.status == "cancelled"
        if process is None:  # only stdio keeps the server's stderr
            assert await asyncio.to_thread(stderr.wait_for, "cancelled m1", 20)
        # the server is still fine after the cancellation
        assert (await call(mcp, "features__grow"))["result"]["text"] == "grown"
    finally:
        await mcp.stop_all()
        if process is not None:
            process.stop()


async def _wait_for_running(executor: ToolExecutor, call_id: str) -> None:
    seen = asyncio.Event()
    executor.on_progress = lambda p: seen.set() if p.text == "running" else None
    async with asyncio.timeout(20):
        await seen.wait()
