"""When an answer could not be stored, the window keeps it and offers Retry: a
banner says so (in the chat pane, from the controller's SaveFailed), Retry against a
database still locked by another process says it is still not saved, and once the
lock is gone Retry stores the whole answer and the banner goes."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import qasync

from desktop.app import AppContext
from desktop.chat.events import SaveFailed
from desktop.chat.save_retry import store_messages
from desktop.core.messages import Message, TextPart
from desktop.storage.database import Database
from desktop.storage.sessions import SessionStore
from desktop.ui.chat.save_banner import SaveBanner
from tests.trust.test_save_failures import Locker
from tests.ui.conversation_helpers import make_window

ANSWER = "A long answer " * 200


def answer_message(text: str) -> Message:
    return Message(role="assistant", parts=[TextPart(text=text)], model="m")


def test_retry_keeps_the_answer_until_the_database_takes_it(
        qtbot: Any, qt_loop: qasync.QEventLoop, tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    db = Database(path, busy_timeout_ms=100)
    sessions = SessionStore(db)
    sid = sessions.create_session("kept").id
    question, answer = Message.user("q"), answer_message(ANSWER)
    banner = SaveBanner(partial(store_messages, sessions))
    qtbot.addWidget(banner)
    saved: list[str] = []
    banner.saved.connect(saved.append)
    locker = Locker(path)
    try:
        banner.show_failure(SaveFailed(sid, "database is locked", [question, answer]))
        assert not banner.isHidden()
        assert "could not be saved: database is locked" in banner.label.text()
        banner.retry()
        qtbot.waitUntil(banner.retry_button.isEnabled, timeout=10000)
        assert "Still not saved" in banner.label.text() and banner.pending
        locker.release()
        banner.retry()
        qtbot.waitUntil(banner.isHidden, timeout=10000)
    finally:
        locker.stop()
    assert saved == [sid] and banner.pending == []
    stored = sessions.load_active_branch(sid).messages
    assert [m.text for m in stored] == ["q", ANSWER]
    db.close()


def test_the_chat_pane_shows_a_failed_save(qtbot: Any, qt_loop: qasync.QEventLoop,
                                           open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    sid = ctx.sessions.create_session("chat").id
    event = SaveFailed(sid, "disk I/O error", [Message.user("q"), answer_message("a")])
    window.controller._on_event(event)
    banner = window.chat_pane.save_banner
    assert banner.isVisibleTo(window) and banner.pending == [event]
    assert "disk I/O error" in banner.label.text()
    banner.retry()
    qtbot.waitUntil(lambda: not banner.isVisibleTo(window), timeout=10000)
    assert [m.text for m in ctx.sessions.load_active_branch(sid).messages] == ["q", "a"]
