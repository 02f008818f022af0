"""A chat answering in another Assista process (``assista ask --session``) refuses a
question in the window with a sentence that says so; what was typed stays."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import Qt

from desktop.app import AppContext
from desktop.storage.chat_lock import lock_chat
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_chat, make_window


def test_a_question_in_a_chat_answering_elsewhere_is_refused_and_kept(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    chat = make_chat(ctx, "Busy elsewhere", "hello", "hi")
    window = make_window(qtbot, ctx)
    window.controller.open_session(chat)
    elsewhere = lock_chat(ctx.paths.root, chat)  # held by `assista ask --session` meanwhile
    assert elsewhere is not None
    box = window.composer.input
    qtbot.keyClicks(box, "and now?")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    banner = window.chat_pane.error_banner
    assert banner.isVisible()
    assert banner.text() == ("This chat is answering in another Assista process (assista "
                             "ask); try again once that answer has finished.")
    assert box.toPlainText() == "and now?" and not window.controller.busy
    assert fake_server.chat_requests == []
    elsewhere.release()
    fake_server.enqueue_text("Now it can.")
    qtbot.keyClick(box, Qt.Key.Key_Return)  # once that answer has finished
    qtbot.waitUntil(lambda: len(ctx.sessions.load_messages(chat)) == 4, timeout=10000)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    assert [m.text for m in ctx.sessions.load_messages(chat)][-2:] == ["and now?", "Now it can."]
