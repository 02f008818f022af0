"""Journeys: quitting while an answer streams, a chat answering in the background,
comparing models and keeping one,
searching and jumping to a match, attaching a PDF -- at 1400x900 and 800x600."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from tests.journeys.desktop import Desktop, stored_texts
from tests.journeys.model_server import JourneyModel
from tests.journeys.steps import ask, assert_stored
from tests.support.documents import write_pdf
from tests.support.openai_server import ScriptedResponse, text_stream


def story_held_halfway(desktop: Desktop, model: JourneyModel, ending: str
                       ) -> ScriptedResponse:
    """The app started, a long story asked for and streaming, held halfway."""
    desktop.start()
    story = "Once upon a time there was a very long story. " * 20 + ending
    held = ScriptedResponse(chunks=text_stream(story, 8), hold_after=12)
    model.enqueue(held)
    ask(desktop, "Tell me a long story")
    desktop.wait_for(text_contains="Once upon a time")
    assert held.holding.wait(30)
    return held

def test_quit_while_answering_keeps_the_partial_answer(desktop: Desktop,
                                                       model: JourneyModel) -> None:
    held = story_held_halfway(desktop, model, "")
    desktop.key("ctrl+q")
    # Quitting while a chat answers asks first; the person quits anyway.
    desktop.click_on(role="push button", name_contains="Quit", inside="Quit")
    assert desktop.wait_exit() == 0
    held.release()
    kept = [text for role, text in stored_texts(desktop.export()) if role == "assistant"]
    assert kept and kept[0].startswith("Once upon a time"), kept
    desktop.assert_clean_log()


def test_a_chat_answers_in_the_background_while_another_is_used(
        desktop: Desktop, model: JourneyModel) -> None:
    """Ctrl+N while an answer streams: the first chat goes on answering, its row in
    the chat list says so (the spinner), a question in the new chat is answered
    meanwhile, and the first chat, opened again, has its whole answer."""
    held = story_held_halfway(desktop, model, "The end of the story.")
    desktop.key("ctrl+n")
    desktop.wait_for(role="list item", name_contains=", answering")
    ask(desktop, "Meanwhile, a short one")
    desktop.wait_for(text_contains="You asked: Meanwhile, a short one")
    desktop.shot("answering-in-the-background")
    held.release()
    row = desktop.wait_for(role="list item", name_contains=", new answer")
    desktop.click(row)
    desktop.wait_for(text_contains="The end of the story.")
    desktop.shot("background-answer-opened")
    assert_stored(desktop, "Tell me a long story", "The end of the story.")
    assert_stored(desktop, "Meanwhile, a short one", "You asked: Meanwhile, a short one")
    desktop.assert_clean_log()


def test_a_chat_opened_again_while_it_answers_goes_on_on_screen(
        desktop: Desktop, model: JourneyModel) -> None:
    """Ctrl+N while an answer streams, then its row clicked while it still answers: what
    it wrote so far is there, and the rest streams on screen (nobody watching it, its
    answer was read at a slower pace; looked at again, at the watched one)."""
    held = story_held_halfway(desktop, model, "The end of the story.")
    desktop.key("ctrl+n")
    desktop.click(desktop.wait_for(role="list item", name_contains=", answering"))
    desktop.wait_for(text_contains="Once upon a time")
    held.release()
    desktop.wait_for(text_contains="The end of the story.")
    desktop.shot("background-answer-watched-again")
    assert_stored(desktop, "Tell me a long story", "The end of the story.")
    desktop.assert_clean_log()


def test_compare_two_models_and_keep_the_second(desktop: Desktop, model: JourneyModel) -> None:
    desktop.start()
    desktop.click_on(role="text", name="Message")
    desktop.type("Which is better?")
    desktop.click_on(role="push button", name="Compare models")
    desktop.wait_for(role="dialog", name="Compare models")
    # The chat's model (gpt-4o-mini) is chosen already; add a second one.
    desktop.click_on(role="list item", name="gpt-other", inside="Compare models")
    desktop.click_on(role="push button", name="Compare", inside="Compare models")
    desktop.wait_for(text_contains="You asked: Which is better? (gpt-4o-mini)")
    desktop.wait_for(text_contains="You asked: Which is better? (gpt-other)")
    desktop.shot("compared")
    keeps = desktop.find(role="push button", name_contains="Keep")
    assert len(keeps) == 2, keeps
    desktop.click_on(role="push button", name_contains="Keep", inside="gpt-other")
    # The chat goes on with the kept answer's model, and every part of the window says so.
    desktop.wait_for(role="status bar", name_contains="gpt-other")
    desktop.shot("kept")
    ask(desktop, "And next?")
    desktop.wait_for(text_contains="You asked: And next? (gpt-other)")
    assert model.answer_requests[-1].json["model"] == "gpt-other"
    assert_stored(desktop, "And next?", "(gpt-other)")
    desktop.assert_clean_log()


def _long_chat(path: Path, needle_at: int, count: int = 60) -> Path:
    """An Assista export with one long chat whose message ``needle_at`` has a rare word."""
    messages = []
    parent = None
    for index in range(count):
        role = "user" if index % 2 == 0 else "assistant"
        text = (f"Message {index}: the zebra crossing is by the old mill."
                if index == needle_at else f"Message {index}: " + "ordinary words " * 30)
        message_id = str(uuid.uuid4())
        messages.append({"id": message_id, "parent_id": parent, "role": role,
                         "parts": [{"type": "text", "text": text}],
                         "created_at": 1_700_000_000 + index})
        parent = message_id
    doc = {"format": "assista-export", "version": 2, "sessions": [{
        "id": str(uuid.uuid4()), "title": "Long walk", "created_at": 1_700_000_000,
        "updated_at": 1_700_000_100, "active_leaf_id": parent, "messages": messages}]}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_search_jumps_to_the_match(desktop: Desktop) -> None:
    imported = desktop.run_cli("import", str(_long_chat(desktop.home / "long.json", 31)))
    assert imported.returncode == 0, imported.stderr
    desktop.start()
    desktop.key("ctrl+n")
    # (typed at once, as a person does: every key lands in the search box, none is lost
    # while the search opens, however slow the machine)
    desktop.key("ctrl+k")
    desktop.type("zebra")
    desktop.wait_for(any_contains="1 match")
    desktop.shot("results")
    desktop.key("Return")
    found = desktop.wait_for(text_contains="Message 31: the zebra crossing")
    view = desktop.wait_for(name="Conversation")
    assert view.y <= found.y and found.y + found.h // 2 <= view.y + view.h, (
        "the matching message is not in view")
    desktop.shot("jumped")
    desktop.assert_clean_log()


def test_attach_a_pdf_and_ask_about_it(desktop: Desktop, model: JourneyModel) -> None:
    report = write_pdf(desktop.home / "report.pdf",
                       ["Quarterly report. Revenue grew by eleven percent in the north."])
    desktop.start()
    desktop.click_on(role="push button", name="Attach files")
    desktop.wait_for(role="dialog")
    desktop.type(str(report))
    desktop.key("Return")
    desktop.wait_for(any_contains="report.pdf")
    ask(desktop, "Summarise the attachment")
    desktop.wait_for(text_contains="You asked: ")
    desktop.shot("attached")
    sent = json.dumps(model.answer_requests[-1].json)
    assert "Revenue grew by eleven percent" in sent
    # The message shows the file, not a wall of its extracted text.
    assert not desktop.find(text_contains="Revenue grew by eleven percent"), (
        "the extracted text is shown in the message")
    desktop.wait_for(any_contains="report.pdf", inside="Conversation")
    desktop.assert_clean_log()
