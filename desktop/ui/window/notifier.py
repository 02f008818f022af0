"""Desktop notifications for what happens while the user looks elsewhere.

Chats answer in the background, so an answer can finish or a tool call can wait for
approval while the window is behind another one (or hidden in the tray, or while the
user is in the quick-ask window). Then the desktop is told: a notification through
the tray icon where the desktop has one (clicking it brings the window forward), and
the window asks for attention (a flashing taskbar entry).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication, QWidget

from desktop.ui.plain_text import shown
from desktop.ui.tools.tool_names import display_name

if TYPE_CHECKING:
    from desktop.ui.window.tray import AppTray

log = logging.getLogger(__name__)
PREVIEW_CHARS = 160  # of an answer, in its notification


class DesktopNotifier(QObject):
    def __init__(self, window: QWidget, tray: AppTray | None = None) -> None:
        super().__init__(window)
        self.window = window
        self.tray = tray
        self.sent: list[tuple[str, str]] = []  # what was said (shown in the log, tests)

    def notify(self, title: str, text: str, *, shown_in: QWidget | None = None) -> bool:
        """Tell the desktop, unless the window where this shows (``shown_in``, by
        default the main window) is the one the user is using; returns whether
        anything was sent."""
        watched = shown_in or self.window
        if watched.isVisible() and watched.isActiveWindow():
            return False
        self.sent.append((title, text))
        log.info("notification: %s: %s", title, text)
        if self.tray is not None:
            self.tray.show_message(title, text)
        if self.window.isVisible():
            QApplication.alert(self.window)
        return True

    def answer_finished(self, chat_title: str, answer: str, *, failed: bool = False,
                        shown_in: QWidget | None = None) -> bool:
        """A chat's answer is done (or failed) while the user is elsewhere."""
        title = self.tr("Answer failed") if failed else self.tr("Answer ready")
        preview = " ".join(answer.split())
        if len(preview) > PREVIEW_CHARS:
            preview = preview[:PREVIEW_CHARS].rstrip() + "…"
        chat = chat_title or self.tr("A chat")
        return self.notify(title, f"{chat}: {preview}" if preview else chat, shown_in=shown_in)

    def approval_needed(self, chat_title: str, tool: str, source: str = "builtin") -> bool:
        """``tool``: as the model named it (``source``: "builtin" or an MCP server)."""
        return self.notify(self.tr("Approval needed"),
                           self.tr("{chat}: {tool} waits for your approval").format(
                               chat=shown(chat_title) or self.tr("A chat"),
                               tool=display_name(tool, source)))
