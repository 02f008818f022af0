"""Steps a person takes, shared by the journeys: each through real input on the real
window, each waiting for what the screen shows next."""

from __future__ import annotations

from pathlib import Path

from tests.journeys.desktop import Desktop, JourneyFailure, stored_texts


def ask(desktop: Desktop, question: str) -> None:
    """Types into the composer (clicked first, as a person who is not sure where the
    cursor is would) and presses Enter."""
    desktop.click_on(role="text", name="Message")
    desktop.type(question)
    desktop.key("Return")


def choose_workspace(desktop: Desktop, folder: Path) -> None:
    desktop.click_on(role="push button", name_contains="Workspace folder")
    desktop.wait_for(role="dialog", name="Choose workspace folder")
    desktop.wait_for(role="text", name="Directory:", states=["focused"])
    desktop.key("ctrl+a")
    desktop.type(str(folder))
    desktop.key("Return")
    desktop.wait_gone(role="dialog", name="Choose workspace folder")
    desktop.wait_for(role="push button", name_contains=f"Workspace folder: {folder.name}")


def pick_model(desktop: Desktop, model: str) -> None:
    """The top bar's model picker: click it, type to filter, Enter."""
    desktop.click_on(role="push button", name="Model")
    desktop.type(model)
    desktop.key("Return")
    desktop.wait_for(role="status bar", name_contains=model)


def assert_stored(desktop: Desktop, question: str, answer: str) -> None:
    """Once the answer is over on screen, ``assista export`` holds the question and it."""
    desktop.wait_idle()
    texts = list(stored_texts(desktop.export()))
    if ("user", question) not in texts or not any(
            role == "assistant" and answer in text for role, text in texts):
        raise JourneyFailure(f"{question!r} and its answer are not in `assista export`: "
                             f"{texts}")
