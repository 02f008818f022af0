"""ToolExecutor: lookup, validation, errors, timeouts, cancellation and result shape."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from desktop.core.errors import ToolError
from desktop.core.messages import ToolCallPart, ToolResultPart
from desktop.core.tooling import ToolRunner
from desktop.tools import (
    Tool,
    ToolContext,
    ToolExecutor,
    ToolFailure,
    ToolRegistry,
    Workspace,
    builtin_registry,
)

EMPTY: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


class Probe:
    """Test tools whose behaviour the tests control."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.never = asyncio.Event()
        self.cancelled = False
        self.contexts: list[ToolContext] = []

    async def hang(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        self.contexts.append(ctx)
        self.started.set()
        try:
            await self.never.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise

    async def echo(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        return {"args": args, "text": "héllo ✓", "path": Path("a/b")}

    async def boom(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        raise RuntimeError("kaboom")

    async def refuse(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        raise ToolError("Nope, not that.", code="not_allowed")

    async def detailed(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        raise ToolFailure("Partly wrong.", code="partial", extra={"hint": "try x"})

    async def own_timeout(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        raise TimeoutError("upstream server timed out")

    async def huge(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        return {"blob": "x" * 500_000, "items": list(range(10))}

    async def bad_result(self, args: dict[str, Any], ctx: ToolContext) -> Any:
        return {"obj": object()}


@pytest.fixture
def probe() -> Probe:
    return Probe()


@pytest.fixture
def registry(probe: Probe) -> ToolRegistry:
    reg = ToolRegistry()
    for name in ("hang", "echo", "boom", "refuse", "detailed", "own_timeout", "huge", "bad_result"):
        params = EMPTY
        if name == "echo":
            params = {
                "type": "object",
                "properties": {"n": {"type": "integer"}, "items": {"type": "array"}},
                "required": ["n"],
            }
        reg.register(Tool(name, f"{name} tool", params, getattr(probe, name)))
    return reg


def make_call(name: str, arguments: str = "{}") -> ToolCallPart:
    return ToolCallPart(id="call_9", name=name, arguments=arguments)


def payload(part: ToolResultPart) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(part.content)
    return data


async def test_is_a_tool_runner(registry: ToolRegistry) -> None:
    assert isinstance(ToolExecutor(registry, None), ToolRunner)


async def test_success_shape(registry: ToolRegistry) -> None:
    part = await ToolExecutor(registry, None).run(make_call("echo", '{"n": 3}'))
    assert part.tool_call_id == "call_9"
    assert part.name == "echo"
    assert part.is_error is False
    assert part.status == "succeeded"
    assert part.duration_s is not None and part.duration_s >= 0
    assert payload(part) == {
        "status": "success",
        "result": {"args": {"n": 3}, "text": "héllo ✓", "path": "a/b"},
    }
    assert "héllo ✓" in part.content  # ensure_ascii=False
    assert ", " not in part.content and ": " not in part.content  # compact


async def test_arguments_are_repaired_before_running(registry: ToolRegistry) -> None:
    raw = json.dumps(json.dumps({"n": 1, "items": "[1, 2]"}))
    part = await ToolExecutor(registry, None).run(make_call("echo", raw))
    assert payload(part)["result"]["args"] == {"n": 1, "items": [1, 2]}


async def test_unknown_tool_lists_available(registry: ToolRegistry) -> None:
    executor = ToolExecutor(registry, None, enabled={"echo", "boom"})
    for name in ("nope", "hang"):  # "hang" exists but is not enabled
        part = await executor.run(make_call(name))
        data = payload(part)
        assert part.is_error and part.status == "failed"
        assert data["status"] == "error"
        assert data["error"]["code"] == "unknown_tool"
        assert data["error"]["available_tools"] == ["echo", "boom"]
        assert "echo, boom" in data["error"]["message"]


async def test_specs_follow_enabled(registry: ToolRegistry) -> None:
    assert [s.name for s in ToolExecutor(registry, None, enabled={"boom", "echo"}).specs()] == [
        "echo",
        "boom",
    ]
    assert len(ToolExecutor(registry, None).specs()) == len(registry)
    assert ToolExecutor(registry, None, enabled=set()).specs() == []


async def test_invalid_arguments(registry: ToolRegistry) -> None:
    part = await ToolExecutor(registry, None).run(make_call("echo", '{"n": "three"}'))
    error = payload(part)["error"]
    assert part.is_error
    assert error["code"] == "invalid_arguments"
    assert error["details"] == [{"path": "/n", "message": "'three' is not of type 'integer'"}]
    assert error["received"] == {"n": "three"}
    bad_json = payload(await ToolExecutor(registry, None).run(make_call("echo", "{n: 1")))
    assert bad_json["error"]["code"] == "invalid_arguments"
    assert bad_json["error"]["received"] == "{n: 1"


async def test_tool_error(registry: ToolRegistry) -> None:
    part = await ToolExecutor(registry, None).run(make_call("refuse"))
    assert payload(part) == {
        "status": "error",
        "error": {"code": "not_allowed", "message": "Nope, not that."},
    }
    detailed = payload(await ToolExecutor(registry, None).run(make_call("detailed")))
    assert detailed["error"] == {"code": "partial", "message": "Partly wrong.", "hint": "try x"}


async def test_exception_becomes_internal_error(
    registry: ToolRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="desktop.tools.executor"):
        part = await ToolExecutor(registry, None).run(make_call("boom"))
    error = payload(part)["error"]
    assert part.is_error and part.status == "failed"
    assert error["code"] == "internal_error"
    assert "kaboom" in error["message"]
    assert any(r.exc_info and "kaboom" in str(r.exc_info[1]) for r in caplog.records)


async def test_timeout(registry: ToolRegistry, probe: Probe) -> None:
    part = await ToolExecutor(registry, None, timeout_s=0.01).run(make_call("hang"))
    error = payload(part)["error"]
    assert part.is_error and part.status == "failed"
    assert error["code"] == "timeout"
    assert "0.01 seconds" in error["message"]
    assert probe.cancelled
    assert probe.contexts[0].cancelled  # worker threads are told to stop


async def test_handlers_own_timeout_error_is_not_our_timeout(registry: ToolRegistry) -> None:
    error = payload(await ToolExecutor(registry, None).run(make_call("own_timeout")))["error"]
    assert error["code"] == "internal_error"
    assert "upstream server timed out" in error["message"]


async def test_cancellation_propagates(registry: ToolRegistry, probe: Probe) -> None:
    executor = ToolExecutor(registry, None)
    task = asyncio.create_task(executor.run(make_call("hang")))
    await probe.started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert probe.cancelled
    assert probe.contexts[0].cancelled


async def test_huge_result_is_capped(registry: ToolRegistry) -> None:
    part = await ToolExecutor(registry, None, max_result_chars=10_000).run(make_call("huge"))
    assert len(part.content) <= 10_000
    data = payload(part)
    assert data["status"] == "success"
    assert data["truncated"] is True
    assert "shortened" in data["note"]
    assert data["result"]["blob"].startswith("xxx")
    assert "more characters truncated" in data["result"]["blob"]
    assert data["result"]["items"] == list(range(10))


async def test_unserializable_result(registry: ToolRegistry) -> None:
    part = await ToolExecutor(registry, None).run(make_call("bad_result"))
    assert payload(part)["error"]["code"] == "internal_error"


async def test_builtin_tools_run_concurrently(root: Path, workspace: Workspace) -> None:
    (root / "a.txt").write_text("hello\n")
    executor = ToolExecutor(builtin_registry(), workspace)
    calls = [
        make_call("read_file", '{"files":[{"path":"a.txt"}]}'),
        make_call("list_directory", ""),
        make_call("search_files", '{"query":"hello"}'),
    ]
    parts = await asyncio.gather(*(executor.run(c) for c in calls))
    assert [p.status for p in parts] == ["succeeded"] * 3


def test_constructor_checks(registry: ToolRegistry) -> None:
    with pytest.raises(ValueError):
        ToolExecutor(registry, None, timeout_s=0)
