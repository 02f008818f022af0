"""The main window: sessions | chat + composer | tool activity, with a top bar.

Composed, not inherited: each piece owns its state — the top bar (provider, model,
assistant, usage), the chat list, the chat pane (chat, banners, composer), the Tool
activity sidebar — and two plain objects do what is not a widget: :class:`DialogLauncher`
opens the settings dialogs, :class:`ToolActivity` deals with tools (approvals, MCP
start-up), :class:`WindowMenus` the menu bar. The window builds them, lays them out
and connects them to the controller and to each other in :meth:`MainWindow._connect`.

Built in steps so that it is on screen before the app has loaded: the constructor
makes the window itself (title, saved size, a skeleton of the layout), which lists
the first chats and takes typing right after its first frame (:meth:`show_first_chats`);
:meth:`MainWindow.attach` builds the real content once there is a controller, a step
at a time with the window's events handled between them. This module imports
only Qt classes at the top: the pieces, the chat view, the models and the agent loop
are imported by ``attach``, and so are asyncio, logging and Qt's ``Qt`` namespace
(creating its enums alone takes ~13 ms), which the window does not need to show.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QTimer
from PySide6.QtGui import QCloseEvent, QPaintEvent, QShowEvent
from PySide6.QtWidgets import QDialog, QMainWindow, QVBoxLayout, QWidget

from desktop import APP_NAME
from desktop.core.first_frame import WindowState
from desktop.ui import theme
from desktop.ui.window.first_frame_work import FirstFrameWork
from desktop.ui.window.helpers import window_log
from desktop.ui.window.startup_skeleton import (
    DEFAULT_SPLITTER,
    EarlyTyping,
    StartupSkeleton,
    hand_over_typing,
)
from desktop.ui.window.window_menus import WindowMenus, menu_titles

if TYPE_CHECKING:
    from desktop.chat.approvals import PendingApproval
    from desktop.core.agent_events import RunFinished
    from desktop.core.first_frame import FirstChat
    from desktop.core.messages import Message
    from desktop.ui.chat.chat_view import ChatView
    from desktop.ui.chat.composer import Composer
    from desktop.ui.window.controller import ChatController

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
        self.building = ""  # the part of the content being built (see attach)
        self.ready = False  # True once attach() has filled the window in
        # True once chats are listed and typing is taken (by the skeleton, then for real)
        self.filled_in = False
        self.early_typing = EarlyTyping("", False, False)  # (typed in the skeleton)
        self.early_chat: str | None = None  # (clicked in the skeleton)
        self._hold_sends = False  # (see attach)
        self._activated = False
        self.start_work = FirstFrameWork()  # (model list, MCP servers: after a frame)
        self.setCentralWidget(StartupSkeleton(APP_NAME, self.state.splitter,
                                              self.state.sidebar_visible is True))
        for title in menu_titles():  # the real menus replace these in attach()
            self.menuBar().addMenu(title).setEnabled(False)
        self.statusBar().showMessage(self.tr("Opening…"))
        if controller is not None:
            self.attach(controller)

    def show_first_chats(self, chats: Sequence[FirstChat]) -> None:
        """Before the app has loaded: list ``chats`` in the skeleton and let its message
        box take typing (handed to the composer by :meth:`attach`)."""
        skeleton = self.centralWidget()
        if isinstance(skeleton, StartupSkeleton):
            skeleton.fill(chats)
            self.filled_in = True

    def attach(self, controller: ChatController,
               between_steps: Callable[[], object] | None = None,
               hold_sends: bool = False) -> None:
        """Build the real content for ``controller`` (replaces the skeleton).

        In steps, the visible parts first: ``between_steps`` (the launcher passes the
        app's ``processEvents``) runs between them, so that the window's events are
        handled and no step holds the event loop for long. ``hold_sends``: the caller
        opens the chat afterwards (:func:`~desktop.ui.window.early_question.reopen_last_chat`);
        until then the composer, on screen a few steps earlier, holds what Enter asks
        to send (else it would go to a new chat, not the one the window then shows)."""
        self.controller = controller
        self._hold_sends = hold_sends
        # The skeleton was on screen: slow start-up work waits for a frame of the real
        # content (the frames between the steps do not count).
        self.start_work.wait_for_next_frame()
        self.start_work.held = True
        for step in (self._build_top_bar, self._build_side_panes, self._build_chat_pane,
                     self._build_content,
                     self._lay_out, self._build_helpers, self._connect, self._list_chats,
                     self._build_guides, self._fill):
            self.building = step.__name__.strip("_")  # (named in the start-up trace)
            # (also before the first: it ran on from the last load step without a pause,
            # one stall of both, 33-44 ms, named after that step)
            if between_steps is not None:
                between_steps()
            step()
        self.start_work.held = False
        self.update()  # (when shown) a frame of the new content runs the queued work

    def _build_top_bar(self) -> None:
        from desktop.ui.window.panels import ResponsivePanels
        from desktop.ui.window.top_bar import TopBar

        # The panes are made where they stay (see ResponsivePanels), in reading order
        # (Qt's focus chain is the order widgets are made in): moved in once built, each
        # was restyled again, and the body too (~20 ms of building the window)
        self._content = QWidget()
        # Fixed: the window never widens itself to fit its content (that shrinks instead)
        self._content.setMinimumSize(*WINDOW_CONTENT_MIN)
        self.top_bar = TopBar(self.controller, self.after_first_paint, self._content)
        self.panels = ResponsivePanels(self.state.splitter or list(DEFAULT_SPLITTER),
                                       self._content)

    def _build_side_panes(self) -> None:
        """(A step of its own: with the top bar, 25-45 ms, the longest of the building.)"""
        from desktop.ui.conversations.session_list import SessionList
        from desktop.ui.tools.sidebar import ToolSidebar

        self.sessions = SessionList(self.panels.splitter)
        self.sidebar = ToolSidebar(self.controller.bridge, self.panels.splitter)

    def _build_chat_pane(self) -> None:
        from desktop.ui.chat.chat_pane import ChatPane

        self.chat_pane = ChatPane(self.controller, self.panels.splitter,
                                  voice=self.controller.services.voice())

    def _build_content(self) -> None:
        """The panes in their layout, not shown yet (the skeleton stays until the next
        step: building it and showing it were one step of 30-40 ms)."""
        self._build_layout()

    def _lay_out(self) -> None:
        """The panes replace the skeleton; what was typed in it goes on in the composer."""
        skeleton = self.centralWidget()
        if isinstance(skeleton, StartupSkeleton):
            self.early_typing, self.early_chat = skeleton.take_typing(), skeleton.chosen_chat
            from desktop.core.records import SessionInfo

            # its first chats stay listed until the full list is read (next step)
            self.sessions.set_sessions([
                SessionInfo(c.id, c.title, c.created_at, c.updated_at, pinned=c.pinned)
                for c in skeleton.first_chats], None)
        if self._hold_sends:
            self.composer.hold_sends()
        self.setCentralWidget(self._content)
        self.sidebar_choice = self.state.sidebar_visible  # (None: not chosen yet)
        self.top_bar.set_sidebar_visible(self.sidebar_choice is True)
        self.panels.set_tools_visible(self.sidebar_choice is True)
        hand_over_typing(self.composer.input, self.early_typing)

    def _build_helpers(self) -> None:
        """The objects that are not panes (dialogs, tools, tray, quick ask...), menus."""
        from desktop import __version__
        from desktop.ui.chat.window_drops import WindowDrops
        from desktop.ui.conversations.conversation_actions import ConversationActions
        from desktop.ui.quick.quick_ask import QuickAsk
        from desktop.ui.window.attention import Attention
        from desktop.ui.window.dialog_launcher import DialogLauncher
        from desktop.ui.window.dialog_registry import DialogServices
        from desktop.ui.window.notifier import DesktopNotifier
        from desktop.ui.window.quit_guard import QuitGuard
        from desktop.ui.window.tool_activity import ToolActivity
        from desktop.ui.window.tray import AppTray
        from desktop.ui.window.update_notice import UpdateNotice

        controller = self.controller
        self.dialogs = DialogLauncher(
            DialogServices(controller, self.menuBar, lambda: self.sync), self)
        # files dropped anywhere attach to the chat (MCP bundles open their install form)
        WindowDrops(self, self.chat_pane, self.dialogs.install_extension)
        self.tool_activity = ToolActivity(controller, self.composer, self.sidebar, self)
        # New chat, Quick ask, Show/Hide, Quit
        self.tray = AppTray(self, controller.services.settings, lambda: self.quit_guard.box)
        self.notifier = DesktopNotifier(self, self.tray)
        # the small always-on-top window
        self.quick = QuickAsk(controller, controller.services.settings, self)
        self.attention = Attention(self)  # finished answers: announced, notified
        self.updates = UpdateNotice(self, __version__)  # at most daily, after the first frame
        self.quit_guard = QuitGuard(self, controller)
        self.conversations = ConversationActions(self)
        from desktop.ui.conversations.project_actions import ProjectActions

        self.project_actions = ProjectActions(self)  # the chat list's Projects, the page
        self.menus = WindowMenus(self)

    def _list_chats(self) -> None:
        self.refresh_sessions()

    def _build_guides(self) -> None:
        """The first-run guide and Compare (a step of its own: with the next one it
        held the window 20-30 ms)."""
        from desktop.ui.compare.launcher import CompareLauncher
        from desktop.ui.window.welcome_view import WelcomeGuide
        from desktop.ui.window.window_wiring import connect_compare, connect_welcome

        c = self.controller
        self.welcome = WelcomeGuide(c, c.services.providers, c.services.assistants,
                                    self.chat)  # first run
        self.compare = CompareLauncher(c, self.chat_pane, self.dialogs)  # Compare, Ask others
        connect_welcome(self)
        connect_compare(self)

    def _fill(self) -> None:
        """Providers, workspace and usage; the work that waits for a frame."""
        self.top_bar.refresh_providers()
        self._update_workspace()
        self.top_bar.show_usage(self.controller.history)
        if not self.early_typing.focused:
            QTimer.singleShot(0, self.composer.input.setFocus)
        self.after_first_paint(self.tool_activity.start_mcp)
        self.after_first_paint(self.updates.check)
        self.ready = self.filled_in = True

    # The chat pane owns these; most tests and the conversation actions reach them here.
    @property
    def chat(self) -> ChatView:
        return self.chat_pane.chat

    @property
    def composer(self) -> Composer:
        return self.chat_pane.composer

    def _build_layout(self) -> None:
        """Top bar over sessions | chat pane | tool activity (drawers when narrow)."""
        self.panels.place(self.sessions, self.chat_pane, self.sidebar)
        self.splitter = self.panels.splitter
        self.panels.set_tab_order(self.sessions.list, self.chat, self.composer.input)
        from desktop.ui.window.tab_order import TabOrder

        self.tab_order = TabOrder(self, lambda: (
            self.top_bar, self.panels.chats_button, self.sessions, self.chat, self.chat_pane,
            self.sidebar), lambda: self.chat)
        outer = QVBoxLayout(self._content)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        outer.addWidget(self.top_bar)
        outer.addWidget(self.panels, 1)

    def after_first_paint(self, callback: Callable[[], None]) -> None:
        self.start_work.add(callback)  # (the top bar's model list, MCP servers...)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._activated:
            # Ask for the keyboard focus when first shown: without a window manager
            # (a bare X server, a kiosk) nobody else activates the window, and Qt's
            # window shortcuts (Ctrl+N, Ctrl+K, ...) only work in the active window.
            self._activated = True
            self.activateWindow()

    def focusNextPrevChild(self, next: bool) -> bool:
        # Tab in reading order (top bar, chat list, messages, composer, Tool activity)
        order = getattr(self, "tab_order", None)  # (not in the start-up skeleton)
        return (order is not None and order.move(next)) or super().focusNextPrevChild(next)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        self.start_work.frame_painted()

    def run_start_work(self) -> None:  # (``assista quick`` calls it: no first frame comes)
        self.start_work.frame_painted()

    # -- menus and connections ------------------------------------------------------------

    def _connect(self) -> None:
        """Every connection between the pieces and the controller, in one place."""
        c, bar, pane, tools = self.controller, self.top_bar, self.chat_pane, self.tool_activity
        d, composer = self.dialogs, self.chat_pane.composer
        bar.providersRequested.connect(partial(d.open, "providers"))
        bar.assistantsRequested.connect(self.conversations.open_assistants)
        bar.sidebarToggled.connect(self.panels.set_tools_visible)
        bar.sidebarChosen.connect(self._sidebar_chosen)
        bar.statusChanged.connect(self._show_status)
        bar.choiceMade.connect(composer.input.setFocus)
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
        composer.toolToggled.connect(c.tool_switches.set_tool_enabled)
        composer.toolSettingsRequested.connect(partial(d.open, "tools"))
        composer.mcpSettingsRequested.connect(partial(d.open, "mcp"))
        pane.chat.regenerateRequested.connect(c.regenerate)
        pane.chat.branchStepRequested.connect(c.step_branch)

        self.sidebar.messageClicked.connect(pane.chat.scroll_to_message)
        self.sidebar.cancelRequested.connect(c.cancel_tool)
        self.sidebar.chatRequested.connect(c.open_session)
        c.bridge.approvalRequested.connect(self._approval_requested)
        self.sidebar.approvalShown.connect(tools.approval_shown)
        tools.revealRequested.connect(self._reveal_sidebar)
        c.bridge.toolRunStarted.connect(lambda _event: self._reveal_sidebar())
        c.toolsChanged.connect(tools.refresh_tools)
        c.confirmRequested.connect(self.chat.turn_status.show_confirm)
        self.chat.turn_status.confirmAnswered.connect(c.answer_confirm)
        c.bridge.runFinished.connect(self._run_finished)
        c.bridge.contextTrimmed.connect(lambda text: self.statusBar().showMessage(text, 15000))
        from desktop.ui.window.window_wiring import (
            connect_dialogs,
            connect_sync,
            connect_tray_and_quick,
        )

        connect_tray_and_quick(self)
        self.sync = connect_sync(self)  # runs on chat and settings changes, and a timer
        connect_dialogs(self)  # what follows from the dialogs

    # -- what the controller did ----------------------------------------------------------

    def refresh_sessions(self) -> None:
        """Redraw the chat list and its projects (a change here, or merged by sync)."""
        self.sessions.refresh(self.controller.session_id)
        projects = getattr(self, "project_actions", None)
        if projects is not None:
            projects.refresh()

    def _session_opened(self, session_id: str, messages: list[Message]) -> None:
        self.chat_pane.show_chat(messages)
        self.sidebar.show_history(messages)
        self.top_bar.show_usage(messages)
        if not session_id:
            self.sessions.list.clearSelection()

    def _user_message(self, message: Message) -> None:
        self.chat_pane.add_user_message(message)
        self.sidebar.begin_turn()  # (the controller has the chats listed again)

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
        self.dialogs.open("providers")

    def preferences_saved(self) -> None:
        self.refresh_sessions()
        self.statusBar().showMessage(self.tr("Preferences saved"), 5000)

    def _sidebar_chosen(self) -> None:
        self.sidebar_choice = self.panels.tools_shown()

    def _reveal_sidebar(self, asked: bool = False) -> None:
        """A tool runs or a call waits: Tool activity opens by itself (wide enough for an
        approval card) where there is room for it beside the chat, unless the user closed
        it; ``asked`` (Ctrl+Shift+A): wherever, as a drawer when narrow."""
        if not asked and (self.sidebar_choice is False or not self.panels.tools_inline()):
            return  # (the chat's own row has the approval's buttons)
        self.top_bar.set_sidebar_visible(True)
        self.panels.make_room_for_tools()

    def choose_workspace(self) -> None:
        from PySide6.QtWidgets import QFileDialog  # (its type: not before the window)

        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose workspace folder"),
                                                  self.controller.workspace() or "")
        if folder:
            self.controller.set_workspace(folder)

    def _update_workspace(self) -> None:
        self.composer.set_workspace(self.controller.workspace())
        self.tool_activity.refresh_tools()
        self._show_status()

    # -- the window itself ----------------------------------------------------------------

    def hide_to_tray(self) -> None:
        self.save_window_state()
        self.hide()

    def bring_to_front(self) -> None:  # (another start of the app, the tray, quick ask)
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()
        # A question or dialog open on the window stays in front of it: not every window
        # manager keeps a dialog above its window (nor is there always one).
        from PySide6.QtCore import Qt  # (its enums: not before the window shows)

        for dialog in self.findChildren(QDialog, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if dialog.isVisible() and dialog.isModal():
                dialog.raise_()
                dialog.activateWindow()

    def window_state(self) -> WindowState:
        """Size, place, pane widths and zoom, as they are now (saved on close)."""
        sizes = self.panels.sizes_to_save() if self.ready else []
        return WindowState(
            theme=self.state.theme,
            geometry=bytes(self.saveGeometry().toBase64().data()).decode("ascii"),
            splitter=sizes if len(sizes) == 3 and any(sizes) else self.state.splitter,
            sidebar_visible=self.sidebar_choice if self.ready else self.state.sidebar_visible,
            zoom=theme.zoom(),
        )

    def save_window_state(self) -> None:
        if not self.ready or not self._activated:  # (never shown: nothing to keep)
            return
        try:
            self.controller.services.save_window_state(self.window_state())
        except Exception:  # never lose the close over it
            window_log().exception("could not save the window's size and layout")

    def _approval_requested(self, pending: PendingApproval) -> None:
        """A chat (maybe one in the background) waits for the user: tell the desktop
        when the window is not the one in front."""
        request = pending.request
        self.notifier.approval_needed(pending.chat_title, request.tool, request.source)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.ready and self.tray.keeps_running():  # "Keep running in the tray"
            event.ignore()
            self.hide_to_tray()
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
