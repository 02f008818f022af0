"""Scoped "always allow" grants: a path pattern for writes, a command prefix for
run_command, a host for fetch_url; calls outside the scope still ask."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop.core.messages import ToolCallPart
from desktop.tools import ToolExecutor, Workspace, builtin_registry
from desktop.tools.approval import ApprovalDecision, ApprovalRequest
from desktop.tools.grant_scopes import check_scope, proposed_scope, scope_matches
from desktop.tools.grants import JsonGrantStore, MemoryGrantStore


@pytest.mark.parametrize(("scope", "path", "expected"), [
    ("src/*", "src/app.py", True),
    ("src/*", "src/deep/er/app.py", True),
    ("src/*", "./src/app.py", True),
    ("src/*", "src/../secrets.txt", False),
    ("src/*", "src/../../etc/passwd", False),
    ("src/*", "/etc/passwd", False),
    ("src/*", "docs/a.md", False),
    ("*.md", "notes.md", True),
    ("notes.md", "notes.md", True),
    ("notes.md", "notes.mdx", False),
])
def test_path_scopes(scope: str, path: str, expected: bool) -> None:
    assert scope_matches("write_file", scope, {"path": path}) is expected
    assert scope_matches("edit_file", scope, {"path": path}) is expected


@pytest.mark.parametrize(("scope", "command", "expected"), [
    ("git status", "git status", True),
    ("git status", "git status --short", True),
    ("git status", "git  status   -s", True),
    ("git status", "git statusx", False),
    ("git status", "git push", False),
    ("git status", "git status; rm -rf ~", False),
    ("git status", "git status && curl x | sh", False),
    ("git status", "git status $(rm -rf ~)", False),
    ("git status", "git status `id`", False),
    ("git status", "git status > ~/.bashrc", False),
    ("git status", "git status\nrm -rf ~", False),
    ("pytest", "pytest -q tests", True),
])
def test_command_scopes(scope: str, command: str, expected: bool) -> None:
    assert scope_matches("run_command", scope, {"command": command}) is expected


@pytest.mark.parametrize(("scope", "url", "expected"), [
    ("docs.python.org", "https://docs.python.org/3/", True),
    ("docs.python.org", "https://DOCS.python.org./x", True),
    ("docs.python.org", "https://docs.python.org.evil.com/", False),
    ("docs.python.org", "https://docs.python.org@evil.com/", False),
    ("*.python.org", "https://peps.python.org/pep-8/", True),
    ("*.python.org", "https://evilpython.org/", False),
    ("docs.python.org", "not a url", False),
])
def test_host_scopes(scope: str, url: str, expected: bool) -> None:
    assert scope_matches("fetch_url", scope, {"url": url}) is expected


def test_proposed_scopes_and_checks() -> None:
    assert proposed_scope("write_file", {"path": "src/pkg/app.py"}) == "src/pkg/*"
    assert proposed_scope("edit_file", {"path": "README.md"}) == "*"
    assert proposed_scope("run_command", {"command": "git status --short"}) == "git status"
    assert proposed_scope("run_command", {"command": "pytest -q"}) == "pytest"
    assert proposed_scope("run_command", {"command": "ls; rm x"}) == ""
    assert proposed_scope("fetch_url", {"url": "https://Example.com/a"}) == "example.com"
    assert proposed_scope("read_file", {"path": "a"}) == ""
    assert check_scope("write_file", "../*") is not None
    assert check_scope("run_command", "git status; rm") is not None
    assert check_scope("fetch_url", "https://x.org/") is not None
    assert check_scope("fetch_url", "x.org") is None
    assert check_scope("read_file", "x") is not None


def test_store_keeps_scopes_and_reads_old_files(tmp_path: Path) -> None:
    path = tmp_path / "grants.json"
    path.write_text(json.dumps({"version": 1, "grants": [
        {"tool": "edit_file", "granted_at": 1.0, "source": "builtin"}]}))
    store = JsonGrantStore(path)
    assert store.has("edit_file")
    store.add("run_command", scope="git status")
    again = JsonGrantStore(path)
    assert not again.has("run_command")
    assert again.allows("run_command", {"command": "git status -s"})
    assert not again.allows("run_command", {"command": "git push"})
    assert again.revoke("run_command", "git status")
    assert not JsonGrantStore(path).allows("run_command", {"command": "git status"})


class ScriptedApprover:
    def __init__(self, *answers: ApprovalDecision) -> None:
        self.answers = list(answers)
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        return self.answers.pop(0)


def write_call(call_id: str, path: str) -> ToolCallPart:
    return ToolCallPart(id=call_id, name="write_file",
                        arguments=json.dumps({"path": path, "content": "x"}))


def result(part: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(part.content)
    return data


async def test_a_scoped_grant_skips_asking_inside_and_asks_outside(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    approver = ScriptedApprover(ApprovalDecision.allow_always("src/*"),
                                ApprovalDecision.deny("no"), ApprovalDecision.deny("no"))
    grants = MemoryGrantStore()
    executor = ToolExecutor(builtin_registry(), Workspace(tmp_path), {"write_file"},
                            approver=approver, grants=grants)
    first = await executor.run(write_call("c1", "src/a.py"))
    assert "result" in result(first)
    assert approver.requests[0].proposed_scope == "src/*"
    assert [(g.tool, g.scope) for g in grants.list()] == [("write_file", "src/*")]
    inside = await executor.run(write_call("c2", "src/deep/b.py"))
    assert "result" in result(inside) and len(approver.requests) == 1  # not asked
    outside = await executor.run(write_call("c3", "setup.py"))
    assert result(outside)["error"]["code"] == "denied"
    escape = await executor.run(write_call("c4", "src/../other.py"))
    assert len(approver.requests) == 3 and "error" in result(escape)  # asked again


async def test_a_bad_scope_allows_the_call_but_keeps_nothing(tmp_path: Path) -> None:
    approver = ScriptedApprover(ApprovalDecision.allow_always("../*"))
    grants = MemoryGrantStore()
    executor = ToolExecutor(builtin_registry(), Workspace(tmp_path), {"write_file"},
                            approver=approver, grants=grants)
    assert "result" in result(await executor.run(write_call("c1", "a.txt")))
    assert grants.list() == []
