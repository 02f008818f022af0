"""How the window's helpers are connected: the tray, quick ask, the welcome, compare
and sync. Part of :meth:`MainWindow._connect`, the one place that wires the pieces.

The helpers never see the window: each is handed what it uses (the controller, a
service, the pane it covers) and says what it wants by a signal. What follows from
those signals, and which of the controller's signals each helper follows, is decided
here (qutebrowser's way: its status bar widgets never see the main window).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QCoreApplication

from desktop.ui.window.sync_scheduler import SyncScheduler, SyncStatusLabel

if TYPE_CHECKING:
    from PySide6.QtWidgets import QDialog

    from desktop.core.settings import ModelPrice
    from desktop.sync.run import SyncReport
    from desktop.ui.dialogs.settings_dialog import SettingsDialog
    from desktop.ui.providers.prices_dialog import PricesDialog
    from desktop.ui.providers.provider_dialog import ProviderDialog
    from desktop.ui.tools.mcp_dialog import McpDialog
    from desktop.ui.tools.tools_dialog import ToolsDialog
    from desktop.ui.window.main_window import MainWindow


def connect_tray_and_quick(window: MainWindow) -> None:
    """The tray and quick ask ask; the window does it."""
    tray, quick, c = window.tray, window.quick, window.controller

    def new_chat() -> None:
        c.new_session()
        window.composer.input.setFocus()

    def quick_hidden_alone() -> None:
        """Started as quick ask alone, and it was put away: quit (asking first when its
        answer is still coming), unless the app keeps running in the tray."""
        if tray.keeps_running():
            return
        quick.standalone = False
        tray.quit()

    tray.frontRequested.connect(window.bring_to_front)
    tray.newChatRequested.connect(new_chat)
    tray.quickAskRequested.connect(quick.open)
    tray.hideRequested.connect(window.hide_to_tray)
    quick.openInMainRequested.connect(c.open_session)
    quick.openInMainRequested.connect(lambda _id: window.bring_to_front())
    quick.answerFinished.connect(
        lambda title, text, failed, shown_in: window.notifier.answer_finished(
            title, text, failed=failed, shown_in=shown_in))
    quick.hiddenAlone.connect(quick_hidden_alone)


def connect_sync(window: MainWindow) -> SyncScheduler:
    """Sync runs a few seconds after the chats or the settings change, and on a timer;
    its label is in the status bar; after a run that merged something the window
    follows (settings re-read, the chat list and the chat on screen)."""
    c = window.controller
    sync = SyncScheduler(c.services.sync, window)
    label = SyncStatusLabel(sync)
    window.statusBar().addPermanentWidget(label)
    label.clicked.connect(lambda: window.dialogs.open("sync"))
    c.sessionsChanged.connect(sync.changed)
    c.bridge.runFinished.connect(lambda _event: sync.changed())
    unsubscribe = c.services.settings.subscribe(lambda _old, _new: sync.changed())
    sync.destroyed.connect(lambda *_: unsubscribe())

    def merged(report: SyncReport | None, _error: str) -> None:
        if report is None or not report.merged.changed:
            return
        if report.merged.settings_changed:
            c.services.settings.reload()
        window.refresh_sessions()
        current = c.session_id
        if current and current in report.merged.chats and not c.busy:
            c.open_session(current)

    sync.finished.connect(merged)
    app = QCoreApplication.instance()
    if app is not None:  # a run ends before the database closes
        app.aboutToQuit.connect(sync.shutdown)
    return sync


def connect_welcome(window: MainWindow) -> None:
    """The welcome follows the chat on screen; the chat on screen is remembered for the
    next start."""
    c, welcome, dialogs = window.controller, window.welcome, window.dialogs
    for signal in (c.sessionOpened, c.userMessageAdded, c.selectionChanged,
                   c.sessionsChanged):  # (and the Providers dialog: connect_dialogs)
        signal.connect(welcome.refresh)
    welcome.providersRequested.connect(lambda: dialogs.open("providers"))
    welcome.modelRequested.connect(window.top_bar.open_model_picker)
    welcome.askRequested.connect(window.composer.input.setFocus)
    welcome.assistantAdded.connect(c.profile.set_assistant)
    c.sessionOpened.connect(lambda session_id, _messages: c.remember_last_chat(session_id))
    c.userMessageAdded.connect(lambda _message: c.remember_last_chat(c.session_id))
    welcome.refresh()


def connect_compare(window: MainWindow) -> None:
    """Compare, "/compare" and a message's "Ask other models…"; the compare view
    follows the chat on screen and its approvals."""
    c, compare = window.controller, window.compare
    window.composer.compareRequested.connect(compare.choose_for_prompt)
    window.chat.askOthersRequested.connect(compare.choose_for_message)
    c.sessionOpened.connect(compare.session_opened)
    c.userMessageAdded.connect(lambda _message: compare.close_view())
    c.bridge.approvalRequested.connect(compare.approval_requested)
    c.bridge.approvalClosed.connect(compare.approval_closed)


def connect_dialogs(window: MainWindow) -> None:
    """What follows from the dialogs (:class:`DialogLauncher` hands each one over as it
    is built): the dialogs only say what they changed, by their own signals."""
    c, dialogs, bar, tools = window.controller, window.dialogs, window.top_bar, window.tool_activity

    def providers_changed() -> None:
        c.reload_settings()
        bar.refresh_providers()
        welcome = getattr(window, "welcome", None)  # (built a step later)
        if welcome is not None:
            welcome.refresh()

    def providers(dialog: QDialog) -> None:
        cast("ProviderDialog", dialog).providersChanged.connect(providers_changed)
        # (closing re-reads them too: a provider may have been removed unsaved)
        dialog.finished.connect(lambda _result: providers_changed())

    def prices_saved(prices: dict[str, ModelPrice]) -> None:
        c.update_settings(prices=prices)
        bar.show_usage(c.history)  # (the usage shown may cost something else now)

    def preferences(dialog: QDialog) -> None:
        settings = cast("SettingsDialog", dialog)
        settings.settingsSaved.connect(c.settings_saved)  # (the chat on screen follows)
        settings.settingsSaved.connect(window.preferences_saved)
        if window.ready:  # Desktop: whether the quick-ask shortcut is registered
            settings.desktop_tab.follow(window.quick.shortcut)

    def mcp(dialog: QDialog) -> None:
        servers = cast("McpDialog", dialog)
        servers.saved.connect(c.settings_saved)
        c.toolsChanged.connect(servers.refresh_status)  # (servers started, stopped)

        def closed(_result: int) -> None:
            with contextlib.suppress(RuntimeError, TypeError):
                c.toolsChanged.disconnect(servers.refresh_status)
            tools.refresh_tools()  # (the tools may have changed)

        servers.finished.connect(closed)

    wiring: dict[str, Callable[[QDialog], object]] = {
        "providers": providers,
        "prices": lambda dialog: cast("PricesDialog", dialog).pricesChanged.connect(
            prices_saved),
        "mcp": mcp,
        "preferences": preferences,
        "tools": lambda dialog: cast("ToolsDialog", dialog).saved.connect(
            lambda: c.settings_saved(tools=True)),
    }

    def opened(kind: str, dialog: QDialog) -> None:
        wire = wiring.get(kind)
        if wire is not None:
            wire(dialog)

    dialogs.opened.connect(opened)
    dialogs.extensionInstalled.connect(c.start_mcp)
    dialogs.extensionInstalled.connect(tools.refresh_tools)
