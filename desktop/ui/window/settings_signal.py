"""The settings service as a Qt signal, and what the window does when settings change.

:class:`~desktop.core.services.SettingsSource` (the settings service) is Qt-free and calls plain
observers; widgets want a signal they can connect to (and that Qt queues when a
change comes from another thread). :func:`follow_settings` is the window's part:
whoever changed a setting (Preferences, the View menu, a test) only saves it, and
the look and the connections follow from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from desktop.core.settings import AppSettings
from desktop.ui import theme

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

    from desktop.core.services import SettingsSource
    from desktop.ui.window.controller import ChatController


class SettingsSignal(QObject):
    """Emits ``changed(old, new)`` (two :class:`AppSettings`) after each saved change."""

    changed = Signal(object, object)

    def __init__(self, service: SettingsSource, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._unsubscribe = unsubscribe = service.subscribe(self._notify)
        # Deleted with its parent: the service must not call into a dead object.
        self.destroyed.connect(lambda *_: unsubscribe())

    def _notify(self, old: AppSettings, new: AppSettings) -> None:
        self.changed.emit(old, new)

    def close(self) -> None:
        """Stop listening (the service outlives the window in tests and the CLI)."""
        self._unsubscribe()


def proxy_changed(old: AppSettings, new: AppSettings) -> bool:
    return (old.proxy_url, old.no_proxy) != (new.proxy_url, new.no_proxy)


def follow_settings(app: QApplication, controller: ChatController) -> SettingsSignal:
    """Apply saved changes to the running app: the theme, and MCP servers over HTTP
    reconnect through a new proxy (providers and ``fetch_url`` read it per request)."""
    signal = SettingsSignal(controller.services.settings, controller)

    def changed(old: AppSettings, new: AppSettings) -> None:
        if new.theme != old.theme and new.theme != theme.mode():
            theme.apply_theme(app, new.theme)
        if new.base_font_pt != old.base_font_pt:
            theme.set_base_font_size(new.base_font_pt or None)
        manager = controller.tools.mcp
        if proxy_changed(old, new) and manager is not None and any(
                c.config.transport != "stdio" for c in manager.connections.values()):
            controller.start_mcp()

    signal.changed.connect(changed)
    return signal
