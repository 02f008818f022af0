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
from desktop.tools.command_scopes import command_scope_kind
from desktop.tools.grant_scopes import (
    check_scope,
    proposed_scope,
    scope_matches,
    unscoped_reason,
)
from desktop.tools.grants import Grant, JsonGrantStore, MemoryGrantStore


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
    ("*", ".git/config", False),  # never inside .git, whatever the pattern
    ("docs/*", "docs/.git/config", False),
    ("*", "sub/.Git/hooks/post-checkout", False),
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
    # a grant names a program (with its safe options) or an exact command
    ("sed", "sed -n 1p a.txt", True),
    ("sed", "sed -n '2,5p' a.txt b.txt", True),
    ("sed", "sed -e 's/a/b/g' a.txt", True),
    ("sed", 'sed -n "1e touch pwned" a.txt', False),
    ("sed", "sed -n 1e a.txt", False),
    ("sed", "sed -i s/a/b/ a.txt", False),
    ("sed", "sed -ni 1p a.txt", False),
    ("sed", "sed --in-place s/a/b/ a.txt", False),
    ("sed", "sed 's/a/b/w out.txt' a.txt", False),
    ("sed", "sed 's/a/b/e' a.txt", False),
    ("sed", "sed -e 1e a.txt", False),
    ("sed", "sed -f script.sed a.txt", False),
    ("sed", "sed -n 1p /etc/passwd", False),
    ("sed", "sed -n 1p ../outside.txt", False),
    ("git log", "git log --oneline -5 -- src", True),
    ("git log", "git log --output=/tmp/x", False),
    ("git log", "git log --output x", False),
    ("git log", "git log --outp=x", False),  # (git takes unique abbreviations)
    ("git log", "git log -p --ext-diff", False),
    ("git log", "git -c core.pager=x log", False),
    ("git log", "git --exec-path=/tmp log", False),
    ("git", 'git -c alias.x="!touch pwned" x', False),
    ("git", "git status", False),
    ("git status", "git -C /tmp status", False),
    ("git status", "git status -uno --short", True),
    ("git diff", "git diff --no-index a b", False),
    ("git branch", "git branch -a -v", True),
    ("git branch", "git branch new-branch", False),
    ("find", "find . -name '*.py' -type f", True),
    ("find", "find . -name '*.py' -exec rm {} +", False),
    ("find", "find . -delete", False),
    ("find", "find . -fprint out.txt", False),
    ("ls", "ls -la src", True),
    ("ls", "ls *", False),  # (a glob could name a file called -i)
    ("cat", "cat ~/.ssh/id_rsa", False),
    ("rg", "rg --pre ./x pattern", False),
    ("sort", "sort -o out.txt a.txt", False),
    ("npm test", "npm test", True),  # no rule for npm: the exact command only
    ("npm test", "npm test -- --watch", False),
    ("make", "make install", False),
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
    # a file at the root: the file itself, never "*" (everything)
    assert proposed_scope("edit_file", {"path": "README.md"}) == "README.md"
    assert proposed_scope("edit_file", {"path": "./README.md"}) == "README.md"
    assert proposed_scope("edit_file", {"path": ".git/config"}) == ""
    assert proposed_scope("edit_file", {"path": "sub/.GIT/hooks/pre-commit"}) == ""
    assert proposed_scope("edit_file", {"path": "../x.txt"}) == ""
    assert proposed_scope("run_command", {"command": "git status --short"}) == "git status"
    assert proposed_scope("run_command", {"command": "pytest -q"}) == "pytest"
    assert proposed_scope("run_command", {"command": "sed -n 1p a.txt"}) == "sed"
    # unknown options or programs: the exact command, which covers nothing else
    assert proposed_scope("run_command", {"command": "git log --output=x"}) == (
        "git log --output=x")
    assert proposed_scope("run_command", {"command": 'sed -n "1e id" a'}) == "sed -n '1e id' a"
    assert proposed_scope("run_command", {"command": "npm  run build"}) == "npm run build"
    assert command_scope_kind("sed") == "program"
    assert command_scope_kind("npm run build") == "exact"
    assert proposed_scope("run_command", {"command": "ls; rm x"}) == ""
    assert unscoped_reason("run_command", {"command": "ls; rm x"}) == "shell"
    assert unscoped_reason("write_file", {"path": ".git/config"}) == "git"
    assert unscoped_reason("write_file", {"path": "../x"}) == "outside"
    assert unscoped_reason("run_command", {"command": "ls"}) is None
    assert check_scope("write_file", ".git/*") is not None
    assert check_scope("write_file", "*") is None  # (typed on purpose: everything)
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


async def test_always_allow_without_a_scope_never_grants_every_command(tmp_path: Path) -> None:
    """The empty, red-outlined scope box used to grant run_command whole, in every chat."""
    approver = ScriptedApprover(ApprovalDecision.allow_always(),
                                ApprovalDecision.allow_always("   "),
                                ApprovalDecision.deny("no"))
    grants = MemoryGrantStore()
    executor = ToolExecutor(builtin_registry(), Workspace(tmp_path), {"run_command"},
                            approver=approver, grants=grants)
    for call_id in ("c1", "c2"):
        part = await executor.run(ToolCallPart(id=call_id, name="run_command",
                                               arguments=json.dumps({"command": "echo hi"})))
        assert part.status == "succeeded"  # this call was allowed...
    assert grants.list() == []  # ...and nothing was kept
    third = await executor.run(ToolCallPart(id="c3", name="run_command",
                                            arguments=json.dumps({"command": "echo hi"})))
    assert third.status == "denied" and len(approver.requests) == 3  # asked again
    assert all(r.always_needs_scope for r in approver.requests)
    with pytest.raises(ValueError):
        grants.add("run_command")


