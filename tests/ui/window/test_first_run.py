"""First run and defaults: the welcome's three steps, the last chat reopened, a title
written by the model, and starter assistants added only on request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import Qt

from desktop.app import AppContext
from desktop.chat.service import ChatService
from desktop.chat.starter_assistants import STARTERS
from desktop.ui.conversations.assistants_dialog import AssistantsDialog
from desktop.ui.window.controller import ChatController
from desktop.ui.window.early_question import reopen_last_chat
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.window.test_main_window import add_provider, make_window, send


def test_welcome_on_first_run_until_the_first_message(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    welcome = window.welcome.view
    assert welcome.isVisible()
    assert welcome.geometry() == window.chat.rect()  # covers the empty chat area
    add_step, model_step, ask_step = welcome.buttons
    assert add_step.isEnabled() and not model_step.isEnabled() and not ask_step.isEnabled()
    assert add_step.objectName() == "primaryButton"
    dialog = window.dialogs.open("providers")
    add_provider(ctx, fake_server)
    dialog.reject()  # (closing the Providers dialog re-reads them: the guide follows)
    assert welcome.isVisible()  # a provider, but no chat yet: still helpful
    assert welcome.markers[0].accessibleName() == "Step 1 done"
    assert welcome.markers[1].accessibleName() == "Step 2 done"  # its default model
    assert ask_step.isEnabled() and ask_step.objectName() == "primaryButton"
    qtbot.mouseClick(ask_step, Qt.MouseButton.LeftButton)
    assert window.focusWidget() is window.composer.input
    fake_server.enqueue_text("Hello!")
    send(qtbot, window, "hi")
    assert not welcome.isVisible()
    window.controller.new_session()  # with a chat saved, a new chat is just empty
    assert not welcome.isVisible()


def test_the_last_chat_is_reopened_at_the_next_start(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    for text in ("first chat", "second chat"):
        window.controller.new_session()
        fake_server.enqueue_text("ok")
        send(qtbot, window, text)
    second = window.controller.session_id
    first = next(s.id for s in ctx.sessions.list_sessions() if s.id != second)
    window.controller.open_session(first)
    window.controller.new_session()  # an empty new chat is not what to come back to
    window.close()
    ctx.close()

    ctx = open_ctx()
    again = make_window(qtbot, ctx)
    reopen_last_chat(again)
    assert again.controller.session_id == first
    assert again.controller.history[0].text == "first chat"
    assert not again.welcome.view.isVisible()
    # an archived (or deleted) chat is not reopened
    ctx.sessions.set_archived(first, True)
    third = make_window(qtbot, ctx)
    reopen_last_chat(third)
    assert third.controller.session_id is None


def test_the_model_titles_a_new_chat_in_the_list(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = MainWindow(ChatController(ctx, service=ChatService(ctx, write_titles=True)))
    qtbot.addWidget(window)
    window.show()
    fake_server.enqueue_text("Use a sourdough starter and a long, cold rise.")
    fake_server.enqueue_text("Sourdough bread tips")
    send(qtbot, window, "how do I bake bread that tastes like a bakery's")
    qtbot.waitUntil(lambda: window.sessions.list.item(0).text() == "Sourdough bread tips",
                    timeout=10000)
    # the user's own title stays: rename, then a second chat's title request is late
    window.controller.new_session()
    fake_server.enqueue_text("Fine.")
    late = fake_server.enqueue_text("Model title")
    late.hold_after = 0
    send(qtbot, window, "another question")
    session = window.controller.session_id or ""
    window.controller.rename_session(session, "My title")
    late.release()
    qtbot.waitUntil(lambda: window.controller.service.titles.pending() == 0, timeout=10000)
    info = ctx.sessions.get_session(session)
    assert info is not None and info.title == "My title"


def test_starter_assistants_are_added_only_on_request_and_then_editable(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    dialog = AssistantsDialog(ctx.assistants, ctx.providers, ["read_file"])
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.list.count() == 0
    qtbot.mouseClick(dialog.starters_button, Qt.MouseButton.LeftButton)
    gallery = dialog.gallery
    assert gallery is not None and gallery.isVisible()
    assert len(gallery.cards) == len(STARTERS) >= 10
    assert ctx.assistants.list_assistants() == []  # showing them adds nothing
    card = gallery.card("Translator")
    qtbot.mouseClick(card.add_button, Qt.MouseButton.LeftButton)
    assert not card.add_button.isEnabled() and card.add_button.text() == "Added"
    assert [a.name for a in ctx.assistants.list_assistants()] == ["Translator"]
    # selected in the dialog, its form ready to edit
    assert dialog.list.currentItem().text() == "Translator"
    assert dialog.delete_button.isEnabled()
    assert "Translate" in dialog.form.prompt_edit.toPlainText()
    dialog.form.name_edit.setText("My translator")
    dialog.form.name_edit.textEdited.emit("My translator")
    assert dialog.save_current()
    assert [a.name for a in ctx.assistants.list_assistants()] == ["My translator"]


def test_a_starter_picked_on_the_welcome_is_the_new_chats_assistant(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    window.welcome.view.starters_link.linkActivated.emit("starters")
    gallery = window.welcome.gallery
    qtbot.mouseClick(gallery.card("Programmer").add_button, Qt.MouseButton.LeftButton)
    assistant = window.controller.profile.assistant()
    assert assistant is not None and assistant.name == "Programmer"
    assert window.top_bar.assistant_picker.currentText() == "Programmer"
    fake_server.enqueue_text("Sure.")
    send(qtbot, window, "write a loop")
    system = fake_server.last_chat_body["messages"][0]["content"]
    assert system.startswith("You are an experienced software engineer.")


def test_a_returning_start_does_not_build_the_welcome_until_it_is_wanted(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    chat = ctx.sessions.create_session("kept")
    window = make_window(qtbot, ctx)
    assert window.welcome._view is None  # a provider and a chat: nothing to explain
    window.controller.new_session()
    assert window.welcome._view is None
    ctx.sessions.delete_session(chat.id)  # no chat left: the welcome helps again
    window.controller.sessionsChanged.emit()
    assert window.welcome._view is not None and window.welcome.view.isVisible()
    assert window.welcome.view.geometry() == window.chat.rect()
