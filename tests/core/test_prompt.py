"""System prompt layers, collapsing system messages, the prepared request."""

from __future__ import annotations

from datetime import date

from desktop.core.messages import Message, TextPart, ToolCallPart
from desktop.core.prompt import (
    PromptSources,
    assemble,
    base_prompt,
    build_system_prompt,
    collapse_system_messages,
    prepare_request,
    workspace_context,
)


def test_base_prompt_precedence() -> None:
    assert base_prompt(" Default ") == "Default"
    assert base_prompt("Default", assistant="Pirate") == "Pirate"
    assert base_prompt("Default", assistant="   ") == "Default"
    assert base_prompt("Default", assistant="Pirate", session="Chat's own") == "Chat's own"
    assert base_prompt("Default", assistant="Pirate", session="") == ""  # explicitly none


def test_layers_in_order() -> None:
    sources = PromptSources(
        default="You are Assista.",
        custom_instructions="  I am a nurse; be brief. ",
        workspace="/home/me/proj",
        tools=("read_file", "list_directory"),
        today=date(2025, 3, 4),
    )
    assert build_system_prompt(sources) == (
        "You are Assista.\n\n"
        "The user's custom instructions:\nI am a nurse; be brief.\n\n"
        "The user's workspace folder is /home/me/proj. The tools read_file, list_directory "
        "work inside it; give them paths relative to this folder. Today is 2025-03-04."
    )
    assert build_system_prompt(PromptSources()) is None
    assert build_system_prompt(PromptSources(session="", today=date(2025, 1, 2))) == (
        "Today is 2025-01-02."
    )
    assert workspace_context(None, ("x",)) == ""
    assert workspace_context("/w") == "The user's workspace folder is /w."


def test_consecutive_system_messages_collapse() -> None:
    a, b, c = Message.system("one"), Message.system(" two "), Message.system("three")
    user, reply = Message.user("hi"), Message(role="assistant", parts=[TextPart(text="yo")])
    collapsed = collapse_system_messages([a, b, user, c, Message.system(""), reply])
    assert [m.role for m in collapsed] == ["system", "user", "system", "assistant"]
    assert collapsed[0].text == "one\n\ntwo" and collapsed[0].id == a.id
    assert collapsed[2].text == "three"
    assert a.text == "one"  # inputs are not modified


def test_assemble_folds_leading_system_messages() -> None:
    history = [Message.system("Summary: earlier stuff"), Message.system("more"), Message.user("q")]
    system, messages = assemble("Base prompt", history)
    assert system == "Base prompt\n\nSummary: earlier stuff\n\nmore"
    assert messages == [history[2]]
    assert assemble(None, [history[2]]) == (None, [history[2]])
    assert assemble(None, history[:1]) == ("Summary: earlier stuff", [])


def test_prepare_request_repairs_and_fits() -> None:
    call = Message(role="assistant", parts=[ToolCallPart(id="c1", name="read_file")])
    history = [
        Message.user("old " + "x" * 4000),
        Message(role="assistant", parts=[TextPart(text="old answer " + "y" * 4000)]),
        Message.user("now"),
        call,
    ]
    prepared = prepare_request(PromptSources(default="Be brief."), history, context_window=2000)
    assert prepared.system == "Be brief."
    assert [m.role for m in prepared.messages] == ["user", "assistant", "tool"]
    assert prepared.messages[0].text == "now"
    assert prepared.budget.trimmed and len(prepared.budget.dropped) == 2
    unlimited = prepare_request(PromptSources(), history)
    assert unlimited.system is None and len(unlimited.messages) == 5
