"""The terminal approver writes what came from the model with its control characters
spelled out: escape sequences, carriage returns and bidi overrides cannot repaint
the question."""

from __future__ import annotations

import asyncio
import io
import json
import re

from hypothesis import given
from hypothesis import strategies as st

from desktop.core.terminal_text import visible
from desktop.tools.approval import ApprovalDecision, ApprovalPreview, ApprovalRequest
from desktop.tools.terminal_approver import TerminalApprover, render_request

HOSTILE = ("rm -rf ~\x1b[2K\r\x1b[32m✔ Safe: read-only\x1b[0m\x07"
           "\x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ \u202eevil\x9b31m\x08")
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def request(text: str) -> ApprovalRequest:
    return ApprovalRequest(tool=f"run_command{text}", call_id="c1",
                           arguments={"command": text},
                           preview=ApprovalPreview("command", f"ls\n{text}", title=text,
                                                   error=text),
                           source=f"srv{text}")


def test_render_request_spells_out_every_control_character() -> None:
    shown = render_request(request(HOSTILE))
    assert not RAW.search(shown)
    assert "\\x1b[2K\\r\\x1b[32m✔ Safe: read-only" in shown
    assert "\\u202eevil\\u009b31m\\x08" in shown
    assert "$ ls\n" in shown  # the command's own lines stay lines


async def test_the_prompt_and_the_answer_loop() -> None:
    err = io.StringIO()
    approver = TerminalApprover(err, read_line=lambda: "y\n")
    decision = await approver(request(HOSTILE))
    assert decision == ApprovalDecision.allow_once()
    assert not RAW.search(err.getvalue())
    assert "Allow run_command" in err.getvalue()
    assert asyncio.get_running_loop() is not None


@given(st.text())
def test_visible_never_lets_a_control_character_through(text: str) -> None:
    for lines in (True, False):
        shown = visible(text, lines=lines)
        assert not RAW.search(shown.replace("\n", "") if lines else shown)
        assert ("\n" in shown) == (lines and "\n" in text)


def test_visible_keeps_plain_text_and_tabs() -> None:
    plain = "naïve café — 100 %\tcol2 \\x1b literal"
    assert visible(plain) == plain
    assert json.loads(json.dumps(visible("\x00"))) == "\\x00"


def command_request(command: str, scope: str) -> ApprovalRequest:
    return ApprovalRequest(tool="run_command", call_id="c2", arguments={"command": command},
                           preview=ApprovalPreview("command", command),
                           proposed_scope=scope, always_needs_scope=True)


async def test_always_grants_the_scope_the_prompt_spells_out() -> None:
    for answer in ("a\n", "always\n", "s\n"):
        err = io.StringIO()
        decision = await TerminalApprover(err, read_line=lambda a=answer: a)(
            command_request("git status -s", "git status"))
        assert decision == ApprovalDecision.allow_always("git status")
        assert ("[a]lways allows, in every chat: commands: git status with its read-only "
                "options") in err.getvalue()
    err = io.StringIO()
    exact = await TerminalApprover(err, read_line=lambda: "a\n")(
        command_request("npm run build", "npm run build"))
    assert exact == ApprovalDecision.allow_always("npm run build")
    assert "exactly the command: npm run build" in err.getvalue()
    plain = await TerminalApprover(io.StringIO(), read_line=lambda: "s\n")(request("x"))
    assert plain.kind == "deny"  # no scope offered: "s" is not an answer (asked 3 times)


async def test_without_a_valid_scope_always_is_not_offered() -> None:
    """"always" for a command with shell syntax granted every command, in every chat."""
    err = io.StringIO()
    answers = iter(["a\n", "always\n", "y\n"])
    decision = await TerminalApprover(err, read_line=lambda: next(answers))(
        command_request("ls; rm -rf build", ""))
    assert decision == ApprovalDecision.allow_once()  # "a" was not understood: asked again
    assert "[a]lways" not in err.getvalue().replace("no [a]lways", "")
    assert "no [a]lways: this call cannot be granted for good" in err.getvalue()


async def test_a_command_asking_for_the_network_offers_it_for_the_chat_never_always() -> None:
    err = io.StringIO()
    answers = iter(["a\n", "c\n"])
    asking = ApprovalRequest(tool="run_command", call_id="c1",
                             arguments={"command": "pip download x", "network": True},
                             preview=ApprovalPreview.titled("command", "pip download x",
                                                            "command_network"),
                             always_needs_scope=True, proposed_scope="pip", network=True)
    decision = await TerminalApprover(err, read_line=lambda: next(answers))(asking)
    assert decision == ApprovalDecision.allow_chat()  # ("a" was not understood)
    shown = err.getvalue()
    assert "Allow network for this chat's commands" in shown
    assert "[c]hat allows the network to this chat's commands" in shown
    assert "[a]lways" not in shown
