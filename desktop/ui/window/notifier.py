"""Desktop notifications for what happens while the user looks elsewhere.

Chats answer in the background, so a tool call can wait for approval while the
window is behind another one. Then the desktop is told: a notification through the
system tray where the desktop has one (clicking it brings the window forward), and
in any case the window asks for attention (a flashing taskbar entry).
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication, QSystemTrayIcon, QWidget


class DesktopNotifier(QObject):
    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self._tray: QSystemTrayIcon | None = None
        self.sent: list[tuple[str, str]] = []  # what was said (shown in the log, tests)

    def notify(self, title: str, text: str) -> bool:
        """Tell the desktop, unless the window is the one the user is using; returns
        whether anything was sent."""
        if self.window.isActiveWindow():
            return False
        self.sent.append((title, text))
        tray = self._tray_icon()
        if tray is not None:
            tray.showMessage(title, text, QSystemTrayIcon.MessageIcon.Information, 10_000)
        QApplication.alert(self.window)
        return True

    def _tray_icon(self) -> QSystemTrayIcon | None:
        if not (QSystemTrayIcon.isSystemTrayAvailable() and QSystemTrayIcon.supportsMessages()):
            return None
        if self._tray is None:
            self._tray = QSystemTrayIcon(self.window.windowIcon(), self)
            self._tray.setToolTip(self.window.windowTitle())
            self._tray.messageClicked.connect(self._bring_forward)
            self._tray.activated.connect(lambda _reason: self._bring_forward())
            self._tray.show()
        return self._tray

    def _bring_forward(self) -> None:
        if self.window.isMinimized():
            self.window.showNormal()
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()
