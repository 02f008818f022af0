"""Preferences → Desktop: the quick-ask shortcut is edited with a key-sequence editor,
applies at once and shows what the desktop said (registered, taken, not available)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import Qt

from desktop.app import AppContext
from desktop.ui import theme
from desktop.ui.dialogs.settings_dialog import SettingsDialog
from desktop.ui.quick.global_shortcut import GlobalShortcut
from tests.support.xvfb import xserver, xvfb  # noqa: F401 (fixtures)
from tests.ui.conversation_helpers import make_window

CTRL_ALT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier


def open_desktop_tab(qtbot: Any, window: Any) -> SettingsDialog:
    dialog = window.dialogs.open("preferences")
    assert isinstance(dialog, SettingsDialog)
    qtbot.addWidget(dialog)
    dialog.pages.setCurrentWidget(dialog.desktop_tab)
    return dialog


def test_the_shortcut_editor_applies_at_once_and_shows_the_status(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    xvfb: str,  # noqa: F811
) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    shortcut = GlobalShortcut(window.quick, platform="xcb", display=xvfb)
    window.quick.use_shortcut(shortcut)
    other_program = GlobalShortcut(platform="xcb", display=xvfb)
    try:
        assert other_program.set_shortcut("Ctrl+Alt+J") == "registered"
        dialog = open_desktop_tab(qtbot, window)
        tab = dialog.desktop_tab
        assert tab.shortcut_text() == "Ctrl+Shift+Space"  # the default
        assert tab.shortcut_status.text() == \
            "Registered: Ctrl+Shift+Space opens quick ask from any application."

        tab.shortcut_edit.setFocus()
        qtbot.keyClick(tab.shortcut_edit, Qt.Key.Key_K, CTRL_ALT)
        qtbot.waitUntil(lambda: ctx.settings.current.quick_shortcut == "Ctrl+Alt+K",
                        timeout=5000)  # saved without pressing Save
        assert shortcut.status == "registered"
        assert "Ctrl+Alt+K opens quick ask" in tab.shortcut_status.text()

        tab.shortcut_edit.clear()
        qtbot.keyClick(tab.shortcut_edit, Qt.Key.Key_J, CTRL_ALT)
        qtbot.waitUntil(lambda: shortcut.status == "taken", timeout=5000)
        assert tab.shortcut_status.text() == \
            "Ctrl+Alt+J is taken by another program: choose another combination."
        assert theme.colors()["error"] in tab.shortcut_status.styleSheet()  # said as an error
        assert tab.announcer.said[-1] == tab.shortcut_status.text()  # and to a screen reader

        tab.shortcut_edit.clear()  # the clear button: no shortcut at all
        qtbot.waitUntil(lambda: ctx.settings.current.quick_shortcut == "", timeout=5000)
        assert shortcut.status == "off"
        assert tab.shortcut_status.styleSheet() == ""  # a hint again
        assert "assista quick" in tab.shortcut_status.text()
        assert tab.shortcut_edit.accessibleName() == "Quick ask shortcut"
        assert dialog.save() and ctx.settings.current.quick_shortcut == ""
    finally:
        other_program.close()
        window.quick.close()


def test_where_the_desktop_has_no_global_shortcuts_it_says_to_bind_assista_quick(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    window = make_window(qtbot, open_ctx())  # offscreen: no global shortcuts at all
    assert window.quick.shortcut.status == "unavailable"
    dialog = open_desktop_tab(qtbot, window)
    text = dialog.desktop_tab.shortcut_status.text()
    assert text.startswith("Not available on this desktop")
    assert "assista quick --selection" in text
