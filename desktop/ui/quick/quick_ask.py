"""Opens the quick-ask window (tray menu, ``assista quick``) and says what the main
window should do: show its chat ("Open in the main window"), tell the desktop that an
answer finished while the user looks elsewhere, and quit when it was started alone and
is put away. It never sees the main window's pieces: :meth:`MainWindow._connect`
wires its signals."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from desktop.core.settings import AppSettings
from desktop.ui.quick.global_shortcut import GlobalShortcut
from desktop.ui.quick.quick_window import QuickAskWindow
from desktop.ui.window.settings_signal import SettingsSignal

if TYPE_CHECKING:
    from desktop.core.services import SettingsSource
    from desktop.ui.window.controller import ChatController

# What ``assista quick`` may put into the question: nothing, the selected text, the clipboard.
PREFILLS = ("none", "selection", "clipboard")


class QuickAsk(QObject):
    openInMainRequested = Signal(str)  # session id: show this chat in the main window
    #: an answer in the quick window finished: chat title, answer, failed, the quick window
    answerFinished = Signal(str, str, bool, object)
    #: started alone (``assista quick``), put away, and the main window is hidden too
    hiddenAlone = Signal()

    def __init__(self, controller: ChatController, settings: SettingsSource,
                 window: QWidget) -> None:
        """``controller``: the main window's (the quick window gets a companion on
        the same chat service); ``window``: the main window (placed on its screen)."""
        super().__init__(window)
        self.window = window
        self.controller = controller
        self.settings = settings
        self.quick_window: QuickAskWindow | None = None
        # Started by ``assista quick`` with no app running: the main window stays hidden
        # until asked for, and putting the quick window away quits (unless the app keeps
        # running in the tray).
        self.standalone = False
        self._menu_actions: list[QAction] = []
        # The system-wide shortcut, following Preferences as it is saved.
        self.settings_signal = SettingsSignal(settings, self)
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
        shortcut.set_shortcut(self.settings.current.quick_shortcut)

    def menu_action(self) -> QAction:
        """File → Quick ask, with the keys of the global shortcut (also in the app where
        the desktop has no global shortcuts)."""
        action = QAction(self.tr("&Quick ask…"), self)
        action.triggered.connect(lambda _checked=False: self.open())
        self._menu_actions.append(action)
        self._show_keys(self.settings.current.quick_shortcut)
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
            # Its own adapter on the app's one chat service: turns run there, not here.
            quick = QuickAskWindow(self.controller.companion(self))
            quick.openInMainRequested.connect(self.openInMainRequested)
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
                (quick is not None and quick.isVisible()):
            return
        self.hiddenAlone.emit()

    def _answer_finished(self, text: str, failed: bool) -> None:
        quick = self.quick_window
        if quick is None:
            return
        session_id = quick.controller.session_id
        title = (quick.controller.services.chat_title(session_id) or "") if session_id else ""
        self.answerFinished.emit(title, text, failed, quick)

    def close(self) -> None:
        self.standalone = False
        self.settings_signal.close()
        self.shortcut.close()
        if self.quick_window is not None:
            self.quick_window.hide()
            self.quick_window.deleteLater()
            self.quick_window = None
