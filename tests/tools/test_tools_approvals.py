"""Approvals: policies, each decision, grants that persist and can be revoked, waiting."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from desktop.core.messages import ToolCallPart, ToolResultPart
from desktop.tools import Tool, ToolContext, ToolExecutor, ToolRegistry, Workspace, builtin_registry
from desktop.tools.approval import (
    ApprovalDecision,
    ApprovalRequest,
    ChatGrants,
    ToolProgress,
    parse_policy,
)
from desktop.tools.grants import GrantStore, JsonGrantStore, MemoryGrantStore


class Approver:
    """Answers from a script; records requests; can hold an answer until released."""

    def __init__(self, *answers: ApprovalDecision, hold: bool = False) -> None:
        self.answers = list(answers)
        self.requests: list[ApprovalRequest] = []
        self.asked = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = False
        if not hold:
            self.release.set()

    async def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        self.asked.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return self.answers.pop(0)


def edit_call(call_id: str = "e1", new: str = "two") -> ToolCallPart:
    args = {"path": "a.txt", "old_string": "one", "new_string": new}
    return ToolCallPart(id=call_id, name="edit_file", arguments=json.dumps(args))


def content(part: ToolResultPart) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(part.content)
    return data


@pytest.fixture
def file(root: Path) -> Path:
    path = root / "a.txt"
    path.write_text("one\n")
    return path


def executor(root: Path, approver: Any, **kwargs: Any) -> ToolExecutor:
    return ToolExecutor(builtin_registry(), Workspace(root), approver=approver, **kwargs)


async def test_read_only_tools_run_without_asking(root: Path, file: Path) -> None:
    approver = Approver()
    part = await executor(root, approver).run(
        ToolCallPart(id="r", name="read_file", arguments='{"files":[{"path":"a.txt"}]}')
    )
    assert part.status == "succeeded" and approver.requests == []


async def test_request_carries_arguments_and_diff_preview(root: Path, file: Path) -> None:
    approver = Approver(ApprovalDecision.allow_once())
    part = await executor(root, approver).run(edit_call())
    assert part.status == "succeeded"
    [request] = approver.requests
    assert request.tool == "edit_file" and request.call_id == "e1"
    assert request.arguments == {"path": "a.txt", "old_string": "one", "new_string": "two"}
    assert request.preview.kind == "diff"
    assert "-one\n+two\n" in request.preview.text
    assert request.source == "builtin" and not request.read_only
    assert file.read_text() == "two\n"


async def test_nothing_runs_while_waiting(root: Path, file: Path) -> None:
    approver = Approver(ApprovalDecision.allow_once(), hold=True)
    progress: list[ToolProgress] = []
    runner = executor(root, approver, on_progress=progress.append)
    task = asyncio.create_task(runner.run(edit_call()))
    await approver.asked.wait()
    assert file.read_text() == "one\n"  # the preview wrote nothing, and the edit waits
    assert [p.text for p in progress] == ["awaiting_approval"]
    assert runner.in_flight() == ["e1"]
    approver.release.set()
    part = await task
    assert part.status == "succeeded" and file.read_text() == "two\n"
    assert [p.text for p in progress] == ["awaiting_approval", "running"]


async def test_deny_with_reason_tells_the_model(root: Path, file: Path) -> None:
    approver = Approver(ApprovalDecision.deny("use three instead"))
    part = await executor(root, approver).run(edit_call())
    assert part.status == "denied" and part.is_error
    data = content(part)
    assert data["status"] == "denied"
    assert data["error"]["code"] == "denied"
    assert data["error"]["reason"] == "use three instead"
    assert "use three instead" in data["error"]["message"]
    assert file.read_text() == "one\n"


async def test_allow_once_asks_again(root: Path, file: Path) -> None:
    approver = Approver(ApprovalDecision.allow_once(), ApprovalDecision.deny())
    runner = executor(root, approver)
    assert (await runner.run(edit_call("a", "two"))).status == "succeeded"
    file.write_text("one\n")
    assert (await runner.run(edit_call("b", "three"))).status == "denied"
    assert [r.call_id for r in approver.requests] == ["a", "b"]
    assert file.read_text() == "one\n"


async def test_allow_for_this_chat(root: Path, file: Path) -> None:
    approver = Approver(ApprovalDecision.allow_chat())
    chat = ChatGrants()
    runner = executor(root, approver, chat_grants=chat)
    assert (await runner.run(edit_call("a", "two"))).status == "succeeded"
    file.write_text("one\n")
    assert (await runner.run(edit_call("b", "three"))).status == "succeeded"
    assert len(approver.requests) == 1 and "edit_file" in chat
    # a new executor of the same chat (same grant set) does not ask either
    file.write_text("one\n")
    again = executor(root, Approver(), chat_grants=chat)
    assert (await again.run(edit_call("c"))).status == "succeeded"
    # another chat asks
    file.write_text("one\n")
    other = Approver(ApprovalDecision.deny())
    assert (await executor(root, other).run(edit_call("d"))).status == "denied"
    assert len(other.requests) == 1


async def test_allow_always_persists_and_can_be_revoked(
    root: Path, file: Path, tmp_path: Path
) -> None:
    store_path = tmp_path / "grants.json"
    grants = JsonGrantStore(store_path)
    approver = Approver(ApprovalDecision.allow_always("a.txt"))  # (edits: within a scope)
    assert (await executor(root, approver, grants=grants).run(edit_call())).status == "succeeded"
    assert approver.requests[0].proposed_scope == "a.txt"
    saved = json.loads(store_path.read_text())
    assert [(g["tool"], g["scope"]) for g in saved["grants"]] == [("edit_file", "a.txt")]
    # a new process (new store object, new executor) runs it without asking
    reloaded = JsonGrantStore(store_path)
    assert [g.tool for g in reloaded.list()] == ["edit_file"]
    file.write_text("one\n")
    quiet = Approver()
    assert (await executor(root, quiet, grants=reloaded).run(edit_call("x"))).status == (
        "succeeded"
    )
    assert quiet.requests == []
    # revoked: asked again
    assert reloaded.revoke("edit_file", "a.txt") is True
    assert reloaded.revoke("edit_file", "a.txt") is False
    assert JsonGrantStore(store_path).list() == []
    file.write_text("one\n")
    asked = Approver(ApprovalDecision.deny())
    assert (await executor(root, asked, grants=reloaded).run(edit_call("y"))).status == "denied"
    assert len(asked.requests) == 1


def test_grant_stores() -> None:
    for store in (MemoryGrantStore(),):
        assert isinstance(store, GrantStore)
        first = store.add("a", source="srv")
        assert store.add("a") == first  # idempotent
        store.add("b")
        assert [g.tool for g in store.list()] == ["a", "b"]
        assert store.has("a") and store.revoke("a") and not store.has("a")


def test_json_grant_store_survives_bad_files(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_text("{not json")
    assert JsonGrantStore(path).list() == []
    path.write_text('{"version": 1, "grants": [{"tool": "x"}, {"nope": 1}, 5]}')
    assert [g.tool for g in JsonGrantStore(path).list()] == ["x"]


async def test_deny_policy_hides_and_refuses(root: Path, file: Path) -> None:
    runner = executor(root, Approver(), policies={"edit_file": "deny"})
    assert "edit_file" not in [s.name for s in runner.specs()]
    assert runner.policy_for("edit_file") == "deny"
    part = await runner.run(edit_call())
    assert part.status == "denied" and "Deny" in content(part)["error"]["message"]
    assert file.read_text() == "one\n"


async def test_deny_wins_over_grants(root: Path, file: Path) -> None:
    grants = MemoryGrantStore()
    grants.add("edit_file", scope="*")
    runner = executor(root, Approver(), policies={"edit_file": "deny"}, grants=grants)
    assert (await runner.run(edit_call())).status == "denied"


async def test_policy_overrides(root: Path, file: Path) -> None:
    quiet = Approver()
    runner = executor(root, quiet, policies={"edit_file": "allow", "read_file": "ask"})
    assert (await runner.run(edit_call())).status == "succeeded"
    assert quiet.requests == []
    asked = Approver(ApprovalDecision.allow_once())
    reader = executor(root, asked, policies={"read_file": "ask"})
    part = await reader.run(
        ToolCallPart(id="r", name="read_file", arguments='{"files":[{"path":"a.txt"}]}')
    )
    assert part.status == "succeeded" and asked.requests[0].preview.kind == "arguments"


async def test_no_approver_denies_and_explains(root: Path, file: Path) -> None:
    part = await ToolExecutor(builtin_registry(), Workspace(root)).run(edit_call())
    assert part.status == "denied"
    assert "no one can approve" in content(part)["error"]["message"]
    assert file.read_text() == "one\n"


async def test_cancel_while_waiting_for_approval(root: Path, file: Path) -> None:
    approver = Approver(ApprovalDecision.allow_once(), hold=True)
    runner = executor(root, approver)
    task = asyncio.create_task(runner.run(edit_call()))
    await approver.asked.wait()
    assert runner.cancel("e1")
    part = await task
    assert part.status == "cancelled" and approver.cancelled
    assert file.read_text() == "one\n"


async def test_stop_while_waiting_for_approval(root: Path, file: Path) -> None:
    approver = Approver(ApprovalDecision.allow_once(), hold=True)
    task = asyncio.create_task(executor(root, approver).run(edit_call()))
    await approver.asked.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert approver.cancelled and file.read_text() == "one\n"


async def test_other_calls_proceed_while_one_waits(root: Path, file: Path) -> None:
    approver = Approver(ApprovalDecision.allow_once(), hold=True)
    runner = executor(root, approver)
    waiting = asyncio.create_task(runner.run(edit_call()))
    await approver.asked.wait()
    read = await runner.run(
        ToolCallPart(id="r", name="read_file", arguments='{"files":[{"path":"a.txt"}]}')
    )
    assert read.status == "succeeded" and "one" in read.content
    approver.release.set()
    assert (await waiting).status == "succeeded"


async def test_preview_error_fails_without_asking(root: Path, file: Path) -> None:
    approver = Approver()
    args = {"path": "a.txt", "old_string": "absent", "new_string": "x"}
    part = await executor(root, approver).run(
        ToolCallPart(id="p", name="edit_file", arguments=json.dumps(args))
    )
    assert content(part)["error"]["code"] == "no_match"
    assert approver.requests == []


async def test_broken_preview_still_asks(root: Path) -> None:
    async def handler(args: dict[str, Any], ctx: ToolContext) -> str:
        return "ran"

    async def preview(args: dict[str, Any], ctx: ToolContext) -> Any:
        raise RuntimeError("preview exploded")

    tool = Tool("risky", "d", {"type": "object"}, handler, read_only=False, preview=preview)
    approver = Approver(ApprovalDecision.allow_once())
    part = await ToolExecutor(ToolRegistry([tool]), None, approver=approver).run(
        ToolCallPart(id="x", name="risky", arguments="{}")
    )
    assert part.status == "succeeded"
    assert approver.requests[0].preview.error == "No preview: preview exploded"


def test_parse_policy() -> None:
    assert parse_policy(" Allow ") == "allow"
    with pytest.raises(ValueError):
        parse_policy("maybe")
