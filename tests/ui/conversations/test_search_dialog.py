"""Ctrl+K search: type-ahead in a worker thread, non-Latin text, opening a hit on its
branch and scrolled to it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import Any

import qasync
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from desktop.app import AppContext
from desktop.ui.conversations.search_dialog import SearchDialog
from desktop.ui.conversations.search_hits import snippet_html, when_text
from desktop.ui.window.main_window import MainWindow
from tests.ui.conversation_helpers import make_chat, make_window, text_message


def search(qtbot: Any, dialog: SearchDialog, text: str) -> None:
    with qtbot.waitSignal(dialog.searchFinished, timeout=5000):
        dialog.query.setText(text)  # non-ASCII: QTest cannot type it key by key


def test_snippet_html_and_dates() -> None:
    assert snippet_html("a <b> 東京タワー", ((6, 8),), "#ff0") == (
        'a &lt;b&gt; <b style="background-color:#ff0">東京</b>タワー')
    now = datetime(2024, 5, 10, 12, 0)
    # (as the locale writes them: the tests run in English, en_US)
    assert when_text(datetime(2024, 5, 10, 9, 5).timestamp(), now) == "9:05\u202fAM"
    assert when_text(datetime(2024, 3, 2, 9, 5).timestamp(), now) == "2 Mar"
    assert when_text(datetime(2021, 3, 2, 9, 5).timestamp(), now) == "3/2/21"


def build(ctx: AppContext) -> dict[str, str]:
    ids = {
        "ru": make_chat(ctx, "Поездка", "Где купить билеты на поезд?",
                        "Билеты продаются на вокзале и в приложении."),
        "ja": make_chat(ctx, "Tokyo", "東京タワーの高さは？", "東京タワーは333メートルです。"),
    }
    # A chat with two answers to one question; the first one is the active branch
    animals = make_chat(ctx, "Animals", "Name a striped animal")
    first = text_message("assistant", "A tiger has stripes.")
    ctx.sessions.save_message(animals, first)
    ctx.sessions.start_branch(animals, first.id)
    second = text_message("assistant", "A zebra has stripes too.")
    ctx.sessions.save_message(animals, second)
    ctx.sessions.switch_branch(animals, first.id)
    ids.update(animals=animals, tiger=first.id, zebra=second.id)
    # A long chat with the word in the middle
    texts = [f"filler message number {i} " + "lorem ipsum dolor sit amet " * 8
             for i in range(60)]
    texts[21] = "the quokka is a small marsupial"
    ids["long"] = make_chat(ctx, "Long chat", *texts)
    return ids


def open_dialog(qtbot: Any, window: MainWindow) -> SearchDialog:
    action = window.conversations.search_action
    assert action.shortcut().toString() == "Ctrl+K"
    action.trigger()
    dialog = window.conversations.search
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible)
    return dialog


def test_search_finds_cyrillic_and_cjk_and_opens_the_chat(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    ids = build(ctx)
    window = make_window(qtbot, ctx)
    dialog = open_dialog(qtbot, window)

    search(qtbot, dialog, "билеты")
    assert isinstance(dialog._task, asyncio.Future)  # ran on the loop, in a worker thread
    hits = dialog.hits()
    assert {h.session_id for h in hits} == {ids["ru"]}
    assert {h.role for h in hits} == {"user", "assistant"}
    for hit in hits:
        (start, end), *_ = hit.highlights
        assert hit.snippet[start:end].lower() == "билеты"
    assert dialog.status.text().startswith("2 matches")

    # Arrow keys move through the results from the search box
    assert dialog.results.currentRow() == 0
    qtbot.keyClick(dialog.query, Qt.Key.Key_Down)
    assert dialog.results.currentRow() == 1
    qtbot.keyClick(dialog.query, Qt.Key.Key_Up)
    assert dialog.results.currentRow() == 0

    # Two CJK characters (no word boundaries, shorter than a trigram)
    search(qtbot, dialog, "東京")
    assert {h.session_id for h in dialog.hits()} == {ids["ja"]}
    search(qtbot, dialog, "タワー")
    hit = dialog.hits()[0]
    assert hit.session_id == ids["ja"]
    start, end = hit.highlights[0]
    assert hit.snippet[start:end] == "タワー"

    # Enter opens the chat of the selected hit and closes the dialog
    qtbot.keyClick(dialog.query, Qt.Key.Key_Return)
    assert not dialog.isVisible()
    assert window.controller.session_id == ids["ja"]
    assert window.sessions.current_id() == ids["ja"]

    # Nothing found
    dialog = open_dialog(qtbot, window)
    assert dialog.query.selectedText() == "タワー"  # the last query, ready to be replaced
    search(qtbot, dialog, "nonexistentword")
    assert dialog.hits() == [] and dialog.status.text() == "No matches."
    search(qtbot, dialog, "")
    assert dialog.hits() == []


def test_hit_on_another_branch_opens_that_branch(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    ids = build(ctx)
    window = make_window(qtbot, ctx)
    window.resize(1100, 700)
    dialog = open_dialog(qtbot, window)
    search(qtbot, dialog, "zebra")
    hits = dialog.hits()
    assert [h.message_id for h in hits] == [ids["zebra"]]
    dialog.results.itemDoubleClicked.emit(dialog.results.item(0))
    assert window.controller.session_id == ids["animals"]
    assert [m.text for m in window.controller.history] == [
        "Name a striped animal", "A zebra has stripes too."]
    assert window.chat.widget_for(ids["zebra"]) is not None
    # The switch is remembered: reopening shows the same branch
    assert [m.id for m in ctx.sessions.load_messages(ids["animals"])][-1] == ids["zebra"]


def test_hit_in_a_long_chat_scrolls_to_the_message(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    ids = build(ctx)
    window = make_window(qtbot, ctx)
    window.resize(1100, 700)
    dialog = open_dialog(qtbot, window)
    search(qtbot, dialog, "quokka")
    (hit,) = dialog.hits()
    assert hit.session_id == ids["long"] and hit.role == "assistant"
    qtbot.keyClick(dialog.query, Qt.Key.Key_Return)
    assert window.controller.session_id == ids["long"]
    bar = window.chat.verticalScrollBar()
    qtbot.waitUntil(lambda: not window.chat.is_following())
    assert 0 < bar.value() < bar.maximum()
    widget = window.chat.widget_for(hit.message_id or "")
    assert widget is not None and widget.isVisible()


def test_enter_before_results_opens_the_first_hit(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    ids = build(ctx)
    window = make_window(qtbot, ctx)
    dialog = open_dialog(qtbot, window)
    dialog.query.setText("вокзале")
    assert dialog.timer.isActive()  # debounced
    with qtbot.waitSignal(dialog.hitChosen, timeout=5000) as chosen:
        qtbot.keyClick(dialog.query, Qt.Key.Key_Return)
    assert chosen.args[0] == ids["ru"]
    qtbot.waitUntil(lambda: window.controller.session_id == ids["ru"])


def test_keys_typed_right_after_ctrl_k_all_land_in_the_search_box(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    """A person presses Ctrl+K and types at once: the keys are on their way to the chat
    window (where the keyboard focus still is) before the search has been shown, and
    each one must end in the search box, in order, none in the composer."""
    ctx = open_ctx()
    build(ctx)
    window = make_window(qtbot, ctx)
    qtbot.waitUntil(window.isActiveWindow)
    window.composer.input.setFocus()
    handle = window.windowHandle()
    QTest.keyClick(handle, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    for letter in "zebra":  # (to the chat window, as the X server sends them)
        QTest.keyClick(handle, getattr(Qt.Key, f"Key_{letter.upper()}"))
    search = window.conversations.search
    assert search is not None
    qtbot.waitUntil(search.isVisible)
    assert search.query.text() == "zebra"
    assert window.composer.input.toPlainText() == ""
    with qtbot.waitSignal(search.searchFinished, timeout=5000) as finished:
        pass
    assert finished.args == [1]


def test_the_search_opens_inside_the_window_and_closes_as_a_dialog_does(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    build(ctx)
    window = make_window(qtbot, ctx)
    window.resize(800, 600)
    qtbot.waitUntil(window.isActiveWindow)
    window.composer.input.setFocus()
    search = open_dialog(qtbot, window)
    # Over the window's content, in the window: no window of its own to hand the focus to
    assert not search.isWindow() and search.window() is window
    assert QApplication.focusWidget() is search.query
    card = search.card.geometry()
    assert search.rect().contains(card) and card.width() <= 720 and card.height() <= 520
    # Tab stays in the search
    qtbot.keyClick(search.query, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is search.results
    qtbot.keyClick(search.results, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is search.query
    # Esc closes it; the focus is back where it was
    qtbot.keyClick(search.query, Qt.Key.Key_Escape)
    assert not search.isVisible()
    assert QApplication.focusWidget() is window.composer.input
    # A click beside the card closes it too, and so does one on the menu bar (its
    # commands are for the window)
    open_dialog(qtbot, window)
    qtbot.mouseClick(search, Qt.MouseButton.LeftButton, pos=QPoint(4, search.height() - 4))
    assert not search.isVisible()
    open_dialog(qtbot, window)
    qtbot.mousePress(window.menuBar(), Qt.MouseButton.LeftButton, pos=QPoint(2, 2))
    assert not search.isVisible()
    QTest.keyClick(window.menuBar(), Qt.Key.Key_Escape)  # (the menu it opened)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None)


def test_while_the_search_is_open_the_window_waits_as_under_a_modal_dialog(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    ids = build(ctx)
    window = make_window(qtbot, ctx)
    qtbot.waitUntil(window.isActiveWindow)
    window.controller.open_session(ids["ru"])
    window.composer.input.setFocus()
    search = open_dialog(qtbot, window)
    handle = window.windowHandle()
    QTest.keyClick(handle, Qt.Key.Key_Z)
    # The window's shortcuts wait (Ctrl+N would start a chat under the search)
    QTest.keyClick(handle, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert window.controller.session_id == ids["ru"] and search.isVisible()
    # Something in the window asks for the focus (an answer done: the composer): the
    # keys typed go on into the search box, and the focus goes there once it closes
    window.composer.input.setFocus()
    assert QApplication.focusWidget() is search.query
    QTest.keyClick(handle, Qt.Key.Key_E)
    assert search.query.text() == "ze" and window.composer.input.toPlainText() == ""
    QTest.keyClick(handle, Qt.Key.Key_Escape)
    assert not search.isVisible()
    assert QApplication.focusWidget() is window.composer.input
    # Ctrl+K works from anywhere, the search open or not
    QTest.keyClick(handle, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert search.isVisible() and search.query.selectedText() == "ze"
