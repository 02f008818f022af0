"""Journeys: a fact remembered in one chat reaches the next chat; a project made on the
command line gives its chats its instructions, and other chats never see them -- in
the shipped app, at 1400x900 and 800x600."""

from __future__ import annotations

import json

from tests.journeys.desktop import Desktop
from tests.journeys.model_server import JourneyModel
from tests.journeys.steps import ask
from tests.support.openai_server import ScriptedResponse, text_stream, tool_call_stream


def system_prompt(model: JourneyModel, index: int) -> str:
    messages = model.answer_requests[index].json["messages"]
    return "\n".join(str(m.get("content")) for m in messages if m.get("role") == "system")


def test_a_fact_remembered_in_one_chat_reaches_a_new_chat(desktop: Desktop,
                                                          model: JourneyModel) -> None:
    desktop.start()
    model.enqueue(
        ScriptedResponse(chunks=tool_call_stream(
            [("remember", json.dumps({"fact": "The user's dog is called Pixel."}))])),
        ScriptedResponse(chunks=text_stream("Noted: Pixel.", 4)))
    ask(desktop, "Remember that my dog is called Pixel")
    # Memory asks first by default: the person allows it in the chat.
    desktop.click_on(role="push button", name="Allow once", inside="Conversation")
    desktop.wait_for(text_contains="Noted: Pixel.")
    desktop.wait_for(name_contains="Memory saved: The user's dog is called Pixel.")
    desktop.shot("memory-saved")
    listed = desktop.run_cli("memory", "list")
    assert listed.returncode == 0 and "The user's dog is called Pixel." in listed.stdout, \
        listed.stderr
    desktop.wait_idle()
    desktop.key("ctrl+n")  # a new chat
    ask(desktop, "What is my dog called?")
    desktop.wait_for(text_contains="You asked: What is my dog called?")
    assert "Pixel" in system_prompt(model, -1)  # the memory went with the new chat
    assert "Pixel" not in system_prompt(model, 0)  # (not there before it was saved)
    desktop.assert_clean_log()


def test_a_projects_instructions_reach_its_chats_and_no_others(desktop: Desktop,
                                                               model: JourneyModel) -> None:
    made = desktop.run_cli("project", "create", "Garden", "--instructions",
                           "Answer as a gardener who loves tomatoes.")
    assert made.returncode == 0, made.stderr
    desktop.start()
    # The project is in the chat list; its own New chat starts a chat in it.
    desktop.click_on(role="list item", name="Garden", inside="Projects")
    desktop.click_on(role="push button", name_contains="New chat in this project")
    ask(desktop, "What should I plant?")
    desktop.wait_for(text_contains="You asked: What should I plant?")
    desktop.shot("project-chat")
    assert "gardener who loves tomatoes" in system_prompt(model, -1)
    desktop.wait_idle()
    desktop.key("ctrl+n")  # a chat in no project
    ask(desktop, "And outside the garden?")
    desktop.wait_for(text_contains="You asked: And outside the garden?")
    assert "gardener" not in system_prompt(model, -1)
    desktop.assert_clean_log()
