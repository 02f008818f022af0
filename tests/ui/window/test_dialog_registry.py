"""The window's dialogs come from one registry: the menus offer each registered dialog
(its text, translated as before, and its shortcut), the launcher opens it by its kind,
and what a dialog changed the window follows (prices saved, preferences saved)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QMenu

from desktop.app import AppContext
from desktop.core.settings import ModelPrice
from desktop.ui import i18n
from desktop.ui.dialogs.settings_dialog import SettingsDialog
from desktop.ui.knowledge.knowledge_dialog import KnowledgeDialog
from desktop.ui.providers.prices_dialog import PricesDialog
from desktop.ui.tools.tools_dialog import ToolsDialog
from desktop.ui.window.dialog_registry import DIALOGS, DialogEntry, dialog_entry, menu_entries
from desktop.ui.window.main_window import MainWindow
from tests.ui.window.test_main_window import make_window

MENU_OF = {"settings": "&Settings", "help": "&Help"}


def menu_actions(window: MainWindow, name: str) -> list[QAction]:
    title = QCoreApplication.translate("MainWindow", MENU_OF[name])
    for action in window.menuBar().actions():
        menu = action.menu()
        if action.text() == title and isinstance(menu, QMenu):
            return [a for a in menu.actions() if not a.isSeparator()]
    raise AssertionError(f"no menu {title!r}")


def action_of(window: MainWindow, entry: DialogEntry) -> QAction:
    text = QCoreApplication.translate("MainWindow", entry.text)
    found = [a for a in menu_actions(window, entry.menu) if a.text() == text]
    assert len(found) == 1, (entry.kind, [a.text() for a in menu_actions(window, entry.menu)])
    return found[0]


@pytest.fixture
def window(qtbot: Any, qt_loop: qasync.QEventLoop,
           open_ctx: Callable[..., AppContext]) -> Iterator[MainWindow]:
    yield make_window(qtbot, open_ctx())


def test_the_menus_offer_every_registered_dialog_in_its_order(window: MainWindow,
                                                              qtbot: Any) -> None:
    for name in ("settings", "help"):
        texts = [a.text() for a in menu_actions(window, name)]
        registered = [QCoreApplication.translate("MainWindow", e.text)
                      for e in menu_entries(name)]
        assert [t for t in texts if t in registered] == registered  # in their order
    # the menus' own actions keep their places among them
    settings = [a.text() for a in menu_actions(window, "settings")]
    assert settings.index("P&references…") < settings.index("&Assistants…") \
        < settings.index("&Providers…")
    help_texts = [a.text() for a in menu_actions(window, "help")]
    assert help_texts.index("&Keyboard shortcuts") < help_texts.index("Open &log folder") \
        < help_texts.index("&About")


def test_each_menu_action_opens_its_dialog_once(window: MainWindow, qtbot: Any) -> None:
    for entry in DIALOGS:
        action = action_of(window, entry)
        assert action.shortcut() == QKeySequence(entry.shortcut), entry.kind
        action.trigger()
        dialog = window.dialogs.current(entry.kind)
        assert dialog is not None, entry.kind
        qtbot.waitUntil(dialog.isVisible)
        assert type(dialog).__name__ == entry.target.partition(":")[2]
        action.trigger()  # again: the open one comes forward
        assert window.dialogs.current(entry.kind) is dialog
        dialog.reject()
        qtbot.waitUntil(lambda kind=entry.kind: window.dialogs.current(kind) is None)


def test_an_unknown_kind_is_a_clear_error(window: MainWindow) -> None:
    with pytest.raises(KeyError, match="no dialog registered as 'nothing'"):
        window.dialogs.open("nothing")
    assert dialog_entry("about").menu == "help"


def test_the_menu_texts_are_translated_as_before(qtbot: Any, qt_loop: qasync.QEventLoop,
                                                 qapp: QApplication,
                                                 open_ctx: Callable[..., AppContext]) -> None:
    i18n.install_translations(qapp, "de")
    try:
        window = make_window(qtbot, open_ctx())
        texts = [a.text() for a in menu_actions(window, "settings")]
        for entry in menu_entries("settings"):
            translated = QCoreApplication.translate("MainWindow", entry.text)
            assert translated != entry.text, entry.text  # (German has them all)
            assert translated in texts
    finally:
        i18n.install_translations(qapp, "en")


def test_saved_prices_are_kept_and_the_window_follows(window: MainWindow, qtbot: Any) -> None:
    action_of(window, dialog_entry("prices")).trigger()
    dialog = window.dialogs.current("prices")
    assert isinstance(dialog, PricesDialog)
    dialog.add_row("local-model", ModelPrice(input=1, output=2))
    dialog._save()
    prices = window.controller.services.settings.current.prices
    assert prices["local-model"] == ModelPrice(input=1, output=2)


def test_saved_preferences_are_announced(window: MainWindow, qtbot: Any) -> None:
    action_of(window, dialog_entry("preferences")).trigger()
    dialog = window.dialogs.current("preferences")
    assert isinstance(dialog, SettingsDialog)
    assert dialog.save()
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == "Preferences saved")


def test_saved_tools_settings_reach_the_chat_on_screen(window: MainWindow, qtbot: Any) -> None:
    action_of(window, dialog_entry("tools")).trigger()
    dialog = window.dialogs.current("tools")
    assert isinstance(dialog, ToolsDialog)
    with qtbot.waitSignal(window.controller.toolsChanged, timeout=1000), \
            qtbot.waitSignal(window.controller.selectionChanged, timeout=1000):
        dialog.save()


def test_the_knowledge_dialog_follows_the_chat_on_screen(window: MainWindow) -> None:
    action_of(window, dialog_entry("knowledge")).trigger()
    dialog = window.dialogs.current("knowledge")
    assert isinstance(dialog, KnowledgeDialog)
    assert dialog.chat_knowledge.chat() is window.controller.chat
    window.controller.new_session()  # (another chat is shown while the dialog is open)
    assert dialog.chat_knowledge.chat() is window.controller.chat
