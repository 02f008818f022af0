"""Helpers shared by the conversation-management window tests (sessions, search,
assistants, settings, import/export)."""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMenu

from desktop.app import AppContext
from desktop.core.messages import Message, TextPart
from desktop.core.settings import ProviderConfig
from desktop.ui.window.controller import ChatController
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer

DAY = 86400.0


def make_window(qtbot: Any, ctx: AppContext) -> MainWindow:
    window = MainWindow(ChatController(ctx))
    qtbot.addWidget(window)
    window.show()
    return window


def add_provider(ctx: AppContext, server: FakeOpenAIServer) -> ProviderConfig:
    config = ProviderConfig(name="Loopback", preset="custom", base_url=server.base_url,
                            model="gpt-test")
    ctx.settings_store.save_provider(config)
    ctx.secrets.set(config.id, "sk-loopback-key-123456")
    ctx.settings.update(active_provider_id=config.id)
    return config


def send(qtbot: Any, window: MainWindow, text: str) -> None:
    window.composer.input.setFocus()
    qtbot.keyClicks(window.composer.input, text)
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)


def system_text(body: dict[str, Any]) -> str:
    """The system prompt of a Chat Completions request body."""
    first = body["messages"][0]
    assert first["role"] == "system"
    content = first["content"]
    return content if isinstance(content, str) else " ".join(p["text"] for p in content)


def text_message(role: str, text: str) -> Message:
    return Message(role=role, parts=[TextPart(text=text)])


def make_chat(ctx: AppContext, title: str, *texts: str, age_days: float = 0.0) -> str:
    """A stored chat alternating user/assistant messages, last changed ``age_days`` ago."""
    info = ctx.sessions.create_session(title)
    for i, text in enumerate(texts):
        ctx.sessions.save_message(info.id, text_message("user" if i % 2 == 0 else "assistant",
                                                        text))
    if age_days:
        ctx.db.execute("UPDATE sessions SET updated_at = ? WHERE id = ?",
                       (time.time() - age_days * DAY, info.id))
    return info.id


def trigger_menu(qtbot: Any, window: MainWindow, session_id: str, text: str) -> None:
    """Open the chat's context menu in the list and trigger the entry ``text``."""
    sessions = window.sessions
    item = sessions.item_for(session_id)
    assert item is not None, f"{session_id} is not in the list"
    before = set(sessions.findChildren(QMenu))
    sessions._menu(sessions.list.visualItemRect(item).center())
    menus = [m for m in sessions.findChildren(QMenu) if m not in before]
    assert menus, "no context menu"
    menu = menus[-1]
    labels = [a.text() for a in menu.actions()]
    action = next((a for a in menu.actions() if a.text() == text), None)
    assert action is not None, f"{text!r} not in {labels}"
    menu.close()
    action.trigger()
    QApplication.processEvents()
