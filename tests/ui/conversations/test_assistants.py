"""Assistants: the dialog edits them; the top-bar picker starts a chat from one, whose
prompt, model, temperature and tools reach the request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from desktop.app import AppContext
from desktop.ui.conversations.assistant_picker import AssistantPicker
from desktop.ui.conversations.assistants_dialog import AssistantsDialog
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window, send, system_text


def names(dialog: AssistantsDialog) -> list[str]:
    return [dialog.list.item(i).text() for i in range(dialog.list.count())]


def pick(picker: AssistantPicker, name: str) -> None:
    index = picker.findText(name)
    assert index >= 0, f"{name} not offered"
    picker.setCurrentIndex(index)
    picker.activated.emit(index)


def test_dialog_creates_edits_duplicates_reorders_and_deletes(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    config = add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    dialog = window.conversations.open_assistants()
    assert isinstance(dialog, AssistantsDialog) and dialog.isVisible()
    assert names(dialog) == [] and dialog.empty_hint.isVisibleTo(dialog)
    assert not dialog.delete_button.isEnabled() and not dialog.duplicate_button.isEnabled()

    qtbot.mouseClick(dialog.new_button, Qt.MouseButton.LeftButton)
    assert names(dialog) == ["New assistant"] and not dialog.empty_hint.isVisibleTo(dialog)
    dialog.form.name_edit.setText("Reviewer")
    dialog.form.name_edit.textEdited.emit("Reviewer")
    dialog.form.prompt_edit.setPlainText("You review code tersely.")
    dialog.form.provider_combo.setCurrentIndex(dialog.form.provider_combo.findData(config.id))
    dialog.form.model_combo.setEditText("gpt-other")
    dialog.form.temperature_check.setChecked(True)
    dialog.form.temperature_spin.setValue(0.3)
    dialog.form.tools_check.setChecked(True)
    for name, box in dialog.form.tool_checks.items():
        box.setChecked(name == "fetch_url")
    assert dialog.save_button.isEnabled()
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    (saved,) = ctx.assistants.list_assistants()
    assert (saved.name, saved.system_prompt, saved.provider_id, saved.model, saved.temperature,
            saved.enabled_tools) == ("Reviewer", "You review code tersely.", config.id,
                                     "gpt-other", 0.3, ("fetch_url",))
    assert names(dialog) == ["Reviewer"]
    # The top-bar picker follows
    assert window.top_bar.assistant_picker.findText("Reviewer") >= 0

    qtbot.mouseClick(dialog.new_button, Qt.MouseButton.LeftButton)
    dialog.form.name_edit.setText("Translator")
    dialog.form.name_edit.textEdited.emit("Translator")
    qtbot.mouseClick(dialog.duplicate_button, Qt.MouseButton.LeftButton)  # saves first
    assert names(dialog) == ["Reviewer", "Translator", "Translator (copy)"]
    assert dialog.list.currentItem().text() == "Translator (copy)"
    qtbot.mouseClick(dialog.up_button, Qt.MouseButton.LeftButton)
    assert names(dialog) == ["Reviewer", "Translator (copy)", "Translator"]
    assert [a.name for a in ctx.assistants.list_assistants()] == names(dialog)

    # A name is required: the error shows and the selection stays
    dialog.form.name_edit.setText("   ")
    dialog.form.name_edit.textEdited.emit("   ")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert "needs a name" in dialog.error_label.text()
    dialog.list.setCurrentRow(0)
    assert dialog.list.currentRow() == 1
    dialog.form.name_edit.setText("Translator 2")
    dialog.form.name_edit.textEdited.emit("Translator 2")

    # Delete asks first
    qtbot.mouseClick(dialog.delete_button, Qt.MouseButton.LeftButton)
    box = next(w for w in dialog.findChildren(QMessageBox) if w.isVisible())
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: names(dialog) == ["Reviewer", "Translator"])
    assert [a.name for a in ctx.assistants.list_assistants()] == ["Reviewer", "Translator"]
    dialog.close()
    assert window.top_bar.assistant_picker.findText("Translator 2") < 0


def test_chat_from_an_assistant_sends_its_prompt_model_temperature_and_tools(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    config = add_provider(ctx, fake_server)
    reviewer = ctx.assistants.create(
        "Reviewer", "You review code tersely.", provider_id=config.id, model="gpt-other",
        temperature=0.3, enabled_tools=("fetch_url",))
    window = make_window(qtbot, ctx)
    window.controller.update_settings(custom_instructions="My name is Ada.")
    picker = window.top_bar.assistant_picker
    assert picker.currentText() == "No assistant"
    pick(picker, "Reviewer")
    assert window.controller.profile.assistant() == reviewer
    assert window.top_bar.model_button.full_text == "gpt-other"
    assert window.controller.tool_switches.enabled_tools() == ["fetch_url"]

    fake_server.enqueue_text("Looks fine.")
    send(qtbot, window, "Review this")
    body = fake_server.last_chat_body
    assert body["model"] == "gpt-other"
    assert body["temperature"] == 0.3
    # (and remember: memory is on)
    assert [t["function"]["name"] for t in body["tools"]] == ["fetch_url", "remember"]
    system = system_text(body)
    assert system.startswith("You review code tersely.")
    assert "My name is Ada." in system and "You are Assista" not in system
    info = ctx.sessions.get_session(window.controller.session_id or "")
    assert info is not None and info.assistant_id == reviewer.id
    assert picker.currentText() == "Reviewer"

    # New chat keeps the assistant; "No assistant" gives the default prompt and no
    # temperature
    window.controller.new_session()
    assert picker.currentText() == "Reviewer"
    assert window.controller.profile.assistant() == reviewer
    pick(picker, "No assistant")
    fake_server.enqueue_text("Hi.")
    send(qtbot, window, "Hello")
    body = fake_server.last_chat_body
    assert "temperature" not in body or body["temperature"] is None
    assert system_text(body).startswith("You are Assista")

    # Reopening the first chat shows its assistant; its prompt is used again
    first = info.id
    window.controller.open_session(first)
    assert picker.currentText() == "Reviewer"
    fake_server.enqueue_text("Still fine.")
    send(qtbot, window, "And now?")
    assert system_text(fake_server.last_chat_body).startswith("You review code tersely.")


def test_default_assistant_from_settings_starts_new_chats(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    poet = ctx.assistants.create("Poet", "Answer in verse.")
    window = make_window(qtbot, ctx)
    window.controller.update_settings(default_assistant_id=poet.id)
    window.controller.new_session()
    assert window.top_bar.assistant_picker.currentText() == "Poet"
    fake_server.enqueue_text("Roses.")
    send(qtbot, window, "Hello")
    assert system_text(fake_server.last_chat_body).startswith("Answer in verse.")
    # "Manage assistants…" opens the dialog and keeps the choice
    picker = window.top_bar.assistant_picker
    picker.activated.emit(picker.count() - 1)
    assert picker.currentText() == "Poet"
    assert window.dialogs.current("assistants") is not None


def test_typing_into_the_empty_dialog_creates_the_first_assistant_on_save(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    dialog = window.conversations.open_assistants()
    assert isinstance(dialog, AssistantsDialog) and names(dialog) == []
    assert not dialog.save_button.isEnabled()

    qtbot.keyClicks(dialog.form.name_edit, "Translator")
    qtbot.keyClicks(dialog.form.prompt_edit, "Translate into French.")
    assert dialog.save_button.isEnabled()
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    (saved,) = ctx.assistants.list_assistants()
    assert (saved.name, saved.system_prompt) == ("Translator", "Translate into French.")
    assert names(dialog) == ["Translator"] and not dialog.empty_hint.isVisibleTo(dialog)
    assert dialog.delete_button.isEnabled()


def test_an_unnamed_new_assistant_is_dropped_on_close_and_a_named_one_is_kept(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    dialog = window.conversations.open_assistants()
    assert isinstance(dialog, AssistantsDialog)
    qtbot.keyClicks(dialog.form.description_edit, "half typed")
    dialog.close()
    assert not dialog.isVisible() and ctx.assistants.list_assistants() == []

    dialog = window.conversations.open_assistants()
    assert isinstance(dialog, AssistantsDialog)
    qtbot.keyClicks(dialog.form.name_edit, "Editor")
    dialog.close()  # edits are saved on close, as for an existing assistant
    assert [a.name for a in ctx.assistants.list_assistants()] == ["Editor"]
