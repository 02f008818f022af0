"""Research in the real window: its limits set in Preferences, the composer's Research
switch, the progress card above the composer following the run (plan, searches,
sources read, tokens, its end and why), and the cited report as the chat's answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import Qt

from desktop.app import AppContext
from desktop.ui.chat.message_widget import MessageWidget
from desktop.ui.dialogs.settings_dialog import SettingsDialog
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream
from tests.support.research_web import Page, research_web
from tests.ui.conversation_helpers import add_provider, make_window

PAGES = [Page("/tea", "Green tea", "Green tea has about 30 mg of caffeine a cup.",
              ("tea", "caffeine"))]


def test_the_progress_card_follows_a_research_run(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    with research_web(PAGES) as web:
        ctx.settings.update(fetch_allow_hosts=["127.0.0.1"])
        dialog = SettingsDialog.for_window(window.dialogs.services, window)
        qtbot.addWidget(dialog)
        page = dialog.web_search
        page.service_combo.setCurrentIndex(page.service_combo.findData("searxng"))
        page.url_edit.setText(web.url)
        page.rounds_spin.setValue(2)
        page.minutes_spin.setValue(10)
        page.cost_spin.setValue(0.0)  # no ceiling
        assert dialog.save()
        settings = ctx.settings.current
        assert (settings.research_max_rounds, settings.research_max_minutes,
                settings.research_max_cost) == (2, 10.0, 0.0)
        fake_server.enqueue_text("STEP: Look up caffeine in tea\nQUERY: caffeine in tea")
        held = ScriptedResponse(chunks=text_stream("DONE"), hold_after=1)
        fake_server.enqueue(held)  # "what next?" waits: the card shows round 1
        fake_server.enqueue_text("Green tea has about 30 mg of caffeine a cup [1].")
        pane = window.chat_pane
        card = pane.research_panel
        composer = window.composer
        qtbot.mouseClick(composer.research_button, Qt.MouseButton.LeftButton)
        assert composer.research_button.isChecked()
        qtbot.keyClicks(composer.input, "How much caffeine is in green tea?")
        qtbot.keyClick(composer.input, Qt.Key.Key_Return)
        assert not composer.research_button.isChecked()  # (one question researched)
        qtbot.waitUntil(lambda: card.isVisible() and "Sources read (1)" in card.pages.text(),
                        timeout=10000)
        assert card.plan.text() == "Plan:\n1. Look up caffeine in tea"
        assert card.searches.text() == "Searches (1):\n· caffeine in tea"
        assert card.pages.text() == "Sources read (1):\n[1] Green tea"
        assert "(round 1 of 2)" in card.title.text()
        assert "of 10:00" in card.figures.text() and "15 token" in card.figures.text()
        assert "cost unknown" in card.figures.text()
        assert not card.stop_line.isVisible()
        held.release()
        qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    qtbot.waitUntil(lambda: card.title.text() == "Research finished", timeout=5000)
    assert "45 token" in card.figures.text()
    assert not card.stop_line.isVisible()  # the model had what it needed: no limit
    answers = [w for w in window.findChildren(MessageWidget) if w.role == "assistant"]
    assert answers
    text = answers[-1].message.text
    assert text.startswith("Green tea has about 30 mg of caffeine a cup [1].")
    assert f"- [1] Green tea: {web.url}/tea" in text
    rows = [row.text() for row in answers[-1].sources.rows]
    assert rows == [f"1. Green tea  ·  {web.url}/tea"]
    qtbot.mouseClick(card.close_button, Qt.MouseButton.LeftButton)
    assert not card.isVisible()


def test_research_with_nothing_to_search_says_what_to_do_and_keeps_the_question(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    composer = window.composer
    qtbot.mouseClick(composer.research_button, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(composer.input, "Anything new on tides?")
    qtbot.keyClick(composer.input, Qt.Key.Key_Return)
    banner = window.chat_pane.error_banner
    qtbot.waitUntil(banner.isVisible, timeout=5000)
    assert banner.text().startswith("Research needs something to search")
    assert composer.input.toPlainText() == "Anything new on tides?"  # nothing lost
    assert composer.research_button.isChecked()  # still on, for once it can search
    assert not fake_server.chat_requests and ctx.sessions.list_sessions() == []


def test_stop_keeps_a_report_of_what_was_found_and_the_card_says_so(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    with research_web(PAGES) as web:
        ctx.settings.update(web_search_service="searxng", web_search_url=web.url,
                            fetch_allow_hosts=["127.0.0.1"])
        fake_server.enqueue_text("QUERY: caffeine in tea")
        held = ScriptedResponse(chunks=text_stream("QUERY: black tea"), hold_after=1)
        fake_server.enqueue(held)
        card = window.chat_pane.research_panel
        composer = window.composer
        composer.research_button.setChecked(True)
        qtbot.keyClicks(composer.input, "How much caffeine is in green tea?")
        qtbot.keyClick(composer.input, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: "Sources read (1)" in card.pages.text(), timeout=10000)
        assert composer.send_button.text() == "Stop"
        qtbot.mouseClick(composer.send_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
        held.release()
    qtbot.waitUntil(card.stop_line.isVisible, timeout=5000)
    assert card.stop_line.text() == "Stopped; the report holds what was found so far."
    assert card.title.text() == "Research finished"
    [stored] = [m for m in ctx.sessions.load_messages(window.controller.session_id or "")
                if m.role == "assistant"]
    assert stored.status == "stopped"
    assert "Green tea has about 30 mg of caffeine a cup. [1]" in stored.text
    assert f"- [1] Green tea: {web.url}/tea" in stored.text
    answers = [w for w in window.findChildren(MessageWidget) if w.role == "assistant"]
    assert answers and answers[-1].message.text == stored.text  # shown as stored
