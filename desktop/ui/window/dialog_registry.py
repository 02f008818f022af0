"""The window's dialogs, registered: one entry each (issue 26).

An entry says where the dialog's class is (``"module:Class"``, imported only when the
dialog first opens: start-up loads no dialog module) and how the window offers it —
its menu, menu text, shortcut and place in the menu. The menus
(:class:`desktop.ui.window.window_menus.WindowMenus`) and the launcher
(:meth:`desktop.ui.window.dialog_launcher.DialogLauncher.open`) both read this list.

The class builds itself from the window's services with a classmethod
``for_window(services, parent)`` (:class:`WindowDialog`), taking from
:class:`DialogServices` only what it uses. What a dialog changed it says by its own
signals; the window follows them in one place
(:func:`desktop.ui.window.window_wiring.connect_dialogs`).

Adding a dialog: its module (with ``for_window``), and one entry below. Its menu text
is marked with ``QT_TRANSLATE_NOOP("MainWindow", …)``: the menus translate it in the
context "MainWindow".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple, Protocol

from PySide6.QtCore import QT_TRANSLATE_NOOP

if TYPE_CHECKING:
    from PySide6.QtWidgets import QDialog, QMenuBar, QWidget

    from desktop.chat.chat_settings import ChatSettings
    from desktop.chat.chat_tools import ChatTools
    from desktop.chat.memories import MemoryStore
    from desktop.chat.profile import ChatRef
    from desktop.core.services import SettingsSource
    from desktop.tools.approval import ChatGrants
    from desktop.ui.window.app_services import AppServices
    from desktop.ui.window.controller import ChatController
    from desktop.ui.window.sync_scheduler import SyncScheduler


class DialogServices:
    """What the window's dialogs are built from. A dialog's ``for_window`` hands its
    dialog the narrow parts it uses (a service, a callable), never this object; the
    chat on screen (the controller) stays behind it."""

    def __init__(self, controller: ChatController, menu_bar: Callable[[], QMenuBar],
                 sync_scheduler: Callable[[], SyncScheduler]) -> None:
        self._controller = controller
        self._menu_bar = menu_bar
        self._sync_scheduler = sync_scheduler

    @property
    def app(self) -> AppServices:
        """The app's narrow services (providers, chats, sync, paths, ...)."""
        return self._controller.services

    @property
    def settings(self) -> SettingsSource:
        return self._controller.services.settings

    @property
    def tools(self) -> ChatTools:
        """The tools the chats offer: the registry, MCP servers, the saved grants."""
        return self._controller.tools

    @property
    def memories(self) -> MemoryStore:
        """The memories kept across chats."""
        return self._controller.service.memories

    def chat_grants(self) -> ChatGrants:
        """The chat on screen's "allow for this chat" grants."""
        return self._controller.tool_switches.chat_grants()

    def restart_mcp(self) -> None:
        """(Re)start the MCP servers from the settings, in the background."""
        self._controller.start_mcp()

    @property
    def chats(self) -> ChatSettings:
        """Each chat's own settings (its knowledge bases, tools, ...)."""
        return self._controller.service.chats

    def chat_on_screen(self) -> ChatRef:
        return self._controller.chat

    def menu_bar(self) -> QMenuBar:
        """The window's menu bar (its actions as they are now)."""
        return self._menu_bar()

    def sync_scheduler(self) -> SyncScheduler:
        """The window's sync (saving the Sync settings reconfigures it)."""
        return self._sync_scheduler()


class WindowDialog(Protocol):
    """A registered dialog's class."""

    @classmethod
    def for_window(cls, services: DialogServices, parent: QWidget) -> QDialog: ...


class DialogEntry(NamedTuple):  # (not a dataclass: the menus read it before the app loads)
    kind: str  # "providers", "about", ...: one open dialog of each kind
    target: str  # "package.module:Class", imported when the dialog first opens
    menu: str = ""  # "settings" or "help" ("": in no menu)
    text: str = ""  # the menu text (translated in the context "MainWindow")
    shortcut: str = ""  # QKeySequence's portable text ("Ctrl+,")
    order: int = 0  # place in its menu (the menus' own actions have theirs)


DIALOGS: tuple[DialogEntry, ...] = (
    DialogEntry("preferences", "desktop.ui.dialogs.settings_dialog:SettingsDialog", "settings",
                str(QT_TRANSLATE_NOOP("MainWindow", "P&references…")), "Ctrl+,", 10),
    # (20: the Chat actions' Assistants, Instructions…)
    DialogEntry("providers", "desktop.ui.providers.provider_dialog:ProviderDialog", "settings",
                str(QT_TRANSLATE_NOOP("MainWindow", "&Providers…")), "Ctrl+Shift+P", 30),
    DialogEntry("prices", "desktop.ui.providers.prices_dialog:PricesDialog", "settings",
                str(QT_TRANSLATE_NOOP("MainWindow", "Model p&rices…")), "", 40),
    DialogEntry("tools", "desktop.ui.tools.tools_dialog:ToolsDialog", "settings",
                str(QT_TRANSLATE_NOOP("MainWindow", "&Tools…")), "", 50),
    DialogEntry("mcp", "desktop.ui.tools.mcp_dialog:McpDialog", "settings",
                str(QT_TRANSLATE_NOOP("MainWindow", "&MCP servers…")), "", 60),
    DialogEntry("knowledge", "desktop.ui.knowledge.knowledge_dialog:KnowledgeDialog", "settings",
                str(QT_TRANSLATE_NOOP("MainWindow", "&Knowledge…")), "", 70),
    DialogEntry("sync", "desktop.ui.dialogs.sync_dialog:SyncDialog", "settings",
                str(QT_TRANSLATE_NOOP("MainWindow", "S&ync…")), "", 80),
    DialogEntry("shortcuts", "desktop.ui.dialogs.shortcuts_dialog:ShortcutsDialog", "help",
                str(QT_TRANSLATE_NOOP("MainWindow", "&Keyboard shortcuts")), "Ctrl+/", 10),
    # (20: Open log folder)
    DialogEntry("about", "desktop.ui.dialogs.about_dialog:AboutDialog", "help",
                str(QT_TRANSLATE_NOOP("MainWindow", "&About")), "", 30),
)


def dialog_entry(kind: str) -> DialogEntry:
    for entry in DIALOGS:
        if entry.kind == kind:
            return entry
    raise KeyError(f"no dialog registered as {kind!r}")


def menu_entries(menu: str) -> list[DialogEntry]:
    """The dialogs of ``menu`` ("settings", "help"), in their order."""
    return sorted((e for e in DIALOGS if e.menu == menu), key=lambda e: e.order)
