"""The main window: sessions | chat + composer | tool activity, with a top bar.

Composed, not inherited: each piece owns its state — the top bar (provider, model,
assistant, usage), the chat list, the chat pane (chat, banners, composer), the Tool
activity sidebar — and two plain objects do what is not a widget: :class:`DialogLauncher`
opens the settings dialogs, :class:`ToolActivity` deals with tools (approvals, MCP
start-up). The window builds them, lays them out, builds the menus and
connects them to the controller and to each other in :meth:`MainWindow._connect`.

Built in two steps so that it can be on screen before the app has loaded: the
constructor makes the window itself (title, saved size, a skeleton of the layout);
:meth:`MainWindow.attach` fills it in once there is a controller. This module imports
only Qt classes at the top: the pieces, the chat view, the models and the agent loop
are imported by ``attach``, and so are asyncio, logging and Qt's ``Qt`` namespace
(creating its enums alone takes ~13 ms), which the window does not need to show.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QTimer, QUrl
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QKeySequence,
    QPaintEvent,
    QShowEvent,
)
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMenu, QVBoxLayout, QWidget

from desktop import APP_NAME
from desktop.storage.window_state import WINDOW_STATE_KEY, WindowState
from desktop.ui import theme
from desktop.ui.window.helpers import window_log
from desktop.ui.window.startup_skeleton import DEFAULT_SPLITTER, StartupSkeleton

if TYPE_CHECKING:
    from desktop.chat.approvals import PendingApproval
    from desktop.core.agent_events import RunFinished
    from desktop.core.messages import Message
    from desktop.ui.chat.chat_view import ChatView
    from desktop.ui.chat.composer import Composer
    from desktop.ui.window.controller import ChatController

MENU_TITLES = ("&File", "&Chat", "&Settings", "&View", "&Help")
WINDOW_CONTENT_MIN = (360, 300)  # px: below the menu bar, above the status bar


class MainWindow(QMainWindow):
    def __init__(self, controller: ChatController | None = None,
                 state: WindowState | None = None) -> None:
        super().__init__()
        self.setWindowTitle(APP_NAME)
        self.resize(1280, 820)
        self.state = state or WindowState()
        if self.state.geometry:
            self.restoreGeometry(QByteArray.fromBase64(self.state.geometry.encode("ascii")))
        self.ready = False  # True once attach() has filled the window in
        self._activated = False
        # Work that waits for the first frame (None once it is on screen)
        self._after_paint: list[Callable[[], None]] | None = []
        self.setCentralWidget(StartupSkeleton(APP_NAME, self.state.splitter,
                                              self.state.sidebar_visible))
        for title in MENU_TITLES:  # the real menus replace these in attach()
            self.menuBar().addMenu(title).setEnabled(False)
        self.statusBar().showMessage(self.tr("Opening…"))
        if controller is not None:
            self.attach(controller)

    def attach(self, controller: ChatController) -> None:
        """Build the real content for ``controller`` (replaces the skeleton)."""
        from desktop import __version__
        from desktop.ui.chat.chat_pane import ChatPane
        from desktop.ui.chat.window_drops import WindowDrops
        from desktop.ui.compare.launcher import CompareLauncher
        from desktop.ui.conversations.conversation_actions import ConversationActions
        from desktop.ui.conversations.session_list import SessionList
        from desktop.ui.quick.quick_ask import QuickAsk
        from desktop.ui.tools.sidebar import ToolSidebar
        from desktop.ui.window.attention import Attention
        from desktop.ui.window.dialog_launcher import DialogLauncher
        from desktop.ui.window.notifier import DesktopNotifier
        from desktop.ui.window.quit_guard import QuitGuard
        from desktop.ui.window.tool_activity import ToolActivity
        from desktop.ui.window.top_bar import TopBar
        from desktop.ui.window.tray import AppTray
        from desktop.ui.window.update_notice import UpdateNotice
        from desktop.ui.window.welcome_view import WelcomeGuide

        self.controller = controller
        if self._after_paint is None:
            # The skeleton was on screen: slow start-up work (model list, MCP servers)
            # waits for the first frame of the real content.
            self._after_paint = []
        self.top_bar = TopBar(controller, self.after_first_paint)
        self.sessions = SessionList()
        self.chat_pane = ChatPane(controller)
        self.sidebar = ToolSidebar(controller.bridge)
        self.setCentralWidget(self._build_layout())
        self.dialogs = DialogLauncher(controller, self)
        WindowDrops(self, self.chat_pane)  # files dropped anywhere attach to the chat
        self.tool_activity = ToolActivity(controller, self.composer, self.sidebar, self)
        self.tray = AppTray(self)  # New chat, Quick ask, Show/Hide, Quit
        self.notifier = DesktopNotifier(self, self.tray)
        self.quick = QuickAsk(self)  # the small always-on-top window
        self.attention = Attention(self)  # finished answers: announced, notified
        self.updates = UpdateNotice(self, __version__)  # at most daily, after the first frame
        self.quit_guard = QuitGuard(self, controller)
        self.conversations = ConversationActions(self)
        self.menuBar().clear()
        self._build_menus()
        self._connect()
        self.welcome = WelcomeGuide(self)  # wires itself: first-run steps, the last chat
        self.compare = CompareLauncher(self)  # wires itself: Compare, /compare, Ask others

        self.top_bar.set_sidebar_visible(self.state.sidebar_visible)
        self.refresh_sessions()
        self.top_bar.refresh_providers()
        self._update_workspace()
        self.top_bar.show_usage(controller.history)
        QTimer.singleShot(0, self.composer.input.setFocus)
        self.after_first_paint(self.tool_activity.start_mcp)
        self.after_first_paint(self.updates.check)
        self.ready = True
        self.update()  # (when shown) a frame of the new content runs the queued work

    # The chat pane owns these; most tests and the conversation actions reach them here.
    @property
    def chat(self) -> ChatView:
        return self.chat_pane.chat

    @property
    def composer(self) -> Composer:
        return self.chat_pane.composer

    def _build_layout(self) -> QWidget:
        """Top bar over sessions | chat pane | tool activity (drawers when narrow)."""
        from desktop.ui.window.panels import ResponsivePanels

        self.panels = ResponsivePanels(self.sessions, self.chat_pane, self.sidebar,
                                       self.state.splitter or list(DEFAULT_SPLITTER))
        self.splitter = self.panels.splitter
        self.panels.set_tab_order(self.sessions.list, self.chat, self.composer.input)
        root = QWidget()
        # Fixed: the window never widens itself to fit its content (that shrinks instead)
        root.setMinimumSize(*WINDOW_CONTENT_MIN)
        outer = QVBoxLayout(root)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        outer.addWidget(self.top_bar)
        outer.addWidget(self.panels, 1)
        return root

    def after_first_paint(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the window's first frame is painted (at once after
        that): slow start-up work (model list, MCP servers) must not delay it."""
        if self._after_paint is None:
            callback()
        elif callback not in self._after_paint:
            self._after_paint.append(callback)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._activated:
            # Ask for the keyboard focus when first shown: without a window manager
            # (a bare X server, a kiosk) nobody else activates the window, and Qt's
            # window shortcuts (Ctrl+N, Ctrl+K, ...) only work in the active window.
            self._activated = True
            self.activateWindow()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        self.run_start_work()

    def run_start_work(self) -> None:  # (``assista quick`` calls it: no first frame comes)
        if self._after_paint is not None:  # on the next turn: after the frame is flushed
            callbacks, self._after_paint = self._after_paint, None
            QTimer.singleShot(0, lambda: [callback() for callback in callbacks])

    # -- menus and connections ------------------------------------------------------------

    def _build_menus(self) -> None:
        d = self.dialogs
        file_menu = self.menuBar().addMenu(self.tr("&File"))
        self._action(file_menu, self.tr("&New chat"), QKeySequence.StandardKey.New,
                     self.controller.new_session)
        self._action(file_menu, self.tr("Choose &workspace folder…"), None, self.choose_workspace)
        self.conversations.add_file_actions(file_menu)
        file_menu.addSeparator()
        file_menu.addAction(self.quick.menu_action())  # with the global shortcut's keys
        self._action(file_menu, self.tr("&Quit"), QKeySequence.StandardKey.Quit, self.tray.quit)
        self.conversations.add_chat_menu(self.menuBar())
        settings_menu = self.menuBar().addMenu(self.tr("&Settings"))
        self._action(settings_menu, self.tr("P&references…"), QKeySequence("Ctrl+,"),
                     d.open_preferences)
        self.conversations.add_settings_actions(settings_menu)
        self._action(settings_menu, self.tr("&Providers…"), QKeySequence("Ctrl+Shift+P"),
                     d.open_providers)
        self._action(settings_menu, self.tr("Model p&rices…"), None, d.open_prices)
        self._action(settings_menu, self.tr("&Tools…"), None, d.open_tools)
        self._action(settings_menu, self.tr("&MCP servers…"), None, d.open_mcp)
        self._action(settings_menu, self.tr("&Knowledge…"), None, d.open_knowledge)
        self._action(settings_menu, self.tr("S&ync…"), None, lambda: d.open_sync(self.sync))
        view_menu = self.menuBar().addMenu(self.tr("&View"))
        self._action(view_menu, self.tr("Toggle &tool activity"), QKeySequence("Ctrl+B"),
                     self.top_bar.toggle_sidebar)
        self._action(view_menu, self.tr("Show &chat list"), QKeySequence("Ctrl+Shift+L"),
                     lambda: self.panels.show_chat_list(True))
        self._action(view_menu, self.tr("Focus &message box"), QKeySequence("Ctrl+L"),
                     self.composer.input.setFocus)
        self._action(view_menu, self.tr("Go to pending &approval"), QKeySequence("Ctrl+Shift+A"),
                     self.tool_activity.focus_approval)
        view_menu.addSeparator()
        for act in self.chat.view_actions():
            view_menu.addAction(act)
        for act, mode in zip(self.chat.theme_actions, theme.MODES, strict=True):
            act.triggered.connect(partial(self.controller.update_settings, theme=mode))
        help_menu = self.menuBar().addMenu(self.tr("&Help"))
        self._action(help_menu, self.tr("&Keyboard shortcuts"), QKeySequence("Ctrl+/"),
                     lambda: d.open_shortcuts(self.menuBar()))
        self._action(help_menu, self.tr("Open &log folder"), None, self.open_log_folder)
        self._action(help_menu, self.tr("&About"), None, d.open_about)

    def _action(self, menu: QMenu, text: str,
                shortcut: QKeySequence | QKeySequence.StandardKey | None,
                slot: Callable[[], object]) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut)
        action.triggered.connect(lambda _checked=False: slot())
        menu.addAction(action)
        return action

    def _connect(self) -> None:
        """Every connection between the pieces and the controller, in one place."""
        c, bar, pane, tools = self.controller, self.top_bar, self.chat_pane, self.tool_activity
        d, composer = self.dialogs, self.chat_pane.composer
        bar.providersRequested.connect(d.open_providers)
        bar.assistantsRequested.connect(self.conversations.open_assistants)
        bar.sidebarToggled.connect(self.panels.set_tools_visible)
        bar.statusChanged.connect(self._show_status)
        d.providersChanged.connect(bar.refresh_providers)
        d.pricesChanged.connect(lambda: bar.show_usage(c.history))
        d.mcpClosed.connect(tools.refresh_tools)
        d.preferencesSaved.connect(self._preferences_saved)
        self.conversations.assistantsChanged.connect(bar.refresh_assistants)

        self.sessions.bind(c)
        self.sessions.searchRequested.connect(self.conversations.open_search)
        self.sessions.list.typed.connect(self._type_into_composer)
        c.sessionsChanged.connect(self.refresh_sessions)
        c.sessionOpened.connect(lambda _id, _messages: tools.refresh_tools())
        c.sessionOpened.connect(self._session_opened)
        c.sessionOpened.connect(lambda _id, _messages: self.panels.show_chat_list(False))
        c.userMessageAdded.connect(self._user_message)
        c.selectionChanged.connect(self._update_workspace)
        c.errorOccurred.connect(self.show_error)
        c.statusMessage.connect(self.statusBar().showMessage)
        c.providerMissing.connect(self._provider_missing)
        c.busyChanged.connect(pane.set_busy)

        composer.stopRequested.connect(c.stop)
        composer.workspaceRequested.connect(self.choose_workspace)
        composer.toolToggled.connect(c.set_tool_enabled)
        composer.toolSettingsRequested.connect(d.open_tools)
        composer.mcpSettingsRequested.connect(d.open_mcp)
        pane.chat.regenerateRequested.connect(c.regenerate)
        pane.chat.branchStepRequested.connect(c.step_branch)

        self.sidebar.messageClicked.connect(pane.chat.scroll_to_message)
        self.sidebar.cancelRequested.connect(c.cancel_tool)
        self.sidebar.chatRequested.connect(c.open_session)
        c.bridge.approvalRequested.connect(self._approval_requested)
        self.sidebar.approvalShown.connect(tools.approval_shown)
        tools.revealRequested.connect(self._reveal_sidebar)
        c.toolsChanged.connect(tools.refresh_tools)
        c.confirmRequested.connect(self.chat.turn_status.show_confirm)
        self.chat.turn_status.confirmAnswered.connect(c.answer_confirm)
        c.bridge.runFinished.connect(self._run_finished)
        c.bridge.contextTrimmed.connect(lambda text: self.statusBar().showMessage(text, 15000))
        from desktop.ui.window.sync_scheduler import install_sync

        self.sync = install_sync(self)  # runs on chat and settings changes, and a timer

    # -- what the controller did ----------------------------------------------------------

    def refresh_sessions(self) -> None:
        self.sessions.refresh(self.controller.session_id)

    def _session_opened(self, session_id: str, messages: list[Message]) -> None:
        self.chat_pane.show_chat(messages)
        self.sidebar.show_history(messages)
        self.top_bar.show_usage(messages)
        if not session_id:
            self.sessions.list.clearSelection()

    def _user_message(self, message: Message) -> None:
        self.chat_pane.add_user_message(message)
        self.sidebar.begin_turn()
        self.refresh_sessions()

    def _run_finished(self, event: RunFinished) -> None:
        self.top_bar.show_usage(self.controller.history)
        if event.status == "limit":
            self.statusBar().showMessage(self.tr("Stopped at the tool-round limit"), 8000)
        elif event.status == "stopped":
            self.statusBar().showMessage(self.tr("Stopped"), 5000)
        else:
            self._show_status()
        self.composer.input.setFocus()

    def _type_into_composer(self, text: str) -> None:
        """Text typed in the chat list goes on in the composer."""
        self.composer.input.setFocus()
        self.composer.input.insertPlainText(text)

    def _show_status(self) -> None:
        self.statusBar().showMessage(self.top_bar.status_text())

    def show_error(self, text: str) -> None:
        self.chat_pane.show_error(text)

    def _provider_missing(self) -> None:
        self.show_error(self.tr("Add a provider to start chatting."))
        self.dialogs.open_providers()

    def _preferences_saved(self) -> None:
        self.refresh_sessions()
        self.statusBar().showMessage(self.tr("Preferences saved"), 5000)

    def _reveal_sidebar(self) -> None:  # Tool activity, wide enough for an approval card
        self.top_bar.set_sidebar_visible(True)
        self.panels.make_room_for_tools()

    def choose_workspace(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose workspace folder"),
                                                  self.controller.workspace() or "")
        if folder:
            self.controller.set_workspace(folder)

    def _update_workspace(self) -> None:
        self.composer.set_workspace(self.controller.workspace())
        self.tool_activity.refresh_tools()
        self._show_status()

    # -- the window itself ----------------------------------------------------------------

    def open_log_folder(self) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.controller.ctx.paths.logs_dir)))

    def bring_to_front(self) -> None:  # (another start of the app, the tray, quick ask)
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()

    def window_state(self) -> WindowState:
        """Size, place, pane widths and zoom, as they are now (saved on close)."""
        sizes = self.panels.sizes_to_save() if self.ready else []
        return WindowState(
            theme=self.state.theme,
            geometry=bytes(self.saveGeometry().toBase64().data()).decode("ascii"),
            splitter=sizes if len(sizes) == 3 and any(sizes) else self.state.splitter,
            sidebar_visible=self.top_bar.sidebar_visible() if self.ready
            else self.state.sidebar_visible,
            zoom=theme.zoom(),
        )

    def save_window_state(self) -> None:
        if not self.ready or not self._activated:  # (never shown: nothing to keep)
            return
        try:
            self.controller.ctx.settings_store.set_value(WINDOW_STATE_KEY,
                                                         self.window_state().to_json())
        except Exception:  # never lose the close over it
            window_log().exception("could not save the window's size and layout")

    def _approval_requested(self, pending: PendingApproval) -> None:
        """A chat (maybe one in the background) waits for the user: tell the desktop
        when the window is not the one in front."""
        self.notifier.approval_needed(pending.chat_title, pending.request.tool)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.ready and self.tray.hide_instead(event):  # "Keep running in the tray"
            return
        if self.ready and not self.quit_guard.may_close():
            event.ignore()  # chats are answering: the user is asked first
            return
        if self.ready:
            self.save_window_state()
            self.controller.stop_all()  # what streamed is saved, marked stopped
            self.quick.close()
            self.tray.close()
        super().closeEvent(event)
