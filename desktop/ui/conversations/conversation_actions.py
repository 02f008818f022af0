"""The window's commands for managing conversations: search (Ctrl+K), assistants,
the chat's system prompt, import and export.

:class:`ConversationActions` adds its menu entries to the main window's menus and
opens its dialogs through the window's :class:`DialogLauncher` (one of each kind,
``open()`` without a nested event loop, so a streaming answer keeps running
underneath).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QMenu, QMenuBar

from desktop.chat.saved_chats import parse_query
from desktop.ui import conversations
from desktop.ui.conversations.chat_library import ChatLibrary

if TYPE_CHECKING:
    from desktop.ui.conversations.import_export import ImportExport
    from desktop.ui.conversations.search_dialog import SearchDialog
    from desktop.ui.window.main_window import MainWindow


class ConversationActions(QObject):
    assistantsChanged = Signal()  # added, edited or removed in the Assistants dialog

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.controller = window.controller
        self._io: ImportExport | None = None
        self.library = ChatLibrary(self.controller)
        self.search: SearchDialog | None = None

    @property
    def io(self) -> ImportExport:
        """Import and export, loaded when first used (the chat formats, the ChatGPT
        importer: not on the way to the window being loaded)."""
        if self._io is None:
            window = self.window
            self._io = conversations.ImportExport(self.controller, window)
            self._io.finished.connect(
                lambda text: window.statusBar().showMessage(text, 15000))
            self._io.failed.connect(window.show_error)
        return self._io

    # -- menus ------------------------------------------------------------------------------

    def _action(self, menu: QMenu, text: str, slot: Callable[[], object],
                shortcut: str | None = None) -> QAction:
        action = QAction(text, self.window)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        return action

    def add_file_actions(self, menu: QMenu) -> None:
        menu.addSeparator()
        self._action(menu, self.tr("&Import chats…"), self.import_chats, "Ctrl+Shift+O")
        self._action(menu, self.tr("&Export chat…"), self.export_chat, "Ctrl+Shift+E")
        self._action(menu, self.tr("Export &all chats…"), self.export_all_chats)

    # (through :attr:`io`: loaded at the first import or export)
    def import_chats(self) -> None:
        self.io.import_file()

    def export_chat(self) -> None:
        self.io.export_current()

    def export_all_chats(self) -> None:
        self.io.export_all()

    def add_chat_menu(self, bar: QMenuBar) -> QMenu:
        menu = bar.addMenu(self.tr("&Chat"))
        self.search_action = self._action(menu, self.tr("&Search chats…"), self.open_search,
                                          "Ctrl+K")
        self.search_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        self.find_action = self._action(menu, self.tr("&Find in this chat…"),
                                        self.window.chat_pane.open_find, "Ctrl+F")
        self._action(menu, self.tr("Edit system &prompt…"), self.edit_session_prompt)
        self._action(menu, self.tr("&Assistants…"), self.open_assistants)
        # The model picker from the keyboard (it is a popup under the top bar's model).
        self._action(menu, self.tr("Choose &model…"),
                     self.window.top_bar.open_model_picker, "Ctrl+Shift+M")
        menu.addSeparator()
        # Esc stops the chat on screen; chats answering in the background stop here.
        self.stop_all_action = self._action(menu, self.tr("Stop &all answers"),
                                            self.window.controller.stop_all)
        menu.addSeparator()
        sessions = self.window.sessions
        self._action(menu, self.tr("Show &chats"), partial(sessions.set_view, "chats"))
        self._action(menu, self.tr("Show a&rchived chats"), partial(sessions.set_view, "archived"))
        self._action(menu, self.tr("Show &trash"), partial(sessions.set_view, "trash"))
        return menu

    def add_settings_actions(self, menu: QMenu) -> None:
        self._action(menu, self.tr("&Assistants…"), self.open_assistants)

    # -- dialogs ------------------------------------------------------------------------------

    def open_search(self) -> SearchDialog:
        if self.search is None:
            self.search = conversations.SearchDialog(self.controller.services.sessions,
                                                     self.window)
            self.search.hitChosen.connect(self.open_hit)
        self.search.start()
        return self.search

    def open_hit(self, session_id: str, message_id: str) -> None:
        """Open the chat of a search hit on the hit's branch, scrolled to the message."""
        if not self.library.open_at(session_id, message_id or None):
            return
        if message_id:
            words = [term.text for term in parse_query(self.search.query.text())] \
                if self.search is not None else []
            QTimer.singleShot(0, partial(self.scroll_to, message_id, words))

    def scroll_to(self, message_id: str, words: list[str] | None = None) -> None:
        """Show the message, its first match of ``words`` marked (with the others)."""
        chat = self.window.chat
        if words and (chat.finder.highlight(message_id, words)
                      or chat.finder.reveal_in_files(message_id, words)):
            return
        target = message_id
        if chat.widget_for(target) is None:  # a tool result: shown inside its answer
            history = self.controller.history
            ids = [m.id for m in history]
            if target in ids:
                before = [m.id for m in history[: ids.index(target)]
                          if chat.widget_for(m.id) is not None]
                target = before[-1] if before else target
        chat.scroll_to_message(target)

    def open_assistants(self) -> QDialog:
        current = self.controller.profile.assistant()

        def make() -> QDialog:
            names = self.controller.tools.registry().names()
            services = self.controller.services
            skills = self.controller.service.chats.skill_names(self.controller.chat)
            dialog = conversations.AssistantsDialog(services.assistants, services.providers,
                                      names, self.window,
                                      select=current.id if current is not None else None,
                                      skill_names=skills)
            dialog.assistantsChanged.connect(self.assistantsChanged)
            return dialog

        return self.window.dialogs.show_one("assistants", make)

    def edit_session_prompt(self) -> QDialog:
        return self.window.dialogs.show_one(
            "prompt", lambda: conversations.SessionPromptDialog(self.controller, self.window))
