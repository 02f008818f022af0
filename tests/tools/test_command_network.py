"""Network for a chat's commands: a command that says it needs the network (``network:
true``) while commands have none asks "Allow network for this chat's commands"; with
the chat's grant its commands (under real bubblewrap) reach a loopback server, without
it they cannot, and another chat still cannot."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from desktop.tools import ToolExecutor, Workspace, builtin_registry
from desktop.tools.approval import ApprovalDecision, ApprovalRequest, ChatGrants
from desktop.tools.sandbox import bwrap_problem
from desktop.tools.trust import ToolTrust
from tests.tools.test_sandbox import fetch, web
from tests.tools.test_tools_run_command import call, payload

__all__ = ["web"]  # (the loopback server fixture)


@pytest.fixture(autouse=True)
def _bubblewrap() -> None:
    if bwrap_problem() is not None:  # .ci/run installs it: a failure there, not a skip
        pytest.fail(f"no sandbox on this machine: {bwrap_problem()}")


class Chat:
    """One chat: its grants, and an approver answering every request with ``answer``."""

    def __init__(self, root: Path, answer: ApprovalDecision, trust: ToolTrust | None = None,
                 policy: str = "allow") -> None:
        self.grants = ChatGrants()
        self.asked: list[ApprovalRequest] = []
        self.answer = answer
        self.root, self.trust, self.policy = root, trust or ToolTrust(), policy

    async def approve(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return self.answer

    def run(self, command: str, **extra: Any) -> dict[str, Any]:
        executor = ToolExecutor(builtin_registry(), Workspace(self.root), approver=self.approve,
                                chat_grants=self.grants, trust=self.trust,
                                policies={"run_command": self.policy})  # type: ignore[dict-item]
        return payload(asyncio.run(executor.run(call(command, **extra))))


def reached(done: dict[str, Any]) -> bool:
    return done.get("status") == "success" and done["result"]["stdout"] == "hello\n"


def test_the_chats_grant_lets_its_commands_reach_the_network_and_no_other_chats(
        root: Path, web: str) -> None:
    chat = Chat(root, ApprovalDecision.allow_chat())
    assert not reached(chat.run(fetch(web)))  # (no network, nothing asked)
    assert chat.asked == []
    done = chat.run(fetch(web), network=True)
    assert reached(done), done
    assert done["result"]["confinement"] == "sandboxed_chat_online"
    assert "network allowed for this chat" in done["result"]["sandbox"]
    [request] = chat.asked
    assert request.network and request.tool == "run_command"
    assert request.preview.title == "Allow network for this chat's commands"
    assert request.preview.title_code == "command_network"
    assert request.preview.confinement == "sandboxed_offline"  # (as it is until allowed)
    assert chat.grants.command_network and "run_command" not in chat.grants
    assert reached(chat.run(fetch(web)))  # the chat's later commands: not asked again
    assert len(chat.asked) == 1
    other = Chat(root, ApprovalDecision.deny("no network here"))
    assert not reached(other.run(fetch(web)))
    refused = other.run(fetch(web), network=True)
    assert refused["status"] == "denied" and "no network here" in str(refused)
    assert not other.grants.command_network
    chat.grants.clear()  # ("Forget" in Settings -> Tools)
    assert not reached(chat.run(fetch(web)))


def test_allow_once_gives_that_command_the_network_only(root: Path, web: str) -> None:
    chat = Chat(root, ApprovalDecision.allow_once())
    done = chat.run(fetch(web), network=True)
    assert reached(done) and done["result"]["confinement"] == "sandboxed_online"
    assert not chat.grants.command_network
    assert not reached(chat.run(fetch(web)))
    chat.run(fetch(web), network=True)
    assert len(chat.asked) == 2


def test_a_command_that_must_be_approved_asks_once_for_both(root: Path, web: str) -> None:
    chat = Chat(root, ApprovalDecision.allow_chat(), policy="ask")
    assert reached(chat.run(fetch(web), network=True))
    assert [r.network for r in chat.asked] == [True]
    assert "run_command" not in chat.grants  # (the network was allowed, not the tool)
    assert reached(chat.run(fetch(web)))
    assert [r.network for r in chat.asked] == [True, False]  # the tool still asks


@pytest.mark.parametrize("trust", [ToolTrust(command_network=True),
                                   ToolTrust(command_sandbox=False)],
                         ids=["network-on-in-settings", "sandbox-off"])
def test_nothing_is_asked_when_commands_have_the_network_anyway(
        root: Path, web: str, trust: ToolTrust) -> None:
    chat = Chat(root, ApprovalDecision.deny(), trust=trust)
    assert reached(chat.run(fetch(web), network=True))
    assert chat.asked == []


def test_with_no_one_to_ask_a_command_asking_for_the_network_is_refused_and_says_why(
        root: Path) -> None:
    executor = ToolExecutor(builtin_registry(), Workspace(root), approver=None,
                            policies={"run_command": "allow"})
    done = payload(asyncio.run(executor.run(call("echo hi > made.txt", network=True))))
    assert done["status"] == "denied" and "asked for the network" in str(done)
    assert not (root / "made.txt").exists()
    ran = payload(asyncio.run(executor.run(call("echo hi"))))
    assert ran["status"] == "success"  # (without the network it runs as allowed)
