"""Opens the window's dialogs: Providers, Model prices, Tools, MCP servers,
Preferences, Keyboard shortcuts and About (and, for :class:`ConversationActions`, any other kind).

Every dialog is window-modal and opened with ``open()``, never ``exec()``: a nested
event loop would hold up the asyncio tasks (a streaming answer, the model list, MCP
servers) that run on Qt's loop. There is one dialog of each kind at a time; asking
again brings it forward. What a dialog changed is announced by a signal, and the
window decides who follows. When a dialog closes, the keyboard focus goes back to the
widget that had it when the dialog opened (the message box, usually).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QDialog, QMenuBar, QWidget
from shiboken6 import isValid

from desktop.ui.window.helpers import delete_on_close

if TYPE_CHECKING:
    from desktop.core.settings import ModelPrice
    from desktop.ui.window.controller import ChatController
    from desktop.ui.window.sync_scheduler import SyncScheduler


def fit_to_screen(dialog: QWidget, parent: QWidget) -> None:
    """Shrink a dialog that would not fit on the window's screen (its default size is
    made for a large one): on a small screen every button must stay reachable."""
    screen = parent.screen() if parent is not None else None
    if screen is None:
        return
    room = screen.availableGeometry().size() * 0.95
    wanted = (dialog.size() if dialog.testAttribute(Qt.WidgetAttribute.WA_Resized)
              else dialog.sizeHint())
    if wanted.width() > room.width() or wanted.height() > room.height():
        dialog.resize(wanted.boundedTo(room))


class DialogLauncher(QObject):
    providersChanged = Signal()  # saved in the Providers dialog, or it was closed
    pricesChanged = Signal()  # saved (the usage shown may cost something else now)
    mcpClosed = Signal()  # the MCP servers dialog closed: the tools may have changed
    preferencesSaved = Signal()

    def __init__(self, controller: ChatController, parent: QWidget) -> None:
        super().__init__(parent)
        self.controller = controller
        self.parent_widget = parent  # every dialog is modal to this window
        self._dialogs: dict[str, QDialog] = {}

    def current(self, kind: str) -> QDialog | None:
        """The open dialog of ``kind`` ("providers", "mcp", …), if there is one."""
        return self._dialogs.get(kind)

    def show_one(self, kind: str, make: Callable[[], QDialog]) -> QDialog:
        """Open the dialog ``make`` builds, or bring the open one of ``kind`` forward."""
        existing = self._dialogs.get(kind)
        if existing is not None and existing.isVisible():
            existing.raise_()
            existing.activateWindow()
            return existing
        # where the keyboard was: it goes back there when the dialog closes
        before = self.parent_widget.focusWidget()
        dialog = make()
        delete_on_close(dialog)
        dialog.finished.connect(lambda _result: self.give_focus_back(before))

        def closed(_result: int) -> None:
            if self._dialogs.get(kind) is dialog:
                del self._dialogs[kind]

        dialog.finished.connect(closed)
        self._dialogs[kind] = dialog
        fit_to_screen(dialog, self.parent_widget)
        dialog.open()
        return dialog

    def give_focus_back(self, widget: QWidget | None) -> None:
        """Focus ``widget`` (what had it when a dialog opened) or, when it is gone or
        hidden, the message box: never whatever comes first in the window's chain
        (a message's Copy button, say)."""
        window = self.parent_widget
        if widget is None or not isValid(widget) or not widget.isVisible() \
                or not widget.isEnabled() or widget.window() is not window:
            composer = getattr(window, "composer", None)
            widget = composer.input if composer is not None else None
        if widget is not None:
            widget.setFocus(Qt.FocusReason.OtherFocusReason)

    def open_providers(self) -> QDialog:
        from desktop.ui.providers.provider_dialog import ProviderDialog

        def make() -> QDialog:
            dialog = ProviderDialog(self.controller.services.providers, self.parent_widget)
            dialog.providersChanged.connect(self._providers_changed)
            # (closing re-reads them too: a provider may have been removed unsaved)
            dialog.finished.connect(lambda _result: self._providers_changed())
            return dialog

        return self.show_one("providers", make)

    def _providers_changed(self) -> None:
        self.controller.reload_settings()
        self.providersChanged.emit()

    def open_prices(self) -> QDialog:
        from desktop.ui.providers.prices_dialog import PricesDialog

        def make() -> QDialog:
            dialog = PricesDialog(dict(self.controller.settings.prices), self.parent_widget)
            dialog.pricesChanged.connect(self._prices_changed)
            return dialog

        return self.show_one("prices", make)

    def _prices_changed(self, prices: dict[str, ModelPrice]) -> None:
        self.controller.update_settings(prices=prices)
        self.pricesChanged.emit()

    def open_tools(self) -> QDialog:
        from desktop.ui.tools.tools_dialog import ToolsDialog

        return self.show_one("tools", lambda: ToolsDialog(self.controller, self.parent_widget))

    def open_mcp(self) -> QDialog:
        from desktop.ui.tools.mcp_dialog import McpDialog

        def make() -> QDialog:
            dialog = McpDialog(self.controller, self.parent_widget)
            dialog.finished.connect(lambda _result: self.mcpClosed.emit())
            return dialog

        return self.show_one("mcp", make)

    def install_extension(self, path: str | None = None) -> QDialog | None:
        """File → Install extension… (or a bundle dropped on the window): the form of
        the MCP bundle at ``path`` (asked for when None); once installed, the MCP
        servers restart with it."""
        from PySide6.QtCore import QCoreApplication
        from PySide6.QtWidgets import QFileDialog

        from desktop.ui.tools.bundle_dialog import open_bundle_dialog

        if path is None:
            path, _ = QFileDialog.getOpenFileName(
                self.parent_widget, QCoreApplication.translate("MainWindow", "Install extension"),
                "", QCoreApplication.translate("MainWindow", "MCP bundles (*.mcpb *.dxt)"))
            if not path:
                return None
        dialog = open_bundle_dialog(self.controller.services.bundles, path, self.parent_widget)
        if dialog is not None:
            dialog.accepted.connect(self._extension_installed)
        return dialog

    def _extension_installed(self) -> None:
        self.controller.start_mcp()
        self.mcpClosed.emit()  # the tools change

    def open_knowledge(self) -> QDialog:
        from desktop.ui.knowledge.knowledge_dialog import KnowledgeDialog

        return self.show_one("knowledge",
                             lambda: KnowledgeDialog(self.controller, self.parent_widget))

    def open_preferences(self) -> QDialog:
        from desktop.ui.dialogs.settings_dialog import SettingsDialog

        def make() -> QDialog:
            from desktop.ui.window.main_window import MainWindow

            dialog = SettingsDialog(self.controller, self.parent_widget)
            dialog.settingsSaved.connect(self.preferencesSaved)
            if isinstance(self.parent_widget, MainWindow) and self.parent_widget.ready:
                # Desktop: whether the quick-ask shortcut is registered, as it changes
                dialog.desktop_tab.follow(self.parent_widget.quick.shortcut)
            return dialog

        return self.show_one("preferences", make)

    def open_shortcuts(self, menu_bar: QMenuBar) -> QDialog:
        """Help → Keyboard shortcuts: read from the menus' actions as they are now."""
        from desktop.ui.dialogs.shortcuts_dialog import ShortcutsDialog

        return self.show_one("shortcuts", lambda: ShortcutsDialog(menu_bar, self.parent_widget))

    def open_sync(self, scheduler: SyncScheduler) -> QDialog:
        """Settings → Sync: saving reconfigures ``scheduler``, the window's sync."""
        from desktop.ui.dialogs.sync_dialog import SyncDialog

        return self.show_one("sync", lambda: SyncDialog(self.controller.services.sync, scheduler,
                                                        self.parent_widget))

    def open_about(self) -> QDialog:
        from desktop.ui.dialogs.about_dialog import AboutDialog

        return self.show_one("about", lambda: AboutDialog(self.parent_widget))
