"""Shared fixtures for the tool-layer tests: a temporary workspace and a call helper."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from desktop.core.messages import ToolCallPart, ToolResultPart
from desktop.tools import ToolExecutor, Workspace, builtin_registry
from desktop.tools.approval import allow_all

Call = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty workspace folder, next to a sibling folder ``outside`` holding a secret."""
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("top secret\n", encoding="utf-8")
    return ws


@pytest.fixture
def workspace(root: Path) -> Workspace:
    return Workspace(root)


@pytest.fixture
def executor(workspace: Workspace) -> ToolExecutor:
    return ToolExecutor(builtin_registry(), workspace)


@pytest.fixture
def run_tool(executor: ToolExecutor) -> Callable[..., Awaitable[ToolResultPart]]:
    async def run(name: str, args: dict[str, Any] | str) -> ToolResultPart:
        raw = args if isinstance(args, str) else json.dumps(args)
        return await executor.run(ToolCallPart(id="call_1", name=name, arguments=raw))

    return run


@pytest.fixture
def call(run_tool: Callable[..., Awaitable[ToolResultPart]]) -> Call:
    """Run a tool and return its decoded JSON payload (success or error)."""

    async def go(name: str, args: dict[str, Any] | str) -> dict[str, Any]:
        part = await run_tool(name, args)
        payload: dict[str, Any] = json.loads(part.content)
        assert part.is_error == (payload["status"] == "error")
        assert part.status == ("failed" if part.is_error else "succeeded")
        return payload

    return go


@pytest.fixture
def approving(workspace: Workspace) -> ToolExecutor:
    """An executor whose approver allows every call once (write tools run)."""
    return ToolExecutor(builtin_registry(), workspace, approver=allow_all)


@pytest.fixture
def wcall(approving: ToolExecutor) -> Call:
    """Like ``call``, through the approving executor."""

    async def go(name: str, args: dict[str, Any] | str, call_id: str = "call_w") -> dict[str, Any]:
        raw = args if isinstance(args, str) else json.dumps(args)
        part = await approving.run(ToolCallPart(id=call_id, name=name, arguments=raw))
        payload: dict[str, Any] = json.loads(part.content)
        assert part.is_error == (payload["status"] != "success")
        return payload

    return go
