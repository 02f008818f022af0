"""The main window's menu bar: File, Chat, Settings, View, Help.

Built once the window's pieces exist (:meth:`MainWindow.attach`); every action calls a
piece the window already has (the dialog launcher, the controller, the panels), so
this object holds no state of its own beyond the actions it made. The dialogs' actions
come from the registry (:mod:`desktop.ui.window.dialog_registry`). (Its texts keep
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
from desktop.ui.window.dialog_registry import DialogEntry, menu_entries

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
        w = self.window
        menu = w.menuBar().addMenu(QCoreApplication.translate("MainWindow", "&Settings"))
        self._with_dialogs(menu, "settings", {20: w.conversations.add_settings_actions})

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
        menu = self.window.menuBar().addMenu(QCoreApplication.translate("MainWindow", "&Help"))
        self._with_dialogs(menu, "help", {20: self._log_folder_action})

    def _log_folder_action(self, menu: QMenu) -> QAction:
        return self._action(menu, QCoreApplication.translate("MainWindow", "Open &log folder"),
                            None, self.open_log_folder)

    def _with_dialogs(self, menu: QMenu, name: str,
                      own: dict[int, Callable[[QMenu], object]]) -> None:
        """Fill ``menu`` with the registered dialogs of menu ``name`` and, at their
        places among them, the menu's ``own`` actions (order: adds them)."""
        items: list[tuple[int, Callable[[QMenu], object]]] = list(own.items())
        items += [(entry.order, partial(self._dialog_action, entry))
                  for entry in menu_entries(name)]
        for _order, add in sorted(items, key=lambda item: item[0]):
            add(menu)

    def _dialog_action(self, entry: DialogEntry, menu: QMenu) -> QAction:
        return self._action(menu, QCoreApplication.translate("MainWindow", entry.text),
                            QKeySequence(entry.shortcut) if entry.shortcut else None,
                            partial(self.window.dialogs.open, entry.kind))

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
