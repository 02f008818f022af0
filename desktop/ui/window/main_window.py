"""The main window: sessions | chat + composer | tool activity, with a top bar.

Built in two steps so that it can be on screen before the app has loaded: the
constructor makes the window itself (title, saved size, a skeleton of the layout);
:meth:`MainWindow.attach` fills it in once there is a controller. This module imports
only Qt classes at the top: the chat view, the models and the agent loop are imported
by ``attach``, and so are asyncio, logging and Qt's ``Qt`` namespace (creating its
enums alone takes ~13 ms), which the window does not need to show.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QTimer, QUrl
from PySide6.QtGui import QAction, QCloseEvent, QDesktopServices, QKeySequence, QPaintEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop import APP_NAME
from desktop.storage.window_state import WINDOW_STATE_KEY, WindowState
from desktop.ui import theme
from desktop.ui.window.helpers import delete_on_close, window_log
from desktop.ui.window.provider_controls import ProviderControls
from desktop.ui.window.startup_skeleton import DEFAULT_SPLITTER, StartupSkeleton
from desktop.ui.window.tool_controls import ToolControls

if TYPE_CHECKING:
    import asyncio

    from desktop.core.agent_events import RunFinished
    from desktop.core.messages import Message, Part
    from desktop.ui.chat.chat_view import ChatView
    from desktop.ui.chat.composer import Composer
    from desktop.ui.conversations.conversation_actions import ConversationActions
    from desktop.ui.conversations.session_list import SessionList
    from desktop.ui.tools.sidebar import ToolSidebar
    from desktop.ui.window.controller import ChatController

MENU_TITLES = ("&File", "&Chat", "&Settings", "&View", "&Help")


class MainWindow(ProviderControls, ToolControls, QMainWindow):
    sessions: SessionList
    chat: ChatView
    composer: Composer
    sidebar: ToolSidebar
    conversations: ConversationActions

    def __init__(self, controller: ChatController | None = None,
                 state: WindowState | None = None) -> None:
        super().__init__()
        self.setWindowTitle(APP_NAME)
        self.resize(1280, 820)
        self.state = state or WindowState()
        if self.state.geometry:
            self.restoreGeometry(QByteArray.fromBase64(self.state.geometry.encode("ascii")))
        self.ready = False  # True once attach() has filled the window in
        # Work that waits for the first frame (None once it is on screen)
        self._after_paint: list[Callable[[], None]] | None = []
        self.setCentralWidget(StartupSkeleton(APP_NAME, self.state.splitter,
                                              self.state.sidebar_visible))
        for title in MENU_TITLES:  # the real menus replace these in attach()
            self.menuBar().addMenu(title).setEnabled(False)
        self.statusBar().showMessage("Opening…")
        if controller is not None:
            self.attach(controller)

    def attach(self, controller: ChatController) -> None:
        """Build the real content for ``controller`` (replaces the skeleton)."""
        from PySide6.QtCore import Qt

        from desktop.ui.chat.chat_view import ChatView
        from desktop.ui.chat.composer import Composer
        from desktop.ui.conversations.conversation_actions import ConversationActions
        from desktop.ui.conversations.session_list import SessionList
        from desktop.ui.tools.sidebar import ToolSidebar

        self.controller = controller
        if self._after_paint is None:
            # The skeleton was on screen: slow start-up work (model list, MCP servers)
            # waits for the first frame of the real content.
            self._after_paint = []
        self._model_task: asyncio.Task[None] | None = None
        self._provider_dialog: QDialog | None = None
        self._confirm_box: QMessageBox | None = None
        self.tools_dialog: QDialog | None = None
        self.mcp_dialog: QDialog | None = None
        bridge = controller.bridge

        self.sessions = SessionList()
        self.chat = ChatView(bridge)
        self.composer = Composer()
        self.sidebar = ToolSidebar(bridge)
        self.error_banner = QLabel()
        self.error_banner.setObjectName("errorBanner")
        self.error_banner.setWordWrap(True)
        self.error_banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_banner.hide()
        self._editing: str | None = None  # the user message being edited, if any
        self.edit_banner = self._build_edit_banner()

        self.setCentralWidget(self._build_layout())
        self.conversations = ConversationActions(self)
        self.menuBar().clear()
        self._build_menus()
        self._connect()
        self.sidebar_button.setChecked(self.state.sidebar_visible)
        self.refresh_sessions()
        self.refresh_providers()
        self._update_workspace()
        self._show_usage(controller.history)
        QTimer.singleShot(0, self.composer.input.setFocus)
        self.after_first_paint(self._start_mcp)
        self.ready = True
        self.update()  # (when shown) a frame of the new content runs the queued work

    def _build_layout(self) -> QWidget:
        """Top bar over sessions | chat, banners and composer | tool activity."""
        from PySide6.QtCore import Qt

        center = QWidget()
        column = QVBoxLayout(center)
        column.setContentsMargins(0, 0, 0, 12)
        column.setSpacing(8)
        column.addWidget(self.chat, 1)
        for widget in (self.error_banner, self.edit_banner, self.composer):
            row = QHBoxLayout()
            row.setContentsMargins(24, 0, 24, 0)
            row.addWidget(widget)
            column.addLayout(row)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.sessions)
        self.splitter.addWidget(center)
        self.splitter.addWidget(self.sidebar)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes(self.state.splitter or list(DEFAULT_SPLITTER))
        self.splitter.setChildrenCollapsible(True)

        root = QWidget()
        outer = QVBoxLayout(root)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        outer.addWidget(self._build_top_bar())
        outer.addWidget(self.splitter, 1)
        return root

    def after_first_paint(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the window's first frame is painted (at once after
        that): slow start-up work (model list, MCP servers) must not delay it."""
        if self._after_paint is None:
            callback()
        elif callback not in self._after_paint:
            self._after_paint.append(callback)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self._after_paint is not None:
            callbacks, self._after_paint = self._after_paint, None
            # The next turn of the event loop: after this frame is flushed to the screen.
            QTimer.singleShot(0, lambda: [callback() for callback in callbacks])

    # -- construction ---------------------------------------------------------------------

    def _build_top_bar(self) -> QWidget:
        from PySide6.QtCore import Qt

        bar = QWidget()
        bar.setObjectName("topBar")
        bar.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        row = QHBoxLayout(bar)
        row.setContentsMargins(14, 8, 14, 8)
        title = QLabel(APP_NAME)
        title.setObjectName("appTitle")
        self.provider_combo = QComboBox()
        self.provider_combo.setAccessibleName("Provider")
        self.provider_combo.setMinimumWidth(200)
        self.model_combo = QComboBox()
        self.model_combo.setAccessibleName("Model")
        self.model_combo.setEditable(True)
        self.model_combo.setMinimumWidth(240)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        from desktop.ui.conversations.assistant_picker import AssistantPicker

        self.assistant_picker = AssistantPicker(self.controller)
        self.providers_button = QPushButton("Providers…")
        self.providers_button.setToolTip("Add or edit providers (Ctrl+,)")
        self.sidebar_button = QPushButton("Tool activity")
        self.sidebar_button.setCheckable(True)
        self.sidebar_button.setChecked(True)
        self.usage_label = QLabel("")
        self.usage_label.setObjectName("usageLabel")
        row.addWidget(title)
        row.addSpacing(16)
        row.addWidget(self.provider_combo)
        row.addWidget(self.model_combo)
        row.addWidget(self.assistant_picker)
        row.addWidget(self.providers_button)
        row.addStretch(1)
        row.addWidget(self.usage_label)
        row.addSpacing(8)
        row.addWidget(self.sidebar_button)
        return bar

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self._action(file_menu, "&New chat", QKeySequence.StandardKey.New,
                     self.controller.new_session)
        self._action(file_menu, "Choose &workspace folder…", None, self.choose_workspace)
        self.conversations.add_file_actions(file_menu)
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", QKeySequence.StandardKey.Quit, self.close)
        self.conversations.add_chat_menu(self.menuBar())
        settings_menu = self.menuBar().addMenu("&Settings")
        self.conversations.add_settings_actions(settings_menu)
        self._action(settings_menu, "&Providers…", QKeySequence("Ctrl+,"),
                     self.open_providers)
        self._action(settings_menu, "Model p&rices…", None, self.open_prices)
        self._action(settings_menu, "&Tools…", None, self.open_tools_settings)
        self._action(settings_menu, "&MCP servers…", None, self.open_mcp_settings)
        view_menu = self.menuBar().addMenu("&View")
        self._action(view_menu, "Toggle &tool activity", QKeySequence("Ctrl+B"),
                     self.sidebar_button.toggle)
        self._action(view_menu, "Focus &message box", QKeySequence("Ctrl+L"),
                     self.composer.input.setFocus)
        self._action(view_menu, "Go to pending &approval", QKeySequence("Ctrl+Shift+A"),
                     self._focus_approval)
        view_menu.addSeparator()
        for act in self.chat.view_actions():
            view_menu.addAction(act)
        for act, mode in zip(self.chat.theme_actions, ("system", "light", "dark"), strict=True):
            act.triggered.connect(partial(self.controller.update_settings, theme=mode))
        help_menu = self.menuBar().addMenu("&Help")
        self._action(help_menu, "Open &log folder", None, self.open_log_folder)
        self._action(help_menu, "&About", None, self.show_about)

    def _action(self, menu: QMenu, text: str,
                shortcut: QKeySequence | QKeySequence.StandardKey | None,
                slot: Callable[[], object]) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _connect(self) -> None:
        c = self.controller
        self.composer.sendRequested.connect(self.send)
        self.composer.stopRequested.connect(c.stop)
        self.composer.workspaceRequested.connect(self.choose_workspace)
        self.composer.attachRequested.connect(self.attach_files)
        self.sessions.bind(c)
        self.sidebar.messageClicked.connect(self.chat.scroll_to_message)
        self.sidebar.cancelRequested.connect(c.cancel_tool)
        self.sidebar.approvalShown.connect(self._approval_shown)
        self.composer.toolToggled.connect(c.set_tool_enabled)
        self.composer.toolSettingsRequested.connect(self.open_tools_settings)
        self.composer.mcpSettingsRequested.connect(self.open_mcp_settings)
        c.toolsChanged.connect(self._refresh_tools)
        c.sessionOpened.connect(lambda _id, _messages: self._refresh_tools())
        self.sidebar_button.toggled.connect(self.sidebar.setVisible)
        self.providers_button.clicked.connect(self.open_providers)
        self.provider_combo.activated.connect(self._provider_chosen)
        self.model_combo.activated.connect(self._model_chosen)
        model_edit = self.model_combo.lineEdit()
        if model_edit is not None:
            model_edit.editingFinished.connect(self._model_edited)
        c.sessionsChanged.connect(self.refresh_sessions)
        c.sessionOpened.connect(self._session_opened)
        c.userMessageAdded.connect(self._user_message)
        c.busyChanged.connect(self.composer.set_busy)
        c.busyChanged.connect(self._busy_changed)
        self.chat.branch_label = c.branch_label
        self.chat.editRequested.connect(self.start_edit)
        self.chat.regenerateRequested.connect(c.regenerate)
        self.chat.branchStepRequested.connect(c.step_branch)
        c.errorOccurred.connect(self.show_error)
        c.statusMessage.connect(self.statusBar().showMessage)
        c.providerMissing.connect(self._provider_missing)
        c.confirmRequested.connect(self._confirm_continue)
        c.selectionChanged.connect(self._update_workspace)
        c.bridge.runFinished.connect(self._run_finished)
        c.bridge.contextTrimmed.connect(lambda text: self.statusBar().showMessage(text, 15000))

    # -- sessions ------------------------------------------------------------------------

    def refresh_sessions(self) -> None:
        self.sessions.refresh(self.controller.session_id)

    def _build_edit_banner(self) -> QWidget:
        banner = QWidget()
        banner.setObjectName("editBanner")
        row = QHBoxLayout(banner)
        row.setContentsMargins(4, 0, 4, 0)
        label = QLabel("Editing an earlier message — Enter sends it as a new version; "
                       "the original and its answers are kept (‹ › switches).")
        label.setObjectName("emptyHint")
        label.setWordWrap(True)
        cancel = QPushButton("Cancel edit")
        cancel.clicked.connect(self.cancel_edit)
        row.addWidget(label, 1)
        row.addWidget(cancel)
        banner.hide()
        return banner

    def start_edit(self, message_id: str, text: str) -> None:
        if self.controller.busy:
            return
        self._editing = message_id
        self.composer.input.setPlainText(text)
        self.edit_banner.show()
        self.composer.input.setFocus()

    def cancel_edit(self) -> None:
        if self._editing is not None:
            self._editing = None
            self.composer.clear()
        self.edit_banner.hide()

    def _busy_changed(self, busy: bool) -> None:
        if not busy:
            self.chat.refresh_branch_labels()

    def _session_opened(self, session_id: str, messages: list[Message]) -> None:
        self.error_banner.hide()
        self._editing = None
        self.edit_banner.hide()
        self.chat.show_messages(messages)
        self.sidebar.show_history(messages)
        self._show_usage(messages)
        if not session_id:
            self.sessions.list.clearSelection()
        self.composer.input.setFocus()

    def _user_message(self, message: Message) -> None:
        self.error_banner.hide()
        self.composer.clear()
        self.chat.add_message(message)
        self.chat.scroll_to_bottom()
        self.sidebar.begin_turn()
        self.refresh_sessions()

    def send(self, text: str, attachments: list[Part] | None = None) -> None:
        if self._editing is not None:
            editing = self._editing
            if self.controller.edit_and_resend(editing, text):
                self._editing = None
                self.edit_banner.hide()
            return
        self.controller.send(text, attachments or [])

    def attach_files(self) -> None:
        paths, _filter = QFileDialog.getOpenFileNames(
            self, "Attach files", "",
            "Images and text (*.png *.jpg *.jpeg *.gif *.webp *.txt *.md *.py *.json *.csv "
            "*.log *.yaml *.yml *.toml *.xml *.html *.js *.ts *.rs *.go *.java *.c *.h *.cpp);;"
            "All files (*)")
        for path in paths:
            self.add_attachment(Path(path))

    def add_attachment(self, path: Path) -> bool:
        from desktop.core.attachments import load_attachment
        from desktop.core.errors import AssistaError

        try:
            part = load_attachment(path)
        except AssistaError as exc:
            self.show_error(str(exc))
            return False
        self.composer.add_attachment(path.name, part)
        return True

    def _run_finished(self, event: RunFinished) -> None:
        if self._confirm_box is not None and self._confirm_box.isVisible():
            self._confirm_box.reject()
        self._confirm_box = None
        self._show_usage(self.controller.history)
        if event.status == "limit":
            self.statusBar().showMessage("Stopped at the tool-round limit", 8000)
        elif event.status == "stopped":
            self.statusBar().showMessage("Stopped", 5000)
        else:
            self._update_status()
        self.composer.input.setFocus()

    def _show_usage(self, messages: list[Message]) -> None:
        from desktop.providers.pricing import Price
        from desktop.ui.chat.usage_text import format_usage, session_usage, usage_tooltip

        prices = {model: Price(p.input, p.output, p.cached_input)
                  for model, p in self.controller.settings.prices.items()}
        total = session_usage(messages, prices)
        self.usage_label.setText(format_usage(total))
        self.usage_label.setToolTip(usage_tooltip(total))
        self._update_status()

    def show_error(self, text: str) -> None:
        window_log().warning("shown to user: %s", text)
        self.error_banner.setText(text)
        self.error_banner.show()

    # -- providers and models -------------------------------------------------------------

    def choose_workspace(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Choose workspace folder",
                                                  self.controller.workspace() or "")
        if folder:
            self.controller.set_workspace(folder)

    def _update_workspace(self) -> None:
        self.composer.set_workspace(self.controller.workspace())
        self._refresh_tools()
        self._update_status()

    def open_log_folder(self) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.controller.ctx.paths.logs_dir)))

    def show_about(self) -> None:
        from desktop.ui.dialogs.about_dialog import AboutDialog

        dialog = AboutDialog(self)
        delete_on_close(dialog)
        dialog.open()

    def bring_to_front(self) -> None:
        """Another start of the app asked this window to come forward."""
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()

    def window_state(self) -> WindowState:
        """Size, place, pane widths and zoom, as they are now (saved on close)."""
        sizes = self.splitter.sizes() if self.ready else []
        return WindowState(
            theme=self.state.theme,
            geometry=bytes(self.saveGeometry().toBase64().data()).decode("ascii"),
            splitter=sizes if len(sizes) == 3 and any(sizes) else self.state.splitter,
            sidebar_visible=self.sidebar_button.isChecked() if self.ready
            else self.state.sidebar_visible,
            zoom=theme.zoom(),
        )

    def save_window_state(self) -> None:
        if not self.ready:
            return
        try:
            self.controller.ctx.settings_store.set_value(WINDOW_STATE_KEY,
                                                         self.window_state().to_json())
        except Exception:  # never lose the close over it
            window_log().exception("could not save the window's size and layout")

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.ready:
            self.save_window_state()
            self.controller.stop()
        super().closeEvent(event)
