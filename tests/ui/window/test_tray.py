"""The tray menu (New chat, Quick ask, Show/Hide, Quit) and "Keep running in the tray".

Offscreen there is no system tray, so the icon is not made; the menu and its actions
are the same objects a tray would show, and are what these tests trigger."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync

from desktop.app import AppContext
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window, send


def menu_texts(window: MainWindow) -> list[str]:
    window.tray.menu.aboutToShow.emit()  # what the menu does before it opens
    return [a.text().replace("&", "") for a in window.tray.menu.actions() if a.text()]


def recorded_quits(window: MainWindow) -> list[bool]:
    quits: list[bool] = []
    window.tray.quit_app = lambda: quits.append(True)
    return quits


def test_the_tray_menu_offers_the_four_actions(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    window = make_window(qtbot, open_ctx())
    assert menu_texts(window) == ["New chat", "Quick ask…", "Hide window", "Quit"]
    assert window.tray.menu.accessibleName()


def test_new_chat_from_the_tray_shows_an_empty_chat_in_front(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    fake_server.enqueue_text("An answer.")
    send(qtbot, window, "First question")
    assert window.controller.session_id is not None
    window.hide()
    window.tray.new_chat_action.trigger()
    assert window.isVisible()
    assert window.controller.session_id is None
    assert window.controller.history == []


def test_show_hide_toggles_the_window(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    window = make_window(qtbot, open_ctx())
    qtbot.waitExposed(window)
    window.tray.show_action.trigger()
    assert not window.isVisible()
    assert menu_texts(window)[2] == "Show window"
    window.tray.show_action.trigger()
    assert window.isVisible()
    assert menu_texts(window)[2] == "Hide window"


def test_quit_from_the_tray_closes_the_window_and_quits(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    window = make_window(qtbot, open_ctx())
    quits = recorded_quits(window)
    window.tray.quit_action.trigger()
    assert not window.isVisible()
    assert quits == [True]


def test_closing_keeps_the_app_in_the_tray_when_asked_and_quit_still_quits(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    quits = recorded_quits(window)
    window.tray.available = lambda: True  # type: ignore[method-assign]  # (no tray offscreen)
    assert window.close()  # the setting is off: closing closes
    window.show()
    ctx.settings.update(keep_in_tray=True)
    assert not window.close()  # hidden instead
    assert not window.isVisible()
    assert quits == []
    window.tray.show_action.trigger()
    assert window.isVisible()
    window.tray.quit_action.trigger()  # Quit is not kept in the tray
    assert not window.isVisible()
    assert quits == [True]


def test_without_a_tray_closing_never_hides(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    ctx.settings.update(keep_in_tray=True)
    window = make_window(qtbot, ctx)
    assert window.tray.icon is None  # offscreen: no system tray
    assert window.close()  # no way back from a hidden window: it closes


def test_an_answer_finishing_while_the_window_is_in_the_tray_is_notified(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    fake_server.enqueue_text("Here is the **summary** you asked for.")
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        assert window.controller.send("Summarize")
        window.tray.show_action.trigger()  # hidden in the tray while it answers
    assert not window.isVisible()
    title, text = window.notifier.sent[-1]
    assert title == "Answer ready"
    assert text.endswith(": Here is the summary you asked for.")  # shown text, not markdown


def test_quick_ask_and_quit_are_in_the_file_menu_with_keys(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    window = make_window(qtbot, open_ctx())
    file_menu = window.menuBar().actions()[0].menu()
    actions = {a.text().replace("&", ""): a for a in file_menu.actions() if a.text()}
    quick = actions["Quick ask…"]
    assert quick.shortcut().toString() == "Ctrl+Shift+Space"
    quick.trigger()
    assert window.quick.quick_window is not None and window.quick.quick_window.isVisible()
    assert window.quick.quick_window.input.hasFocus() or \
        window.quick.quick_window.focusWidget() is window.quick.quick_window.input
    quits = recorded_quits(window)
    actions["Quit"].trigger()
    assert quits == [True] and not window.isVisible()
