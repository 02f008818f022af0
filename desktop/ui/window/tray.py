"""The tray icon and its menu: New chat, Quick ask, Show/Hide, Quit.

The menu exists whether or not the desktop has a tray (tests, and a desktop that
gets one later reuse it); the icon is made only where there is a tray. With
"Keep running in the tray" (Preferences → General) closing the window hides it
instead; the tray's Quit really quits, through the window's close (and so through
:class:`QuitGuard`'s question when chats are answering).

It sees the window only as a widget to show, hide and close: what its menu asks for
that is not about the window (a new chat, quick ask, the window in front, the window
put away) it emits, and :meth:`MainWindow._connect` decides who does it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QApplication, QMenu, QMessageBox, QSystemTrayIcon, QWidget

from desktop import APP_NAME
from desktop.resources import icon_path
from desktop.ui.plain_text import notification_text

if TYPE_CHECKING:
    from desktop.core.services import SettingsSource


def app_icon() -> QIcon:
    """The application's own icon (resources/icons/assista.svg)."""
    app = QApplication.instance()
    if isinstance(app, QApplication) and not app.windowIcon().isNull():
        return app.windowIcon()
    path = icon_path()
    return QIcon(str(path)) if path is not None else QIcon()


class AppTray(QObject):
    newChatRequested = Signal()
    quickAskRequested = Signal()
    frontRequested = Signal()  # Show window, a click on a notification
    hideRequested = Signal()  # Hide window: the window keeps its layout and hides

    def __init__(self, window: QWidget, settings: SettingsSource,
                 quit_question: Callable[[], QMessageBox | None]) -> None:
        """``window``: the one it shows, hides and closes; ``settings``: whether it
        keeps running in the tray; ``quit_question``: the window's question while
        chats are answering, when it is showing."""
        super().__init__(window)
        self.window = window
        self.settings = settings
        self.quit_question = quit_question
        self.quitting = False  # Quit was chosen: the next close really closes
        self.quit_app: Callable[[], None] = QApplication.quit  # (tests record it instead)
        self.menu = QMenu()
        self.menu.setAccessibleName(self.tr("{app} tray menu").format(app=APP_NAME))
        self.new_chat_action = self._add(self.tr("&New chat"), self.new_chat)
        self.quick_action = self._add(self.tr("&Quick ask…"), self.quick_ask)
        self.show_action = self._add(self.tr("&Hide window"), self.toggle_window)
        self.menu.addSeparator()
        self.quit_action = self._add(self.tr("&Quit"), self.quit)
        self.menu.aboutToShow.connect(self._update_labels)
        self.icon: QSystemTrayIcon | None = None
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.icon = QSystemTrayIcon(app_icon(), self)
            self.icon.setToolTip(APP_NAME)
            self.icon.setContextMenu(self.menu)
            self.icon.activated.connect(self._activated)
            self.icon.messageClicked.connect(self.frontRequested)
            self.icon.show()

    def _add(self, text: str, slot: Callable[[], None]) -> QAction:
        action = QAction(text, self)
        action.triggered.connect(lambda _checked=False: slot())
        self.menu.addAction(action)
        return action

    def _update_labels(self) -> None:
        visible = self.window.isVisible() and not self.window.isMinimized()
        self.show_action.setText(self.tr("&Hide window") if visible else self.tr("&Show window"))

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.toggle_window()

    # -- what the menu does -------------------------------------------------------------

    def new_chat(self) -> None:
        self.frontRequested.emit()
        self.newChatRequested.emit()

    def quick_ask(self) -> None:
        self.quickAskRequested.emit()

    def toggle_window(self) -> None:
        if self.window.isVisible() and not self.window.isMinimized():
            self.hideRequested.emit()
        else:
            self.frontRequested.emit()
        self._update_labels()

    def quit(self) -> None:
        """Quit for real: close the window (asking first when chats answer), then the app."""
        self.quitting = True
        if self.window.close():
            self.quit_app()
            return
        box = self.quit_question()
        if box is None:
            self.quitting = False
            return
        # Chats are answering: the window asks first, in front. Quit closes the window
        # (then the app quits); Cancel leaves it open and the tray as it was.
        self.frontRequested.emit()
        box.finished.connect(lambda _result: QTimer.singleShot(0, self._after_question))

    def _after_question(self) -> None:
        if self.window.isVisible():
            self.quitting = False
        else:
            self.quit_app()

    # -- closing the window ---------------------------------------------------------------

    def available(self) -> bool:
        return self.icon is not None and self.icon.isVisible()

    def keeps_running(self) -> bool:
        """Closing the window hides it (the setting is on, there is a tray to come
        back from, and Quit was not chosen)."""
        return self.settings.current.keep_in_tray and self.available() and not self.quitting

    def show_message(self, title: str, text: str) -> bool:
        if self.icon is None or not QSystemTrayIcon.supportsMessages():
            return False
        # (the chat's title and the answer are the model's words; the desktop's
        # notification server may read markup)
        self.icon.showMessage(notification_text(title), notification_text(text),
                              QSystemTrayIcon.MessageIcon.Information, 10_000)
        return True

    def close(self) -> None:
        if self.icon is not None:
            self.icon.hide()
        self.menu.deleteLater()
