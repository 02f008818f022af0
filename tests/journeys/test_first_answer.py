"""Journeys: the first answer, a question typed as the window appears, a model picked
and then a message typed -- at 1400x900 and 800x600, and with every core busy."""

from __future__ import annotations

import pytest

from tests.journeys.desktop import CpuHog, Desktop
from tests.journeys.model_server import JourneyModel
from tests.journeys.steps import assert_stored, pick_model


def ask(desktop: Desktop, question: str) -> None:
    """Types where the focus is (no click first: the composer must have it)."""
    desktop.type(question)
    desktop.key("Return")


def first_run(desktop: Desktop, model: JourneyModel) -> None:
    """No provider anywhere: the Providers dialog guides to the first answer."""
    desktop.start()
    desktop.wait_for(role="dialog", name="Providers")
    desktop.click_on(role="push button", name="Add Custom (OpenAI-compatible)")
    desktop.wait_for(role="text", name="Base URL", states=["focused"])
    desktop.type(model.base_url)
    desktop.click_on(role="password text", name="API key")
    desktop.type("sk-first-run")
    desktop.click_on(role="push button", name="Fetch models")
    model.wait_for_path("/models")
    desktop.wait_for(any_contains="models found")
    field = desktop.wait_for(role="combo box", inside="Providers")  # (the only one)
    desktop.click(field)
    desktop.key("ctrl+a")
    desktop.type("gpt-journey")
    desktop.shot("provider-form")
    desktop.click_on(role="push button", name="Save", inside="Providers")
    desktop.click_on(role="push button", name="Close", inside="Providers")
    desktop.wait_gone(role="dialog", name="Providers")
    desktop.click_on(role="text", name="Message")
    ask(desktop, "Hello from a first run")
    desktop.wait_for(text_contains="You asked: Hello from a first run")
    desktop.shot("first-answer")
    assert_stored(desktop, "Hello from a first run", "You asked: Hello from a first run")
    request = model.answer_requests[-1]
    assert request.json["model"] == "gpt-journey"
    assert request.headers["authorization"] == "Bearer sk-first-run"
    desktop.assert_clean_log()


def pick_model_then_type(desktop: Desktop, model: JourneyModel) -> None:
    desktop.start()
    pick_model(desktop, "gpt-journey-mini")
    # The next keys go to the message, not back into the picker.
    ask(desktop, "Hello after picking")
    desktop.wait_for(text_contains="You asked: Hello after picking")
    desktop.shot("picked-and-answered")
    assert model.answer_requests[-1].json["model"] == "gpt-journey-mini"
    desktop.wait_for(role="status bar", name_contains="gpt-journey-mini")
    assert_stored(desktop, "Hello after picking", "You asked: Hello after picking")
    desktop.assert_clean_log()


def first_answer(desktop: Desktop, model: JourneyModel) -> None:
    desktop.start()
    composer = desktop.wait_for(role="text", name="Message")
    assert composer.focused, "the composer does not have the focus on a first start"
    ask(desktop, "What is two plus two?")
    desktop.wait_for(text_contains="You asked: What is two plus two?")
    desktop.shot("first-answer")
    assert_stored(desktop, "What is two plus two?", "You asked: What is two plus two?")
    assert model.answer_requests[0].json["messages"][-1]["content"] == "What is two plus two?"
    desktop.assert_clean_log()


def typed_as_window_appears(desktop: Desktop) -> None:
    desktop.start()
    ask(desktop, "First visit")
    desktop.wait_for(text_contains="You asked: First visit")
    assert desktop.quit_with_keys() == 0
    # The second start reopens the last chat: loading it takes a while, and the
    # question is typed the moment the window is there.
    desktop.start(wait_shown=False)
    desktop.wait_window_mapped()
    ask(desktop, "Typed at once")
    desktop.shot("typed-at-once")
    desktop.wait_for(text_contains="You asked: Typed at once")
    desktop.shot("answered")
    assert_stored(desktop, "Typed at once", "You asked: Typed at once")
    desktop.assert_clean_log()


def test_first_answer(desktop: Desktop, model: JourneyModel) -> None:
    first_answer(desktop, model)


def test_first_run_to_first_answer(bare_desktop: Desktop, model: JourneyModel) -> None:
    first_run(bare_desktop, model)


def test_pick_a_model_then_type(desktop: Desktop, model: JourneyModel) -> None:
    pick_model_then_type(desktop, model)


@pytest.mark.parametrize("size", ["800x600"], indirect=True)
def test_first_run_on_a_busy_machine(bare_desktop: Desktop, model: JourneyModel,
                                     hog: CpuHog) -> None:
    first_run(bare_desktop, model)


@pytest.mark.parametrize("size", ["800x600"], indirect=True)
def test_pick_a_model_then_type_on_a_busy_machine(desktop: Desktop, model: JourneyModel,
                                                  hog: CpuHog) -> None:
    pick_model_then_type(desktop, model)


def test_question_typed_as_the_window_appears(desktop: Desktop) -> None:
    typed_as_window_appears(desktop)


@pytest.mark.parametrize("size", ["800x600"], indirect=True)
def test_first_answer_on_a_busy_machine(desktop: Desktop, model: JourneyModel,
                                        hog: CpuHog) -> None:
    first_answer(desktop, model)


@pytest.mark.parametrize("size", ["800x600"], indirect=True)
def test_question_typed_as_the_window_appears_on_a_busy_machine(desktop: Desktop,
                                                                 hog: CpuHog) -> None:
    typed_as_window_appears(desktop)
