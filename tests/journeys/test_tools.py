"""Journeys: tool approvals (two in one turn, a scoped "always", a deny) and a command
that fails -- in the shipped app, at 1400x900 and 800x600."""

from __future__ import annotations

import json
from pathlib import Path

from tests.journeys.desktop import Desktop, stored_texts
from tests.journeys.model_server import JourneyModel
from tests.journeys.steps import ask, choose_workspace
from tests.support.openai_server import ScriptedResponse, text_stream, tool_call_stream


def calls(*pairs: tuple[str, dict[str, object]]) -> ScriptedResponse:
    return ScriptedResponse(chunks=tool_call_stream(
        [(name, json.dumps(arguments)) for name, arguments in pairs]))


def project(desktop: Desktop) -> Path:
    folder = desktop.home / "project"
    folder.mkdir()
    (folder / "a.txt").write_text("alpha\n", encoding="utf-8")
    return folder


def tool_results(model: JourneyModel, index: int) -> list[dict[str, object]]:
    messages = model.answer_requests[index].json["messages"]
    return [m for m in messages if m.get("role") == "tool"]


def test_two_approvals_in_one_turn_each_answered_in_the_chat(desktop: Desktop,
                                                             model: JourneyModel) -> None:
    desktop.start()
    folder = project(desktop)
    choose_workspace(desktop, folder)
    model.enqueue(calls(("write_file", {"path": "notes.txt", "content": "one\n"}),
                        ("run_command", {"command": "ls -la"})),
                  ScriptedResponse(chunks=text_stream("Both handled.", 4)))
    ask(desktop, "Make notes")
    desktop.click_on(role="push button", name="Allow once", inside="Conversation")
    # The first is answered: the second approval of the same turn is the one waiting.
    desktop.wait_for(any_contains="Waiting for your approval: Run command")
    desktop.shot("second-approval")
    # The second approval of the same turn is asked in the chat too.
    desktop.click_on(role="push button", name="Deny", inside="Conversation")
    desktop.wait_for(text_contains="Both handled.")
    desktop.shot("answered")
    results = tool_results(model, 1)
    assert len(results) == 2
    assert "denied" in str(results[1]["content"]).lower()
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "one\n"
    desktop.assert_clean_log()


def test_always_allow_keeps_to_its_scope(desktop: Desktop, model: JourneyModel) -> None:
    """"Always allow" on a command grants what the card says (the program with its
    read-only options), never every command; a command it cannot scope cannot be
    always allowed at all."""
    desktop.start()
    folder = project(desktop)
    choose_workspace(desktop, folder)
    model.enqueue(calls(("run_command", {"command": "ls; rm -f a.txt"})),
                  ScriptedResponse(chunks=text_stream("Refused.", 4)))
    ask(desktop, "List, then remove")
    always = desktop.wait_for(role="push button", name="Always allow", inside="Conversation")
    assert "enabled" not in always.states, "shell syntax was offered an Always allow"
    desktop.shot("no-always-for-shell-syntax")
    desktop.click_on(role="push button", name="Deny", inside="Conversation")
    desktop.wait_for(text_contains="Refused.")
    model.enqueue(calls(("run_command", {"command": "ls -la"})),
                  ScriptedResponse(chunks=text_stream("Listed.", 4)))
    ask(desktop, "List the files")
    desktop.click_on(role="push button", name="Always allow", inside="Conversation")
    desktop.wait_for(text_contains="Listed.")
    # Next turns: "ls" runs without asking; "rm" still asks, and is denied.
    model.enqueue(calls(("run_command", {"command": "ls"})),
                  ScriptedResponse(chunks=text_stream("Listed again.", 4)),
                  calls(("run_command", {"command": "rm -f a.txt"})),
                  ScriptedResponse(chunks=text_stream("Not removed.", 4)))
    ask(desktop, "List again")
    desktop.wait_for(text_contains="Listed again.")
    ask(desktop, "Remove a.txt")
    desktop.click_on(role="push button", name="Deny", inside="Conversation")
    desktop.wait_for(text_contains="Not removed.")
    assert (folder / "a.txt").exists()
    desktop.shot("scoped")
    desktop.assert_clean_log()


def test_a_failing_command_is_shown_as_failed(desktop: Desktop, model: JourneyModel) -> None:
    desktop.start()
    folder = project(desktop)
    choose_workspace(desktop, folder)
    model.enqueue(calls(("run_command", {"command": "ls no-such-file"})),
                  ScriptedResponse(chunks=text_stream("It failed.", 4)))
    ask(desktop, "List a missing file")
    desktop.click_on(role="push button", name="Allow once", inside="Conversation")
    desktop.wait_for(text_contains="It failed.")
    desktop.shot("failed-command")
    assert not desktop.find(name_contains="succeeded"), "a failed command shown as succeeded"
    assert desktop.find(name_contains="failed")
    stored = list(stored_texts(desktop.export()))
    assert any(role == "assistant" and "It failed." in text for role, text in stored)
    desktop.assert_clean_log()
