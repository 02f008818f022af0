"""The real ToolExecutor under the real Orchestrator: order, approvals, Stop."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from desktop.core.agent_events import AgentEvent, ToolRunFinished
from desktop.core.messages import Message
from desktop.core.orchestrator import Orchestrator
from desktop.tools import ToolExecutor, Workspace, builtin_registry
from desktop.tools.approval import ApprovalDecision, ApprovalRequest
from tests.core.scripted import ScriptedProvider, text_reply, tool_reply


def edit(new: str) -> str:
    return json.dumps(
        {"path": "a.txt", "old_string": "one", "new_string": new, "replace_all": True}
    )


async def test_one_message_many_calls_results_in_order(root: Path) -> None:
    (root / "a.txt").write_text("one\n")
    asked: list[str] = []

    async def approver(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request.call_id)
        if request.call_id == "c4":
            return ApprovalDecision.deny("not that one")
        return ApprovalDecision.allow_once()

    calls = [
        ("c1", "read_file", '{"files":[{"path":"a.txt"}]}'),
        ("c2", "edit_file", edit("two")),
        ("c3", "write_file", json.dumps({"path": "b.txt", "content": "b"})),
        ("c4", "run_command", '{"command":"touch nope"}'),
        ("c5", "no_such_tool", "{}"),
        ("c6", "list_directory", ""),
    ]
    provider = ScriptedProvider([tool_reply(*calls), text_reply("done")])
    executor = ToolExecutor(builtin_registry(), Workspace(root), approver=approver)
    events: list[AgentEvent] = []
    result = await Orchestrator(provider, executor).run(
        [Message.user("go")], model="m", sink=events.append
    )
    assert result.status == "complete"
    tool_message = result.new_messages[1]
    assert [p.tool_call_id for p in tool_message.tool_results] == [c[0] for c in calls]
    assert [p.status for p in tool_message.tool_results] == [
        "succeeded",
        "succeeded",
        "succeeded",
        "denied",
        "failed",
        "succeeded",
    ]
    assert sorted(asked) == ["c2", "c3", "c4"]
    assert (root / "a.txt").read_text() == "two\n" and (root / "b.txt").read_text() == "b"
    assert not (root / "nope").exists()
    finished = [e.result.status for e in events if isinstance(e, ToolRunFinished)]
    assert sorted(finished) == sorted(p.status for p in tool_message.tool_results)


async def test_stop_while_a_call_waits_for_approval(root: Path) -> None:
    (root / "a.txt").write_text("one\n")
    waiting = asyncio.Event()

    async def approver(request: ApprovalRequest) -> ApprovalDecision:
        waiting.set()
        await asyncio.Event().wait()  # the user never answers
        raise AssertionError("unreachable")

    provider = ScriptedProvider([tool_reply(("c1", "edit_file", edit("two")))])
    executor = ToolExecutor(builtin_registry(), Workspace(root), approver=approver)
    history = [Message.user("go")]
    task = asyncio.create_task(Orchestrator(provider, executor).run(history, model="m"))
    await waiting.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert history[-1].role == "tool"
    assert [p.status for p in history[-1].tool_results] == ["cancelled"]
    assert (root / "a.txt").read_text() == "one\n"


async def test_sidebar_cancel_of_one_call_lets_the_round_finish(root: Path) -> None:
    started = asyncio.Event()
    executor = ToolExecutor(
        builtin_registry(),
        Workspace(root),
        policies={"run_command": "allow"},
        on_progress=lambda p: started.set() if p.text == "running" else None,
    )
    provider = ScriptedProvider(
        [
            tool_reply(
                ("slow", "run_command", '{"command": "sleep 1000"}'), ("fast", "list_directory", "")
            ),
            text_reply("ok"),
        ]
    )
    task = asyncio.create_task(
        Orchestrator(provider, executor).run([Message.user("go")], model="m")
    )
    await started.wait()  # the command is being started right now
    assert "slow" in executor.in_flight()
    assert executor.cancel("slow")
    result = await task
    assert result.status == "complete"
    assert [p.status for p in result.new_messages[1].tool_results] == ["cancelled", "succeeded"]
