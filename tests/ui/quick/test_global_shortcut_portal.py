"""The global shortcut through the desktop portal (Wayland), against a fake portal on a
private D-Bus session bus: session, binding with the preferred trigger, Activated
opening the quick-ask window; no portal on the bus; the user refusing."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync

from desktop.app import AppContext
from desktop.ui.quick.global_shortcut import GlobalShortcut
from desktop.ui.quick.shortcut_portal import bound_trigger, request_path
from tests.support.fake_portal import FakePortal, PrivateBus
from tests.ui.conversation_helpers import make_window


@pytest.fixture
def bus(tmp_path: Path) -> Iterator[str]:
    if shutil.which("dbus-daemon") is None:
        pytest.skip("dbus-daemon is not installed (Debian package dbus; packaging/dev.py)")
    private = PrivateBus(tmp_path)
    try:
        yield private.address
    finally:
        private.close()


def test_the_portal_binds_the_shortcut_and_its_activation_opens_quick_ask(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext], bus: str,
) -> None:
    portal = FakePortal(bus)
    try:
        ctx = open_ctx()
        ctx.settings.update(quick_shortcut="Ctrl+Alt+K")
        window = make_window(qtbot, ctx)
        shortcut = GlobalShortcut(window.quick, platform="wayland", bus=bus)
        window.quick.use_shortcut(shortcut)
        assert shortcut.status == "pending"
        assert "Waiting for the desktop" in shortcut.message()
        qtbot.waitUntil(lambda: shortcut.status == "registered", timeout=10000)
        assert shortcut.message() == "Registered with the desktop as Press Ctrl+Alt+K."
        binds = [body for member, body in portal.calls if member == "BindShortcuts"]
        assert len(binds) == 1
        session, shortcuts, _parent, _options = binds[0]
        assert session == portal.sessions[-1]
        assert shortcuts[0][0] == "quick-ask"
        assert shortcuts[0][1]["preferred_trigger"] == ("s", "CTRL+ALT+k")

        portal.press()
        qtbot.waitUntil(lambda: window.quick.quick_window is not None
                        and window.quick.quick_window.isVisible(), timeout=10000)
        assert window.quick.quick_window is not None
        qtbot.addWidget(window.quick.quick_window)

        # Another combination: the old session is closed, a new one binds it.
        ctx.settings.update(quick_shortcut="Ctrl+Shift+F5")
        qtbot.waitUntil(lambda: len(portal.sessions) == 2 and shortcut.status == "registered",
                        timeout=10000)
        qtbot.waitUntil(lambda: portal.closed_sessions == [portal.sessions[0]], timeout=10000)
        last_bind = [body for member, body in portal.calls if member == "BindShortcuts"][-1]
        assert last_bind[1][0][1]["preferred_trigger"] == ("s", "CTRL+SHIFT+F5")
        window.quick.close()
    finally:
        portal.close()


def test_without_a_portal_preferences_says_to_bind_assista_quick(
    qtbot: Any, bus: str,
) -> None:
    shortcut = GlobalShortcut(platform="wayland", bus=bus)
    try:
        shortcut.set_shortcut("Ctrl+Alt+K")
        qtbot.waitUntil(lambda: shortcut.status == "unavailable", timeout=10000)
        assert "ServiceUnknown" in shortcut.detail
        assert "assista quick" in shortcut.message()
    finally:
        shortcut.close()


def test_a_refused_binding_is_reported(qtbot: Any, bus: str) -> None:
    portal = FakePortal(bus, refuse_bind=True)
    shortcut = GlobalShortcut(platform="wayland", bus=bus)
    try:
        shortcut.set_shortcut("Ctrl+Alt+K")
        qtbot.waitUntil(lambda: shortcut.status == "cancelled", timeout=10000)
        assert "did not allow" in shortcut.message()
    finally:
        shortcut.close()
        portal.close()


def test_request_paths_and_bound_triggers_follow_the_portal_spec() -> None:
    assert request_path(":1.42", "tok") == "/org/freedesktop/portal/desktop/request/1_42/tok"
    results = {"shortcuts": ("a(sa{sv})", [("other", {}), ("quick-ask", {
        "description": ("s", "x"), "trigger_description": ("s", "Ctrl+Alt+K")})])}
    assert bound_trigger(results) == "Ctrl+Alt+K"
    assert bound_trigger({}) == ""
