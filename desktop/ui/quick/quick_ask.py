"""Opens the quick-ask window (tray menu, ``assista quick``) and connects it to the
main window: "Open in the main window" shows its chat there, and a finished answer
the user is not looking at becomes a desktop notification."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QAction, QKeySequence

from desktop.core.settings import AppSettings
from desktop.ui.quick.global_shortcut import GlobalShortcut
from desktop.ui.quick.quick_window import QuickAskWindow
from desktop.ui.window.controller import ChatController
from desktop.ui.window.settings_signal import SettingsSignal

if TYPE_CHECKING:
    from desktop.ui.window.main_window import MainWindow

# What ``assista quick`` may put into the question: nothing, the selected text, the clipboard.
PREFILLS = ("none", "selection", "clipboard")


class QuickAsk(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.quick_window: QuickAskWindow | None = None
        # Started by ``assista quick`` with no app running: the main window stays hidden
        # until asked for, and putting the quick window away quits (unless the app keeps
        # running in the tray).
        self.standalone = False
        self._menu_actions: list[QAction] = []
        # The system-wide shortcut, following Preferences as it is saved.
        self.settings_signal = SettingsSignal(window.controller.ctx.settings, self)
        self.settings_signal.changed.connect(self._settings_changed)
        self.shortcut = GlobalShortcut(self)
        self.use_shortcut(self.shortcut)

    def use_shortcut(self, shortcut: GlobalShortcut) -> None:
        """Hold the setting's combination with ``shortcut`` (tests: on their own X
        server or bus) instead of the one held now."""
        if shortcut is not self.shortcut:
            self.shortcut.close()
            self.shortcut = shortcut
        shortcut.activated.connect(self.toggle)
        shortcut.set_shortcut(self.window.controller.settings.quick_shortcut)

    def menu_action(self) -> QAction:
        """File → Quick ask, with the keys of the global shortcut (also in the app where
        the desktop has no global shortcuts)."""
        action = QAction(self.tr("&Quick ask…"), self)
        action.triggered.connect(lambda _checked=False: self.open())
        self._menu_actions.append(action)
        self._show_keys(self.window.controller.settings.quick_shortcut)
        return action

    def _show_keys(self, text: str) -> None:
        for action in self._menu_actions:
            action.setShortcut(QKeySequence.fromString(
                text, QKeySequence.SequenceFormat.PortableText))

    def _settings_changed(self, old: AppSettings, new: AppSettings) -> None:
        if new.quick_shortcut != old.quick_shortcut:
            self.shortcut.set_shortcut(new.quick_shortcut)
            self._show_keys(new.quick_shortcut)

    def toggle(self) -> None:
        """The global shortcut: open the window, or put it away when it is in front."""
        quick = self.quick_window
        if quick is not None and quick.isVisible() and quick.isActiveWindow():
            quick.hide()
        else:
            self.open()

    def ensure(self) -> QuickAskWindow:
        if self.quick_window is None:
            main = self.window.controller
            # Its own adapter on the app's one chat service: turns run there, not here.
            controller = ChatController(main.ctx, self, service=main.service)
            quick = QuickAskWindow(controller)
            quick.openInMainRequested.connect(self.open_in_main)
            quick.answerFinished.connect(self._answer_finished)
            quick.installEventFilter(self)  # its Hide: see standalone
            screen = self.window.screen().availableGeometry()  # top middle, like a launcher
            quick.move(screen.x() + (screen.width() - quick.width()) // 2,
                       screen.y() + screen.height() // 6)
            self.quick_window = quick
        return self.quick_window

    def open(self, prefill: str = "none") -> QuickAskWindow:
        """Show the window in front, with a fresh question unless its answer is still
        coming; ``prefill``: "selection" or "clipboard" puts that text in the question."""
        quick = self.ensure()
        if not quick.isVisible() and not quick.controller.busy and \
                quick.controller.session_id is not None:
            quick.new_chat()
        if prefill in ("selection", "clipboard"):
            quick.insert_selection(selection=prefill == "selection")
        quick.show()
        quick.raise_()
        quick.activateWindow()
        quick.input.setFocus()
        return quick

    def command(self, command: str) -> None:
        """A request from another start of the app: ``quick [none|selection|clipboard]``."""
        words = command.split()
        self.open(words[1] if len(words) > 1 and words[1] in PREFILLS else "none")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Hide and watched is self.quick_window and \
                self.standalone:
            QTimer.singleShot(0, self._hidden_alone)
        return False

    def _hidden_alone(self) -> None:
        quick = self.quick_window
        if not self.standalone or self.window.isVisible() or \
                (quick is not None and quick.isVisible()) or self.window.tray.keeps_running():
            return
        self.standalone = False
        self.window.tray.quit()  # asks first when the quick answer is still coming

    def open_in_main(self, session_id: str) -> None:
        self.window.controller.open_session(session_id)
        self.window.bring_to_front()

    def _answer_finished(self, text: str, failed: bool) -> None:
        quick = self.quick_window
        if quick is None:
            return
        title = ""
        session_id = quick.controller.session_id
        if session_id is not None:
            info = self.window.controller.ctx.sessions.get_session(session_id)
            title = info.title if info is not None else ""
        self.window.notifier.answer_finished(title, text, failed=failed, shown_in=quick)

    def close(self) -> None:
        self.standalone = False
        self.settings_signal.close()
        self.shortcut.close()
        if self.quick_window is not None:
            self.quick_window.hide()
            self.quick_window.deleteLater()
            self.quick_window = None
