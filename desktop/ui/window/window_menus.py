"""The main window's menu bar: File, Chat, Settings, View, Help.

Built once the window's pieces exist (:meth:`MainWindow.attach`); every action calls a
piece the window already has (the dialog launcher, the controller, the panels), so
this object holds no state of its own beyond the actions it made. (Its texts keep
the translation context "MainWindow", where the menus were built before.)
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, QUrl
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QMenu

from desktop.ui import theme

if TYPE_CHECKING:
    from desktop.ui.window.main_window import MainWindow

#: The menus in order (the skeleton shows them disabled until the real ones replace them)
MENU_TITLES = ("&File", "&Chat", "&Settings", "&View", "&Help")
# (the contexts the real menus translate them in: the Chat menu is ConversationActions')
_MENU_CONTEXTS = ("MainWindow", "ConversationActions", "MainWindow", "MainWindow", "MainWindow")


def menu_titles() -> list[str]:
    """:data:`MENU_TITLES` in the interface's language, as the real menus say them."""
    return [QCoreApplication.translate(context, title)
            for context, title in zip(_MENU_CONTEXTS, MENU_TITLES, strict=True)]


class WindowMenus(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        bar = window.menuBar()
        bar.clear()  # the skeleton's disabled placeholders
        self._file_menu()
        window.conversations.add_chat_menu(bar)
        self._settings_menu()
        self._view_menu()
        self._help_menu()

    def _file_menu(self) -> None:
        w = self.window
        menu = w.menuBar().addMenu(QCoreApplication.translate("MainWindow", "&File"))
        self._action(menu, QCoreApplication.translate("MainWindow", "&New chat"),
                     QKeySequence.StandardKey.New, w.controller.new_session)
        self._action(menu, QCoreApplication.translate("MainWindow", "New t&emporary chat"),
                     QKeySequence("Ctrl+Shift+N"), w.controller.new_temporary_chat)
        self._action(menu, QCoreApplication.translate("MainWindow", "Choose &workspace folder…"),
                     None, w.choose_workspace)
        w.conversations.add_file_actions(menu)
        self._action(menu, QCoreApplication.translate("MainWindow", "Install &extension…"),
                     None, w.dialogs.install_extension)
        menu.addSeparator()
        menu.addAction(w.quick.menu_action())  # with the global shortcut's keys
        self._action(menu, QCoreApplication.translate("MainWindow", "&Quit"),
                     QKeySequence.StandardKey.Quit, w.tray.quit)

    def _settings_menu(self) -> None:
        w, d = self.window, self.window.dialogs
        menu = w.menuBar().addMenu(QCoreApplication.translate("MainWindow", "&Settings"))
        self._action(menu, QCoreApplication.translate("MainWindow", "P&references…"),
                     QKeySequence("Ctrl+,"), d.open_preferences)
        w.conversations.add_settings_actions(menu)
        self._action(menu, QCoreApplication.translate("MainWindow", "&Providers…"),
                     QKeySequence("Ctrl+Shift+P"), d.open_providers)
        self._action(menu, QCoreApplication.translate("MainWindow", "Model p&rices…"),
                     None, d.open_prices)
        self._action(menu, QCoreApplication.translate("MainWindow", "&Tools…"),
                     None, d.open_tools)
        self._action(menu, QCoreApplication.translate("MainWindow", "&MCP servers…"),
                     None, d.open_mcp)
        self._action(menu, QCoreApplication.translate("MainWindow", "&Knowledge…"),
                     None, d.open_knowledge)
        self._action(menu, QCoreApplication.translate("MainWindow", "S&ync…"),
                     None, lambda: d.open_sync(w.sync))

    def _view_menu(self) -> None:
        w = self.window
        menu = w.menuBar().addMenu(QCoreApplication.translate("MainWindow", "&View"))
        self._action(menu, QCoreApplication.translate("MainWindow", "Toggle &tool activity"),
                     QKeySequence("Ctrl+B"), w.top_bar.toggle_sidebar)
        self._action(menu, QCoreApplication.translate("MainWindow", "Show &chat list"),
                     QKeySequence("Ctrl+Shift+L"), lambda: w.panels.show_chat_list(True))
        self._action(menu, QCoreApplication.translate("MainWindow", "Focus &message box"),
                     QKeySequence("Ctrl+L"), w.composer.input.setFocus)
        self._action(menu, QCoreApplication.translate("MainWindow", "Go to pending &approval"),
                     QKeySequence("Ctrl+Shift+A"), w.tool_activity.focus_approval)
        menu.addSeparator()
        for act in w.chat.view_actions():
            menu.addAction(act)
        for act, mode in zip(w.chat.theme_actions, theme.MODES, strict=True):
            act.triggered.connect(partial(w.controller.update_settings, theme=mode))

    def _help_menu(self) -> None:
        w, d = self.window, self.window.dialogs
        menu = w.menuBar().addMenu(QCoreApplication.translate("MainWindow", "&Help"))
        self._action(menu, QCoreApplication.translate("MainWindow", "&Keyboard shortcuts"),
                     QKeySequence("Ctrl+/"), lambda: d.open_shortcuts(w.menuBar()))
        self._action(menu, QCoreApplication.translate("MainWindow", "Open &log folder"),
                     None, self.open_log_folder)
        self._action(menu, QCoreApplication.translate("MainWindow", "&About"),
                     None, d.open_about)

    def open_log_folder(self) -> None:
        folder = self.window.controller.services.paths.logs_dir
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))

    def _action(self, menu: QMenu, text: str,
                shortcut: QKeySequence | QKeySequence.StandardKey | None,
                slot: Callable[[], object]) -> QAction:
        action = QAction(text, self.window)
        if shortcut is not None:
            action.setShortcut(shortcut)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        return action