def test_a_stored_grant_of_every_command_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "grants.json"
    path.write_text(json.dumps({"version": 2, "grants": [
        {"tool": "run_command", "granted_at": 1.0, "source": "builtin", "scope": ""},
        {"tool": "run_command", "granted_at": 2.0, "source": "builtin", "scope": "git log"}]}))
    store = JsonGrantStore(path)
    assert [(g.tool, g.scope) for g in store.list()] == [("run_command", "git log")]
    assert not store.allows("run_command", {"command": "rm -rf build"})


def command_call(call_id: str, command: str) -> ToolCallPart:
    return ToolCallPart(id=call_id, name="run_command",
                        arguments=json.dumps({"command": command}))


async def test_a_scoped_command_grant_cannot_be_stretched(tmp_path: Path) -> None:
    """A grant proposed from ``sed -n 1p a.txt`` let ``sed -n "1e touch ..."`` run."""
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    approver = ScriptedApprover(ApprovalDecision.allow_always("sed"),
                                *[ApprovalDecision.deny("no")] * 3)
    grants = MemoryGrantStore()
    executor = ToolExecutor(builtin_registry(), Workspace(tmp_path), {"run_command"},
                            approver=approver, grants=grants)
    first = await executor.run(command_call("c1", "sed -n 1p a.txt"))
    assert approver.requests[0].proposed_scope == "sed"
    assert result(first)["result"]["stdout"] == "one\n"
    again = await executor.run(command_call("c2", "sed -n 2p a.txt"))
    assert result(again)["result"]["stdout"] == "two\n" and len(approver.requests) == 1
    for call_id, command in (("c3", 'sed -n "1e touch pwned" a.txt'),
                             ("c4", "sed -i s/one/1/ a.txt"),
                             ("c5", "sed -n 1p a.txt; touch pwned")):
        part = await executor.run(command_call(call_id, command))
        assert part.status == "denied", command
    assert len(approver.requests) == 4
    assert not (tmp_path / "pwned").exists()
    assert (tmp_path / "a.txt").read_text() == "one\ntwo\n"


async def test_a_path_grant_does_not_follow_a_symlink_into_git(tmp_path: Path) -> None:
    """``docs/*`` followed an in-workspace link to .git/config (core.fsmonitor then ran a
    command); links are resolved first, and nothing in .git is ever covered."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "config.md").symlink_to(tmp_path / ".git" / "config")
    (tmp_path / "docs" / "other").symlink_to(tmp_path / "src")
    (tmp_path / "src").mkdir()
    approver = ScriptedApprover(*[ApprovalDecision.deny("no")] * 3)
    grants = MemoryGrantStore()
    grants.add("write_file", scope="docs/*")
    executor = ToolExecutor(builtin_registry(), Workspace(tmp_path), {"write_file"},
                            approver=approver, grants=grants)
    linked = await executor.run(ToolCallPart(id="c1", name="write_file", arguments=json.dumps(
        {"path": "docs/config.md", "content": "[core]\n\tfsmonitor = touch pwned\n"})))
    assert linked.status == "denied" and len(approver.requests) == 1
    assert (tmp_path / ".git" / "config").read_text() == "[core]\n"
    old = MemoryGrantStore([Grant("write_file", 1.0)])  # whole, from an older version
    legacy = ToolExecutor(builtin_registry(), Workspace(tmp_path), {"write_file"},
                          approver=ScriptedApprover(ApprovalDecision.deny("no")), grants=old)
    assert (await legacy.run(write_call("c0", "docs/config.md"))).status == "denied"
    assert (await legacy.run(write_call("c0b", "notes.md"))).status == "succeeded"
    through = await executor.run(write_call("c2", "docs/other/x.py"))  # really src/x.py
    assert through.status == "denied" and len(approver.requests) == 2
    plain = await executor.run(write_call("c3", "docs/readme.md"))
    assert plain.status == "succeeded" and len(approver.requests) == 2
    # asked about the link itself: no grant is proposed for what is really .git/config
    assert approver.requests[0].proposed_scope == ""
    assert approver.requests[1].proposed_scope == "src/*"  # (where it really writes)


async def test_a_command_grant_does_not_cover_a_command_run_in_git(tmp_path: Path) -> None:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "src").mkdir()
    approver = ScriptedApprover(ApprovalDecision.deny("no"))
    grants = MemoryGrantStore()
    grants.add("run_command", scope="ls")
    executor = ToolExecutor(builtin_registry(), Workspace(tmp_path), {"run_command"},
                            approver=approver, grants=grants)
    inside = await executor.run(ToolCallPart(id="c1", name="run_command", arguments=json.dumps(
        {"command": "ls -la", "cwd": "src"})))
    assert inside.status == "succeeded" and approver.requests == []
    hooks = await executor.run(ToolCallPart(id="c2", name="run_command", arguments=json.dumps(
        {"command": "ls", "cwd": ".git/hooks"})))
    assert hooks.status == "denied" and len(approver.requests) == 1
