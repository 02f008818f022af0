"""The global shortcut on a real X server (Xvfb): the key grab opens the quick-ask
window, also with NumLock on; a combination another program holds is reported as
taken; a new combination from Preferences applies at once."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
import qasync

from desktop.app import AppContext
from desktop.ui.quick.global_shortcut import GlobalShortcut
from tests.support.xvfb import XServer, xserver, xvfb  # noqa: F401 (fixtures)
from tests.ui.conversation_helpers import make_window


def press(display: str, *keys: str) -> None:
    subprocess.run(["xdotool", "key", *keys], check=True, timeout=20,
                   env={**os.environ, "DISPLAY": display})


def test_the_shortcut_opens_quick_ask_from_anywhere(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    xvfb: str,  # noqa: F811
) -> None:
    ctx = open_ctx()
    ctx.settings.update(quick_shortcut="Ctrl+Alt+K")
    window = make_window(qtbot, ctx)
    shortcut = GlobalShortcut(window.quick, platform="xcb", display=xvfb)
    window.quick.use_shortcut(shortcut)
    assert shortcut.status == "registered", shortcut.detail
    assert "Ctrl+Alt+K" in shortcut.message()

    press(xvfb, "ctrl+alt+k")
    qtbot.waitUntil(lambda: window.quick.quick_window is not None
                    and window.quick.quick_window.isVisible(), timeout=10000)
    quick = window.quick.quick_window
    assert quick is not None
    qtbot.addWidget(quick)

    quick.hide()
    press(xvfb, "Num_Lock", "ctrl+alt+k")  # with NumLock on: the same combination
    qtbot.waitUntil(quick.isVisible, timeout=10000)

    # Preferences saves another combination: the old one is let go, the new one held.
    quick.hide()
    ctx.settings.update(quick_shortcut="Ctrl+Shift+F5")
    assert shortcut.status == "registered" and shortcut.combo is not None
    assert shortcut.combo.text() == "Ctrl+Shift+F5"
    with qtbot.waitSignal(shortcut.activated, timeout=10000):
        press(xvfb, "ctrl+shift+F5")
    qtbot.waitUntil(quick.isVisible, timeout=10000)
    window.quick.close()


def test_a_combination_another_program_holds_is_reported_as_taken(
    qtbot: Any, xvfb: str,  # noqa: F811
) -> None:
    holder = GlobalShortcut(platform="xcb", display=xvfb)
    other = GlobalShortcut(platform="xcb", display=xvfb)
    try:
        assert holder.set_shortcut("Ctrl+Alt+Space") == "registered"
        assert other.set_shortcut("Ctrl+Alt+Space") == "taken"
        assert "taken by another program" in other.message()
        assert "Ctrl+Alt+Space" in other.message()
        # nothing half-grabbed stays behind: once the holder lets go it can be had
        holder.set_shortcut("")
        assert holder.status == "off"
        assert other.set_shortcut("Ctrl+Alt+Space") == "registered"
        assert other.set_shortcut("Space") == "invalid"
        assert other.message().startswith("A global shortcut needs Ctrl, Alt or Meta")
    finally:
        holder.close()
        other.close()


def test_after_a_layout_change_the_same_combination_is_held(qtbot: Any, xvfb: str,  # noqa: F811
                                                            ) -> None:
    if shutil.which("setxkbmap") is None:
        pytest.skip("setxkbmap is not installed (Debian package x11-xkb-utils, with Xvfb)")
    shortcut = GlobalShortcut(platform="xcb", display=xvfb)
    try:
        assert shortcut.set_shortcut("Ctrl+Alt+Q") == "registered"
        us_keycodes = {keycode for keycode, _mods in shortcut._backend.grabs}
        # French AZERTY: Q is where A is on a US keyboard
        subprocess.run(["setxkbmap", "-display", xvfb, "fr"], check=True, timeout=20)
        qtbot.waitUntil(lambda: shortcut._backend.grabs and us_keycodes.isdisjoint(
            keycode for keycode, _mods in shortcut._backend.grabs), timeout=10000)
        assert shortcut.status == "registered"
        with qtbot.waitSignal(shortcut.activated, timeout=10000):
            press(xvfb, "ctrl+alt+q")
    finally:
        shortcut.close()


def test_when_the_x_server_goes_away_the_shortcut_says_so(
    qtbot: Any, xserver: XServer,  # noqa: F811
) -> None:
    shortcut = GlobalShortcut(platform="xcb", display=xserver.display)
    try:
        assert shortcut.set_shortcut("Ctrl+Alt+K") == "registered"
        xserver.stop()
        qtbot.waitUntil(lambda: shortcut.status == "unavailable", timeout=10000)
        assert "lost" in shortcut.detail
        assert shortcut._notifier is None  # no longer watching a dead socket
    finally:
        shortcut.close()


def test_a_key_typed_with_shift_is_grabbed_with_shift(qtbot: Any, xvfb: str,  # noqa: F811
                                                       ) -> None:
    shortcut = GlobalShortcut(platform="xcb", display=xvfb)
    try:
        assert shortcut.set_shortcut("Ctrl++") == "registered"  # US layout: Shift and "="
        with qtbot.waitSignal(shortcut.activated, timeout=10000):
            press(xvfb, "ctrl+plus")
    finally:
        shortcut.close()
