"""Key combinations as Preferences stores them, and as X11, Windows and the portal name them."""

from __future__ import annotations

import pytest

from desktop.ui.quick.key_combo import KeyCombo, KeyComboError


@pytest.mark.parametrize(("text", "keysym", "vk", "trigger"), [
    ("Ctrl+Shift+Space", 0x20, 0x20, "CTRL+SHIFT+space"),
    ("Ctrl+Alt+K", 0x6B, 0x4B, "CTRL+ALT+k"),
    ("Meta+F12", 0xFFC9, 0x7B, "LOGO+F12"),
    ("Alt+PgDown", 0xFF56, 0x22, "ALT+Page_Down"),
    ("Ctrl++", 0x2B, None, "CTRL+U002B"),
    ("Ctrl+/", 0x2F, None, "CTRL+U002F"),
])
def test_each_platform_names_the_combination(text: str, keysym: int, vk: int | None,
                                             trigger: str) -> None:
    combo = KeyCombo.parse(text)
    assert combo.text() == text
    assert combo.keysym() == keysym
    assert combo.windows_vk() == vk
    assert combo.portal_trigger() == trigger


@pytest.mark.parametrize(("text", "reason"), [
    ("", "no key combination"),
    ("Space", "needs Ctrl, Alt or Meta"),
    ("Shift+A", "needs Ctrl, Alt or Meta"),
    ("Hyper+A", "unknown modifier"),
    ("Ctrl+K, Ctrl+L", "not a sequence"),
    ("Ctrl+Ä", "cannot be a global shortcut"),
    ("Ctrl+", "has no key"),
])
def test_what_cannot_be_a_global_shortcut_says_why(text: str, reason: str) -> None:
    with pytest.raises(KeyComboError, match=reason):
        KeyCombo.parse(text)
