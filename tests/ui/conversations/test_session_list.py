"""The chat list: pinned then grouped by day; pin, archive, duplicate, trash with undo,
restore and delete forever; F2 / Del / Enter."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QListWidgetItem, QMessageBox

from desktop.app import AppContext
from desktop.core.messages import Message
from desktop.core.records import SessionInfo
from desktop.ui.conversations.session_items import date_group, grouped
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_chat, make_window, trigger_menu


def open_editor(lst: Any) -> QLineEdit:
    editors: list[QLineEdit] = [e for e in lst.findChildren(QLineEdit) if e.isVisible()]
    assert len(editors) == 1
    return editors[0]


def row(window: Any, session_id: str) -> QListWidgetItem:
    item: QListWidgetItem | None = window.sessions.item_for(session_id)
    assert item is not None
    return item


def titles(window: Any) -> list[str]:
    return [item.text() for item in window.sessions.items()]


def test_date_groups_follow_calendar_days() -> None:
    now = datetime(2024, 5, 10, 0, 30)
    day = 86400
    base = now.timestamp()
    assert date_group(base - 60, now) == "Today"  # 00:29 the same day
    assert date_group(base - 3600, now) == "Yesterday"  # 23:30 the day before
    assert date_group(base - 3 * day, now) == "Previous 7 days"
    assert date_group(base - 30 * day, now) == "Older"
    sessions = [
        SessionInfo(id="a", title="A", created_at=0, updated_at=base - 40 * day),
        SessionInfo(id="b", title="B", created_at=0, updated_at=base - 100, pinned=True),
        SessionInfo(id="c", title="C", created_at=0, updated_at=base - 10),
    ]
    assert [(g, s.id) for g, s in grouped(sessions, "chats", now)] == [
        ("Pinned", "b"), ("Today", "c"), ("Older", "a")]
    # Archived and trash views do not pin
    assert [g for g, _ in grouped(sessions, "archived", now)] == ["Today", "Today", "Older"]


def days_since_yesterday_noon() -> float:
    """How long ago yesterday's noon was, in days (0.5-1.5): "yesterday" at any hour the
    test runs (1.05 days ago is the day before yesterday in the first hour after
    midnight)."""
    midnight = datetime.now().replace(hour=0, minute=0, second=0, microsecond=0)
    return (datetime.now() - (midnight - timedelta(hours=12))).total_seconds() / 86400


def test_pinned_first_then_grouped_by_recency(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    old = make_chat(ctx, "Old notes", "hello", age_days=40)
    make_chat(ctx, "Yesterday's bug", "bug", age_days=days_since_yesterday_noon())
    make_chat(ctx, "Week plan", "plan", age_days=3)
    today = make_chat(ctx, "Fresh idea", "idea")
    window = make_window(qtbot, ctx)
    # Headers are drawn inside the first row of each group: the list holds only chats
    assert window.sessions.list.count() == 4
    assert titles(window) == ["Fresh idea", "Yesterday's bug", "Week plan", "Old notes"]
    assert window.sessions.headers() == ["Today", "Yesterday", "Previous 7 days", "Older"]

    trigger_menu(qtbot, window, old, "Pin")
    assert titles(window)[0] == "Old notes"
    assert window.sessions.headers()[0] == "Pinned"
    assert ctx.sessions.get_session(old).pinned  # type: ignore[union-attr]
    trigger_menu(qtbot, window, old, "Unpin")
    assert titles(window)[-1] == "Old notes"

    trigger_menu(qtbot, window, today, "Duplicate")
    assert titles(window)[:2] == ["Fresh idea (copy)", "Fresh idea"]


def test_archive_and_unarchive(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    keep = make_chat(ctx, "Keep", "a")
    shelve = make_chat(ctx, "Shelve me", "b")
    window = make_window(qtbot, ctx)
    trigger_menu(qtbot, window, shelve, "Archive")
    assert titles(window) == ["Keep"]
    window.sessions.view_buttons["archived"].click()
    assert window.sessions.view == "archived"
    assert titles(window) == ["Shelve me"]
    # An archived chat still opens
    window.sessions.list.itemClicked.emit(window.sessions.item_for(shelve))
    assert window.controller.session_id == shelve
    trigger_menu(qtbot, window, shelve, "Unarchive")
    assert titles(window) == []
    assert window.sessions.empty_label.isVisible()
    window.sessions.set_view("chats")
    assert set(titles(window)) == {"Keep", "Shelve me"}
    assert window.sessions.item_for(keep) is not None


def test_delete_moves_to_trash_with_undo_then_restore_and_purge(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    first = make_chat(ctx, "First", "one")
    second = make_chat(ctx, "Second", "two")
    window = make_window(qtbot, ctx)
    sessions = window.sessions
    window.controller.open_session(second)
    assert window.controller.session_id == second

    # Del on the open chat: to the trash, the window leaves it, Undo offered
    sessions.list.setCurrentItem(row(window, second))
    sessions.list.setFocus()
    qtbot.keyClick(sessions.list, Qt.Key.Key_Delete)
    assert titles(window) == ["First"]
    assert window.controller.session_id is None
    assert ctx.sessions.get_session(second) is None
    assert [s.id for s in ctx.sessions.list_deleted()] == [second]
    assert sessions.undo_bar.isVisible()
    assert "Second" in sessions.undo_bar.label.text()
    assert sessions.undo_bar.timer.isActive()
    assert sessions.undo_bar.timer.interval() == 10_000

    # Undo brings it back and re-opens it
    qtbot.mouseClick(sessions.undo_bar.undo_button, Qt.MouseButton.LeftButton)
    assert not sessions.undo_bar.isVisible()
    assert set(titles(window)) == {"First", "Second"}
    assert window.controller.session_id == second
    assert ctx.sessions.list_deleted() == []

    # Delete both from the menu; the undo bar counts them; let it expire
    trigger_menu(qtbot, window, first, "Delete")
    trigger_menu(qtbot, window, second, "Delete")
    assert "2 chats" in sessions.undo_bar.label.text()
    sessions.undo_bar.timer.timeout.emit()
    assert not sessions.undo_bar.isVisible()
    assert titles(window) == []

    # Trash view: restore one, delete the other forever (after confirming)
    sessions.set_view("trash")
    assert set(titles(window)) == {"First", "Second"}
    assert sessions.trash_row.isVisible()
    assert "30 days" in sessions.trash_hint.text()
    trigger_menu(qtbot, window, first, "Restore")
    assert titles(window) == ["Second"]
    trigger_menu(qtbot, window, second, "Delete forever…")
    box = sessions.confirm_box
    assert isinstance(box, QMessageBox) and box.isVisible()
    destructive = next(b for b in box.buttons()
                       if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole)
    qtbot.mouseClick(destructive, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: titles(window) == [])
    assert ctx.sessions.get_session(second, include_deleted=True) is None
    sessions.set_view("chats")
    assert titles(window) == ["First"]


def test_empty_trash_cancel_keeps_chats(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    gone = make_chat(ctx, "Gone", "x")
    ctx.sessions.delete_session(gone)
    window = make_window(qtbot, ctx)
    sessions = window.sessions
    sessions.set_view("trash")
    qtbot.mouseClick(sessions.empty_trash_button, Qt.MouseButton.LeftButton)
    sessions.confirm_box.reject()
    assert titles(window) == ["Gone"]
    qtbot.mouseClick(sessions.empty_trash_button, Qt.MouseButton.LeftButton)
    box = sessions.confirm_box
    destructive = next(b for b in box.buttons()
                       if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole)
    qtbot.mouseClick(destructive, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: titles(window) == [])
    assert ctx.sessions.list_deleted() == []
    assert not sessions.empty_trash_button.isEnabled()


def test_keyboard_rename_and_open(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    chat = make_chat(ctx, "Draft title", "hi", "hello")
    make_chat(ctx, "Other", "x", age_days=2)
    window = make_window(qtbot, ctx)
    lst = window.sessions.list
    lst.setFocus()
    lst.setCurrentItem(row(window, chat))
    qtbot.keyClick(lst, Qt.Key.Key_F2)
    editor = open_editor(lst)
    editor.setText("Планы на неделю")  # QTest cannot type non-ASCII keys
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: ctx.sessions.get_session(chat).title  # type: ignore[union-attr]
                    == "Планы на неделю")
    assert titles(window)[0] == "Планы на неделю"

    # An empty title is refused: the old one comes back
    lst.setCurrentItem(row(window, chat))
    qtbot.keyClick(lst, Qt.Key.Key_F2)
    editor = open_editor(lst)
    editor.clear()
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: lst.state() != lst.State.EditingState)  # closes queued
    assert window.sessions.item_for(chat).text() == "Планы на неделю"  # type: ignore[union-attr]
    assert ctx.sessions.get_session(chat).title == "Планы на неделю"  # type: ignore[union-attr]

    lst.setCurrentItem(row(window, chat))
    qtbot.keyClick(lst, Qt.Key.Key_Return)
    assert window.controller.session_id == chat
    assert [m.text for m in window.controller.history] == ["hi", "hello"]


def test_a_clicked_chat_keeps_the_focus_for_del_and_hands_typing_to_the_composer(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    make_chat(ctx, "First", "one")
    second = make_chat(ctx, "Second", "two")
    window = make_window(qtbot, ctx)
    window.resize(1400, 900)
    window.activateWindow()  # focus is only tracked in the active window
    qtbot.waitUntil(window.isActiveWindow)
    sessions = window.sessions
    item = row(window, second)
    sessions.list.setFocus()
    rect = sessions.list.visualItemRect(item)
    qtbot.mouseClick(sessions.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: window.controller.session_id == second)
    assert sessions.list.hasFocus()

    # Typing a letter writes in the composer instead of searching the list
    qtbot.keyClicks(sessions.list, "H")
    assert window.composer.input.toPlainText() == "H"
    assert window.composer.input.hasFocus()

    # Back in the list, Del moves the clicked chat to the trash
    window.composer.input.clear()
    sessions.list.setFocus()
    qtbot.keyClick(sessions.list, Qt.Key.Key_Delete)
    assert titles(window) == ["First"]
    assert [s.id for s in ctx.sessions.list_deleted()] == [second]


def test_thousands_of_chats_are_listed_a_page_at_a_time(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    from desktop.ui.conversations.session_list import FIRST_PAGE, PAGE

    ctx = open_ctx()
    total = FIRST_PAGE + PAGE + PAGE // 2
    with ctx.db.transaction() as conn:  # (chats made in one go: the first page and 1.5 more)
        conn.executemany(
            "INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
            [(f"id-{n:04}", f"Chat {n}", n, n) for n in range(total)])
    window = make_window(qtbot, ctx)
    lst = window.sessions
    # the first page: more than a tall window shows, fewer than a page (listed twice
    # before a question typed at start is sent)
    assert len(lst.items()) == FIRST_PAGE < PAGE and lst.more  # the newest first
    assert lst.items()[0].text() == f"Chat {total - 1}"
    bar = lst.list.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    assert len(lst.items()) == FIRST_PAGE  # (a list that scrolls waits to be scrolled)
    bar.setValue(bar.maximum())  # scrolled to the end: the next page comes
    qtbot.waitUntil(lambda: len(lst.items()) == FIRST_PAGE + PAGE)
    assert bar.value() < bar.maximum()  # (where the user was, with more below)
    bar.setValue(bar.maximum())
    qtbot.waitUntil(lambda: len(lst.items()) == total)
    assert not lst.more and lst.items()[-1].text() == "Chat 0"
    # A new message moves its chat to the top; the list keeps what was shown
    ctx.sessions.save_message("id-0000", Message.user("back to this one"))
    window.refresh_sessions()
    assert lst.items()[0].text() == "Chat 0" and len(lst.items()) == total


def test_a_list_too_tall_to_scroll_lists_the_next_page_at_once(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    """The next page comes when the list is scrolled to its end; a list that shows
    its whole first page (a very tall window) has nothing to scroll."""
    from desktop.ui.conversations.session_list import FIRST_PAGE, PAGE

    ctx = open_ctx()
    total = FIRST_PAGE + 10
    with ctx.db.transaction() as conn:
        conn.executemany(
            "INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
            [(f"id-{n:04}", f"Chat {n}", n, n) for n in range(total)])
    window = make_window(qtbot, ctx)
    lst = window.sessions
    rows = lst.list.sizeHintForRow(1) * (FIRST_PAGE + PAGE) * 2
    window.resize(window.width(), rows)
    lst.list.setMinimumHeight(rows)  # (taller than any screen: offscreen allows it)
    qtbot.waitUntil(lambda: len(lst.items()) == total)
    assert not lst.more and lst.items()[-1].text() == "Chat 0"


def test_a_message_in_a_new_chat_lists_the_chats_once(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    make_chat(ctx, "Earlier", "hello")
    window = make_window(qtbot, ctx)
    listings: list[int] = []
    window.sessions.list.model().modelAboutToBeReset.connect(lambda: listings.append(1))
    box = window.composer.input
    box.setFocus()
    qtbot.keyClicks(box, "A new question")
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        qtbot.keyClick(box, Qt.Key.Key_Return)  # (the turn starts in here)
        # made, opened, its message: listed once, the new chat on top and the open one
        assert len(listings) == 1
        assert titles(window) == ["A new question", "Earlier"]
        assert window.sessions.current_id() == window.controller.session_id is not None
