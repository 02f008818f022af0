"""Settings → Preferences…: saves proxy, timeout and the rest; refuses a bad proxy."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop.app import AppContext
from desktop.core.proxy import Proxy
from desktop.core.settings import ProviderConfig
from desktop.ui import theme
from desktop.ui.dialogs.settings_dialog import SettingsDialog, normalize_hosts, validate_proxy_url
from desktop.ui.window.settings_signal import follow_settings
from tests.ui.conversation_helpers import make_window


@pytest.fixture(autouse=True)
def _restore_theme(qapp: QApplication) -> Iterator[None]:
    mode = theme.mode()
    yield
    theme.apply_theme(qapp, mode)


@pytest.mark.parametrize(("url", "ok"), [
    ("", True), ("http://proxy.example.com:8080", True), ("https://p.example", True),
    ("socks5://127.0.0.1:1080", True), ("socks5h://user:pw@host:1080", True),
    ("ftp://proxy:21", False), ("proxy.example.com:8080", False), ("http://", False),
    ("http://host:99999", False), ("http://host:port", False), ("http://host:0", False),
    ("http://host:8080/path", False), ("http://ho st:80", False),
])
def test_validate_proxy_url(url: str, ok: bool) -> None:
    problem = validate_proxy_url(url)
    assert (problem is None) == ok, problem
    if problem is not None:
        assert "\n" not in problem


def test_normalize_hosts() -> None:
    assert normalize_hosts("localhost, 127.0.0.1\n.corp.example,,localhost") == \
        "localhost,127.0.0.1,.corp.example"


def open_settings(qtbot: Any, ctx: AppContext) -> tuple[Any, SettingsDialog]:
    window = make_window(qtbot, ctx)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    follow_settings(app, window.controller)  # as launch.py wires the window
    dialog = window.dialogs.open("preferences")
    assert isinstance(dialog, SettingsDialog) and dialog.isVisible()
    return window, dialog


def test_saves_proxy_timeout_and_preferences(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    environ = dict(os.environ)
    poet = ctx.assistants.create("Poet", "Answer in verse.")
    window, dialog = open_settings(qtbot, ctx)
    assert dialog.folder_label.text() == str(ctx.paths.root)
    assert dialog.proxy_edit.text() == "" and dialog.timeout_spin.value() == 120

    dialog.proxy_edit.setText("socks5://127.0.0.1:1080")
    dialog.no_proxy_edit.setText("localhost, .corp.example")
    dialog.timeout_spin.setValue(45)
    assert dialog.concurrent_spin.value() == 4
    dialog.concurrent_spin.setValue(2)
    assert dialog.font_spin.text() == "Default"
    dialog.font_spin.setValue(13)
    dialog.overflow_combo.setCurrentIndex(dialog.overflow_combo.findData("summarize"))
    dialog.retention_spin.setValue(7)
    dialog.instructions_edit.setPlainText("I am a Rust developer.")
    dialog.prompt_edit.setPlainText("You are concise.")
    dialog.assistant_combo.setCurrentIndex(dialog.assistant_combo.findData(poet.id))
    dialog.theme_combo.setCurrentIndex(dialog.theme_combo.findData("dark"))
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()

    for settings in (window.controller.settings, ctx.settings_store.load()):
        assert settings.proxy_url == "socks5://127.0.0.1:1080"
        assert settings.no_proxy == "localhost,.corp.example"
        assert settings.request_timeout_s == 45
        assert settings.max_concurrent_requests == 2
        assert settings.base_font_pt == 13
        assert settings.context_overflow == "summarize"
        assert settings.trash_retention_days == 7
        assert settings.custom_instructions == "I am a Rust developer."
        assert settings.system_prompt == "You are concise."
        assert settings.default_assistant_id == poet.id
        assert settings.theme == "dark"
    # Handed to the next client made; the process environment is left alone
    assert ctx.proxy == Proxy("socks5://127.0.0.1:1080", "localhost,.corp.example")
    assert dict(os.environ) == environ
    assert theme.mode() == "dark" and theme.is_dark()  # the window followed the setting
    assert theme.base_font_size() == 13  # and the base font size
    theme.set_base_font_size(None)  # (the app's theme back as other tests expect it)

    # Reopened, it shows what was saved
    dialog = window.dialogs.open("preferences")
    assert isinstance(dialog, SettingsDialog)
    assert dialog.proxy_edit.text() == "socks5://127.0.0.1:1080"
    assert dialog.timeout_spin.value() == 45
    assert dialog.overflow_combo.currentData() == "summarize"
    dialog.proxy_edit.setText("")
    assert dialog.save()
    assert ctx.settings_store.load().proxy_url == ""
    assert not ctx.proxy.enabled and dict(os.environ) == environ


def test_bad_proxy_is_refused(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    window, dialog = open_settings(qtbot, ctx)
    dialog.timeout_spin.setValue(30)
    dialog.proxy_edit.setText("ftp://proxy.example.com:21")
    assert "http://" in dialog.error_label.text()
    assert not dialog.save_button.isEnabled()
    assert dialog.save() is False
    assert dialog.isVisible()
    assert dialog.pages.currentWidget() is dialog.network_page  # where the problem is
    assert ctx.settings.current.proxy_url == "" and ctx.settings.current.request_timeout_s == 120
    dialog.proxy_edit.setText("http://proxy.example.com:3128")
    assert dialog.error_label.text() == "" and dialog.save_button.isEnabled()
    assert dialog.save()
    assert ctx.settings_store.load().proxy_url == "http://proxy.example.com:3128"
    assert ctx.settings_store.load().request_timeout_s == 30
    assert window.controller.settings.request_timeout_s == 30


def test_a_model_for_titles_is_chosen_in_preferences(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    config = ProviderConfig(name="Small", preset="custom", base_url="http://127.0.0.1:9/v1",
                            model="tiny")
    ctx.settings_store.save_provider(config)
    ctx.settings_store.set_value(f"models:{config.id}", [{"id": "tiny"}, {"id": "mini"}])
    window, dialog = open_settings(qtbot, ctx)
    combo = dialog.title_model_combo
    assert combo.currentText() == "The chat's model"
    assert [combo.itemText(i) for i in range(combo.count())] == [
        "The chat's model", "tiny on Small", "mini on Small"]
    combo.select(config.id, "mini")
    assert dialog.save()
    settings = ctx.settings_store.load()
    assert (settings.title_provider_id, settings.title_model) == (config.id, "mini")
    dialog = window.dialogs.open("preferences")
    assert isinstance(dialog, SettingsDialog)
    assert dialog.title_model_combo.currentText() == "mini on Small"
    dialog.model_titles_check.setChecked(False)  # no titles: nothing to choose
    assert not dialog.title_model_combo.isEnabled()


def test_every_section_is_in_a_side_list_reached_by_keyboard(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    """Ten sections, all in sight (no tab row with scroll arrows), each with an icon
    and a name; Tab reaches the list, the arrow keys choose, the page follows."""
    from PySide6.QtWidgets import QListWidget, QStackedWidget, QTabWidget

    _window, dialog = open_settings(qtbot, open_ctx())
    assert dialog.findChild(QTabWidget) is None
    sections = dialog.findChild(QListWidget, "sectionList")
    assert isinstance(sections, QListWidget) and sections.count() == 10
    assert sections.accessibleName() == "Preferences sections"
    names = [sections.item(row).text() for row in range(sections.count())]
    assert names == ["General", "Chats", "Memory", "Network", "Desktop", "Data", "Web search",
                     "Skills", "Usage", "Request inspector"]
    for row in range(sections.count()):
        item = sections.item(row)
        assert not item.icon().isNull(), item.text()
        assert item.text().isascii()  # words, no emoji standing in for an icon
        # the whole name shows: the list is as wide as its longest entry
        rect = sections.visualItemRect(item)
        assert rect.width() >= sections.sizeHintForColumn(0) - 1
        assert sections.viewport().rect().contains(rect), item.text()
    assert sections.focusPolicy() & Qt.FocusPolicy.TabFocus
    stack = dialog.findChild(QStackedWidget)
    assert stack is not None
    sections.setFocus()
    qtbot.waitUntil(sections.hasFocus)
    qtbot.keyClick(sections, Qt.Key.Key_Down)
    qtbot.keyClick(sections, Qt.Key.Key_Down)
    assert dialog.pages.currentIndex() == 2
    assert dialog.memory_page.search.isVisible() and not dialog.theme_combo.isVisible()
    qtbot.keyClick(sections, Qt.Key.Key_End)
    assert dialog.pages.currentWidget() is dialog.inspector_settings
    assert dialog.inspector_settings.isVisible()
    # Tab goes from the list into the page shown
    qtbot.keyClick(sections, Qt.Key.Key_Home)
    sections.setFocus()
    qtbot.keyClick(sections, Qt.Key.Key_Tab)
    focused = QApplication.focusWidget()
    assert focused is not None and dialog.pages.currentWidget().isAncestorOf(focused)
