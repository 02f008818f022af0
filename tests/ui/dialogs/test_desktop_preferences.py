"""Preferences → Desktop (tray, updates) and the high-contrast theme."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from desktop.app import AppContext
from desktop.storage.window_state import parse_window_state
from desktop.ui import theme
from desktop.ui.dialogs.settings_dialog import SettingsDialog
from desktop.ui.window.settings_signal import follow_settings
from tests.ui.conversation_helpers import make_window


@pytest.fixture(autouse=True)
def _restore_theme(qapp: QApplication) -> Iterator[None]:
    mode = theme.mode()
    yield
    theme.apply_theme(qapp, mode)


def test_the_desktop_tab_saves_tray_and_update_settings(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    dialog = SettingsDialog.for_window(window.dialogs.services, window)
    qtbot.addWidget(dialog)
    tab = dialog.desktop_tab
    assert not tab.tray_check.isChecked() and tab.updates_check.isChecked()
    assert not tab.feed_edit.isEnabled()  # tests run on a --data-dir folder: portable
    tab.tray_check.setChecked(True)
    tab.updates_check.setChecked(False)
    tab.feed_edit.setText("ftp://example.com/feed")
    assert not dialog.save()  # a feed must be http(s)
    assert dialog.pages.currentWidget() is tab and "https://" in dialog.error_label.text()
    assert not ctx.settings.current.keep_in_tray  # nothing saved
    tab.feed_edit.setText("https://example.com/releases/latest")
    assert dialog.save()
    saved = ctx.settings.current
    assert saved.keep_in_tray and not saved.check_updates
    assert saved.update_feed_url == "https://example.com/releases/latest"


def test_high_contrast_is_a_theme_choice_in_preferences_and_the_view_menu(
    qtbot: Any, qt_loop: qasync.QEventLoop, qapp: QApplication,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    signal = follow_settings(qapp, window.controller)
    try:
        dialog = SettingsDialog.for_window(window.dialogs.services, window)
        qtbot.addWidget(dialog)
        index = dialog.theme_combo.findData("high_contrast")
        assert index >= 0 and dialog.theme_combo.itemText(index) == "High contrast"
        dialog.theme_combo.setCurrentIndex(index)
        assert dialog.save()
        qtbot.waitUntil(lambda: theme.mode() == "high_contrast", timeout=5000)
        palette = qapp.palette()
        assert palette.color(QPalette.ColorRole.Window).name() == "#000000"
        assert palette.color(QPalette.ColorRole.WindowText).name() == "#ffffff"
        assert palette.color(QPalette.ColorRole.Highlight).name() == "#ffff00"
        assert theme.is_dark() and theme.colors() is theme.HIGH_CONTRAST
        # the window remembers it for the next start (read before the app loads)
        assert parse_window_state('{"theme": "high_contrast"}', None).theme == "high_contrast"
        labels = [a.text().replace("&", "") for a in window.chat.theme_actions]
        assert labels[-1] == "Theme: high contrast"
        assert window.chat.theme_actions[-1].isChecked()
        window.chat.theme_actions[1].trigger()  # Theme: light, from the View menu
        qtbot.waitUntil(lambda: ctx.settings.current.theme == "light", timeout=5000)
        assert theme.colors() is theme.LIGHT
    finally:
        signal.close()


def test_every_colour_pair_of_high_contrast_reads_at_seven_to_one_or_more() -> None:
    def luminance(hex_colour: str) -> float:
        channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    def ratio(a: str, b: str) -> float:
        high, low = sorted((luminance(a), luminance(b)), reverse=True)
        return (high + 0.05) / (low + 0.05)

    c = theme.HIGH_CONTRAST
    pairs = [("text", "window"), ("muted", "window"), ("accent", "window"),
             ("accent_text", "accent"), ("error", "window"), ("ok", "window"),
             ("warn", "window"), ("text", "hover"), ("text", "code_bg"), ("border", "window")]
    low = {f"{a}/{b}": round(ratio(c[a], c[b]), 1) for a, b in pairs if ratio(c[a], c[b]) < 7}
    assert low == {}
