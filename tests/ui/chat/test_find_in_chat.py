"""Ctrl+F finds words in the open chat, blocks not built yet included: "n of m",
Enter / Shift+Enter, every match marked and the current one scrolled into view, Esc
closes; a Ctrl+K hit opens its chat at the message with the words marked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import QPoint, Qt

from desktop.app import AppContext
from desktop.ui.chat.chat_find import count_in
from desktop.ui.conversations.search_dialog import SearchDialog
from desktop.ui.markdown.find_marks import match_top
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_chat, make_window, send

FILLER = "lorem ipsum dolor sit amet " * 12


def long_chat(ctx: AppContext) -> str:
    texts = [f"message {i}: {FILLER}" for i in range(80)]
    texts[3] = "the **Quokka** is a small marsupial, and a quokka smiles"
    texts[40] = "Where do quokkas live? On [Rottnest](https://example.com/rottnest)."
    texts[77] = "# Last\n\nA `quokka` again."
    return make_chat(ctx, "Long chat", *texts)


def current_match_on_screen(window: MainWindow) -> bool:
    """The current match's line is inside the chat's viewport."""
    chat = window.chat
    for item in chat.items():
        widget = item.widget
        if widget is None:
            continue
        for body in chat.finder.bodies(widget):
            found = body.found
            if found.current >= 0:
                y = body.mapTo(chat.viewport(), QPoint(0, match_top(body, found.current))).y()
                return 0 <= y < chat.viewport().height()
    return False


def test_ctrl_f_finds_in_a_long_chat_built_lazily(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    chat_id = long_chat(ctx)
    window = make_window(qtbot, ctx)
    window.resize(1100, 700)
    window.controller.open_session(chat_id)
    chat, bar = window.chat, window.chat_pane.find_bar
    assert chat.items()[3].widget is None  # far above the end: not built
    assert not bar.isVisible()
    window.conversations.find_action.trigger()  # Ctrl+F
    assert window.conversations.find_action.shortcut().toString() == "Ctrl+F"
    assert bar.isVisible() and window.focusWidget() is bar.field
    qtbot.keyClicks(bar.field, "quokka")
    # from where the chat is read (its end): the last message's match
    assert bar.count.text() == "4 of 4"
    last = chat.items()[77].widget
    assert last is not None and last.body.found.current == 0 and current_match_on_screen(window)
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)
    assert bar.count.text() == "1 of 4"  # round the end, to the top of the chat
    first = chat.items()[3].widget
    assert first is not None and first.isVisible()
    assert [(m[1], m[2]) for m in first.body.found.matches] == [(4, 10), (39, 45)]
    assert first.body.found.current == 0 and last.body.found.current == -1
    assert current_match_on_screen(window)
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)
    assert bar.count.text() == "2 of 4" and first.body.found.current == 1
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)
    assert bar.count.text() == "3 of 4"
    middle = chat.items()[40].widget
    assert middle is not None and middle.body.found.current == 0
    assert current_match_on_screen(window)
    qtbot.keyClick(bar.field, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert bar.count.text() == "2 of 4" and current_match_on_screen(window)
    qtbot.keyClick(bar.field, Qt.Key.Key_Up)
    assert bar.count.text() == "1 of 4"
    qtbot.keyClick(bar.field, Qt.Key.Key_Up)
    assert bar.count.text() == "4 of 4" and current_match_on_screen(window)  # round the top
    bar.field.setText("rottnest")  # the link's text, not its address
    assert bar.count.text() == "1 of 1"
    bar.field.setText("nothing like this")
    assert bar.count.text() == "No matches"
    bar.field.setText("quokka")
    # another chat: its matches are counted, the first one a key away
    other = make_chat(ctx, "Other", "one quokka", "two quokkas")
    window.controller.open_session(other)
    assert bar.count.text().startswith("2 match")  # ("2 matches" in English)
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)
    assert bar.count.text() == "1 of 2"
    qtbot.keyClick(bar.field, Qt.Key.Key_Escape)
    assert not bar.isVisible()
    assert all(not body.found.matches for item in chat.items() if item.widget is not None
               for body in chat.finder.bodies(item.widget))


def test_a_search_hit_opens_at_the_message_with_its_words_marked(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    chat_id = long_chat(ctx)
    make_chat(ctx, "Other", "nothing to see")
    window = make_window(qtbot, ctx)
    window.resize(1100, 700)
    window.conversations.search_action.trigger()
    dialog = window.conversations.search
    assert isinstance(dialog, SearchDialog)
    with qtbot.waitSignal(dialog.searchFinished, timeout=5000):
        dialog.query.setText("rottnest")
    [hit] = dialog.hits()
    assert hit.snippet.startswith("Where do quokkas live? On Rottnest.")  # plain text
    qtbot.keyClick(dialog.query, Qt.Key.Key_Return)
    assert window.controller.session_id == chat_id
    chat = window.chat
    qtbot.waitUntil(lambda: chat.items()[40].widget is not None
                    and bool(chat.items()[40].widget.body.found.matches))
    widget = chat.items()[40].widget
    assert widget is not None
    (segment, start, end), = widget.body.found.matches
    assert widget.body.segment(segment).plain_text(start, end) == "Rottnest"
    assert widget.body.found.current == 0
    assert current_match_on_screen(window)
    assert not window.chat_pane.find_bar.isVisible()
    # the chat shown again: the marks were for the hit that opened it
    window.controller.open_session(chat_id)
    widget = chat.show_at(40, 0)
    assert "Rottnest" in widget.body.toPlainText() and not widget.body.found.matches


def test_counting_matches_like_the_marks() -> None:
    assert count_in("aaaa", ["aa"]) == 2  # not overlapping
    assert count_in("quokka and quokkas", ["quokka", "okk"]) == 2
    assert count_in("", ["x"]) == 0


def test_the_count_follows_new_messages_and_answers(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    fake_server.enqueue_text("A wombat is not a quokka.")
    send(qtbot, window, "tell me about the wombat")
    window.conversations.find_action.trigger()
    bar = window.chat_pane.find_bar
    bar.field.setText("wombat")
    assert bar.count.text() == "1 of 2"
    fake_server.enqueue_text("Wombats dig; a wombat sleeps.")
    send(qtbot, window, "and where does it sleep?")
    assert bar.count.text() == "1 of 4"


def test_a_count_guessed_from_markdown_is_corrected_when_the_block_is_built(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    texts = [f"message {i}: {FILLER}" for i in range(80)]
    texts[5] = "Tom &amp; Jerry"  # shown as "Tom & Jerry": no "amp" on screen
    texts[78] = "an ample plate"
    chat_id = make_chat(ctx, "Entities", *texts)
    window = make_window(qtbot, ctx)
    window.resize(1100, 700)
    window.controller.open_session(chat_id)
    window.conversations.find_action.trigger()
    bar = window.chat_pane.find_bar
    bar.field.setText("amp")
    assert bar.count.text() == "2 of 2"  # guessed: the far block is not built
    qtbot.keyClick(bar.field, Qt.Key.Key_Return)
    assert bar.count.text() == "1 of 1"  # built, it has none: on to the real one
    assert current_match_on_screen(window)


def test_a_search_hits_marks_go_when_its_chat_is_shown_again(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    chat_id = make_chat(ctx, "Short", "Is Rottnest far?", "Rottnest is 20 km from Perth.")
    window = make_window(qtbot, ctx)
    window.conversations.search_action.trigger()
    dialog = window.conversations.search
    assert dialog is not None
    with qtbot.waitSignal(dialog.searchFinished, timeout=5000):
        dialog.query.setText("perth")
    qtbot.keyClick(dialog.query, Qt.Key.Key_Return)
    chat = window.chat
    qtbot.waitUntil(lambda: any(item.widget is not None and item.widget.body.found.matches
                                for item in chat.items()))
    window.controller.open_session(chat_id)  # shown again, every block built at once
    assert all(item.widget is not None and not item.widget.body.found.matches
               for item in chat.items())
