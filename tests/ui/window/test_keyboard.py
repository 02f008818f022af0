"""Keyboard: window shortcuts work with the focus in the composer, Ctrl+, opens
Preferences, Help → Keyboard shortcuts lists every menu shortcut; the zoom changes
every widget's font."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.exceptions import TimeoutError

from desktop.app import AppContext
from desktop.ui import theme
from desktop.ui.dialogs.shortcuts_dialog import ShortcutsDialog, menu_shortcuts, shortcut_rows
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.window.test_main_window import add_provider, make_window


def _active(qtbot: Any, ctx: AppContext) -> MainWindow:
    window = make_window(qtbot, ctx)
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    return window


def _press(qtbot: Any, widget: QWidget, keys: str) -> None:
    combo = QKeySequence(keys)[0]  # type: ignore[index]  # (missing from the stubs)
    qtbot.keyClick(widget, combo.key(), combo.keyboardModifiers())


def test_shortcuts_work_from_the_composer(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = _active(qtbot, ctx)
    composer = window.composer.input
    composer.setFocus()
    _press(qtbot, composer, "Ctrl+,")
    qtbot.waitUntil(lambda: window.dialogs.current("preferences") is not None)
    assert window.dialogs.current("providers") is None
    preferences = window.dialogs.current("preferences")
    assert preferences is not None
    preferences.reject()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    composer.setFocus()
    _press(qtbot, composer, "Ctrl+Shift+P")
    qtbot.waitUntil(lambda: window.dialogs.current("providers") is not None)


def test_the_shortcut_list_is_read_from_the_menus(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    window = _active(qtbot, open_ctx())
    window.composer.input.setFocus()
    _press(qtbot, window.composer.input, "Ctrl+/")
    qtbot.waitUntil(lambda: window.dialogs.current("shortcuts") is not None)
    dialog = window.dialogs.current("shortcuts")
    assert isinstance(dialog, ShortcutsDialog)
    rows = shortcut_rows(dialog)
    listed = {keys for _where, _what, keys in rows}
    for action in window.menuBar().findChildren(type(window.menuBar().actions()[0])):
        for key in action.shortcuts():
            text = key.toString(QKeySequence.SequenceFormat.NativeText)
            assert any(text in keys for keys in listed), (action.text(), text)
    whats = {what for _where, what, _keys in rows}
    assert {"Preferences", "New chat", "Keyboard shortcuts", "Zoom in"} <= whats
    assert menu_shortcuts(window.menuBar())  # (what the dialog shows, from the actions)


def test_zoom_changes_every_widgets_font(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply_theme(app, "light")  # (as the app does at start: the stylesheet sizes icons)
    window = _active(qtbot, open_ctx())
    widgets = [w for w in window.findChildren(QWidget) if w.isVisibleTo(window)]
    before = {id(w): w.fontInfo().pointSizeF() for w in widgets}
    icon_before = window.composer.attach_button.iconSize().width()
    _press(qtbot, window.composer.input, "Ctrl+=")
    _press(qtbot, window.composer.input, "Ctrl+=")
    try:
        assert theme.zoom() == 2

        def unchanged() -> list[str]:
            return [f"{type(w).__name__}#{w.objectName()}" for w in widgets
                    if w.fontInfo().pointSizeF() <= before[id(w)]]

        # (the application font reaches the widgets through posted events; a widget that
        # sets its own font must follow the zoom itself: theme.notifier().changed)
        with contextlib.suppress(TimeoutError):
            qtbot.waitUntil(lambda: unchanged() == [], timeout=2000)
        assert unchanged() == []
        window.composer.attach_button.ensurePolished()
        assert window.composer.attach_button.iconSize().width() > icon_before
        assert window.menuBar().font().pointSizeF() > min(before.values())
    finally:
        _press(qtbot, window.composer.input, "Ctrl+0")
    assert theme.zoom() == 0
    qtbot.waitUntil(lambda: all(w.fontInfo().pointSizeF() == before[id(w)] for w in widgets))


def test_tab_from_the_chat_list_reaches_the_composer(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    window = _active(qtbot, open_ctx())
    order = window.panels.focus_chain()
    assert order.index(window.sessions.list) < order.index(window.chat) < order.index(
        window.composer.input) < order.index(window.sidebar)
    assert Qt.FocusPolicy.TabFocus & window.chat.focusPolicy()
