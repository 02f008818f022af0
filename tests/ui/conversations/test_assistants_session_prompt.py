"""Chat → Edit system prompt…: a chat's own system prompt reaches the request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync

from desktop.app import AppContext
from desktop.ui.conversations.session_prompt_dialog import SessionPromptDialog
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window, send, system_text


def test_own_prompt_of_a_chat_is_sent_and_can_be_reset(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    fake_server.enqueue_text("Hello!")
    send(qtbot, window, "hello")
    session_id = window.controller.session_id or ""

    dialog = window.conversations.edit_session_prompt()
    assert isinstance(dialog, SessionPromptDialog) and dialog.isVisible()
    assert not dialog.own_check.isChecked() and dialog.editor.isReadOnly()
    assert dialog.editor.toPlainText().startswith("You are Assista")  # the inherited one
    dialog.own_check.setChecked(True)
    dialog.editor.setPlainText("Réponds uniquement en français.")
    assert dialog.preview.toPlainText().startswith("Réponds uniquement en français.")
    assert "Today is" in dialog.preview.toPlainText()
    dialog.save()
    assert not dialog.isVisible()
    info = ctx.sessions.get_session(session_id)
    assert info is not None and info.system_prompt == "Réponds uniquement en français."

    fake_server.enqueue_text("Bonjour !")
    send(qtbot, window, "hello again")
    system = system_text(fake_server.last_chat_body)
    assert system.startswith("Réponds uniquement en français.")
    assert "You are Assista" not in system

    # Back to the inherited prompt
    dialog = window.conversations.edit_session_prompt()
    assert isinstance(dialog, SessionPromptDialog)
    assert dialog.own_check.isChecked()
    assert dialog.editor.toPlainText() == "Réponds uniquement en français."
    dialog.own_check.setChecked(False)
    dialog.save()
    info = ctx.sessions.get_session(session_id)
    assert info is not None and info.system_prompt is None
    fake_server.enqueue_text("Hi")
    send(qtbot, window, "third")
    assert system_text(fake_server.last_chat_body).startswith("You are Assista")


def test_prompt_set_before_the_first_message_goes_with_the_new_chat(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    dialog = window.conversations.edit_session_prompt()
    assert isinstance(dialog, SessionPromptDialog)
    dialog.own_check.setChecked(True)
    dialog.editor.setPlainText("Be brief.")
    dialog.save()
    assert window.controller.session_id is None
    fake_server.enqueue_text("OK")
    send(qtbot, window, "hello")
    assert system_text(fake_server.last_chat_body).startswith("Be brief.")
    info = ctx.sessions.get_session(window.controller.session_id or "")
    assert info is not None and info.system_prompt == "Be brief."
    # The next new chat does not inherit it
    window.controller.new_session()
    assert window.controller.profile.session_prompt() is None
