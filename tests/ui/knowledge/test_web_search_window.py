""""Search the web" from the chat-settings popover, the search service in Preferences,
and the results as numbered sources under the answer, in the real window."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import Qt

from desktop.app import AppContext
from desktop.chat.web_search import SECRET_ID
from desktop.ui.chat.message_widget import MessageWidget
from desktop.ui.dialogs.settings_dialog import SettingsDialog
from tests.support.openai_server import FakeOpenAIServer
from tests.support.search_servers import search_server
from tests.ui.conversation_helpers import add_provider, make_window, send


def test_web_switch_searches_and_the_results_are_sources(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    with search_server("searxng") as searx:
        dialog = SettingsDialog.for_window(window.dialogs.services, window)
        qtbot.addWidget(dialog)
        page = dialog.web_search
        page.service_combo.setCurrentIndex(page.service_combo.findData("searxng"))
        page.url_edit.setText(searx.url)
        assert dialog.save()
        assert ctx.settings.current.web_search_service == "searxng"
        bar = window.top_bar
        qtbot.mouseClick(bar.settings_button, Qt.MouseButton.LeftButton)
        popover = bar.chat_settings
        popover.web_check.setChecked(True)
        popover.hide()
        fake_server.enqueue_tool_calls([("web_search", '{"query": "assista notes"}')])
        fake_server.enqueue_text("Version 2 [1].")
        send(qtbot, window, "what is new?")
    assert searx.requests[0].query["q"] == ["assista notes"]
    session = window.controller.session_id or ""
    assert window.controller.service.chats.options(session).web_search is True
    widgets = [w for w in window.findChildren(MessageWidget) if w.role == "assistant"]
    rows = [row.text() for w in widgets for row in w.sources.rows]
    assert rows[:2] == ["1. Assista release notes  ·  https://example.org/notes",
                        "2. Another page  ·  https://example.net/page"]


def test_preferences_keep_the_key_in_the_key_store(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    dialog = SettingsDialog.for_window(window.dialogs.services, window)
    qtbot.addWidget(dialog)
    page = dialog.web_search
    page.service_combo.setCurrentIndex(page.service_combo.findData("searxng"))
    assert not dialog.save()  # SearXNG without an address
    assert "address" in dialog.error_label.text()
    page.service_combo.setCurrentIndex(page.service_combo.findData("brave"))
    assert page.key_edit.isEnabled()
    page.key_edit.setText("BSA-secret")
    assert dialog.save()
    assert ctx.secrets.get(SECRET_ID) == "BSA-secret"
    assert "BSA-secret" not in ctx.settings.current.model_dump_json()
