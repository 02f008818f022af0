"""Compare in the window: three models (three loopback servers) stream side by side,
and "Keep this one" makes that answer the chat's active branch (others: ‹ n/m ›)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt

from desktop.app import AppContext
from desktop.core.settings import ProviderConfig
from desktop.ui.compare.chooser import CompareChooser
from desktop.ui.compare.column import CompareColumnView
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream
from tests.ui.conversation_helpers import make_window

ANSWERS = ["Model A says **one** thing.", "Model B says another.", "Model C disagrees."]


@pytest.fixture
def servers() -> Iterator[list[FakeOpenAIServer]]:
    with FakeOpenAIServer(models=["model-a"]) as a, FakeOpenAIServer(models=["model-b"]) as b, \
            FakeOpenAIServer(models=["model-c"]) as c:
        yield [a, b, c]


def add_providers(ctx: AppContext, servers: list[FakeOpenAIServer]) -> list[ProviderConfig]:
    configs = []
    for letter, server in zip("ABC", servers, strict=False):
        config = ProviderConfig(name=f"Server {letter}", preset="custom",
                                base_url=server.base_url, model=f"model-{letter.lower()}")
        ctx.settings_store.save_provider(config)
        ctx.secrets.set(config.id, f"sk-{letter}-key-0123456")
        configs.append(config)
    ctx.settings.update(active_provider_id=configs[0].id)
    return configs


def column_text(view: CompareColumnView) -> str:
    first = view.column.first_id
    widget = view.chat.widget_for(first) if first is not None else None
    return widget.plain_text() if widget is not None else ""


def choose(qtbot: Any, window: Any, configs: list[ProviderConfig]) -> CompareChooser:
    chooser = window.dialogs.current("compare")
    assert isinstance(chooser, CompareChooser)
    assert chooser.chosen == [(configs[0].id, "model-a")]  # the chat's model, picked already
    assert not chooser.compare_button.isEnabled()  # one is not a comparison
    for config in configs[1:]:
        chooser.toggle(config.id, config.model)
    assert chooser.compare_button.isEnabled()
    return chooser


def test_compare_three_models_streams_three_columns_and_keep_makes_it_active(
        qtbot: Any, qt_loop: qasync.QEventLoop, servers: list[FakeOpenAIServer],
        open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    configs = add_providers(ctx, servers)
    window = make_window(qtbot, ctx)
    held = [ScriptedResponse(chunks=text_stream(text, 4), hold_after=3) for text in ANSWERS]
    for server, response in zip(servers, held, strict=True):
        server.enqueue(response)
    qtbot.keyClicks(window.composer.input, "Which is right?")
    qtbot.mouseClick(window.composer.compare_button, Qt.MouseButton.LeftButton)
    chooser = choose(qtbot, window, configs)
    qtbot.mouseClick(chooser.compare_button, Qt.MouseButton.LeftButton)

    launcher = window.compare
    qtbot.waitUntil(lambda: launcher.view is not None, timeout=5000)
    view = launcher.view
    assert view is not None and len(view.columns) == 3
    assert not window.chat.isVisible() and view.isVisible()
    assert window.composer.input.toPlainText() == ""
    # all three stream at once: each holds part-way with some text on screen
    qtbot.waitUntil(lambda: all(r.holding.is_set() for r in held), timeout=10000)
    qtbot.waitUntil(lambda: all(column_text(c) for c in view.columns), timeout=10000)
    assert window.controller.busy
    for response in held:
        response.release()
    qtbot.waitUntil(lambda: view.run.done, timeout=10000)
    for column, text in zip(view.columns, ANSWERS, strict=True):
        qtbot.waitUntil(lambda c=column: c.keep_button.isEnabled(), timeout=5000)
        assert column_text(column) == text
        first = column.column.first_id
        widget = column.chat.widget_for(first) if first else None
        assert widget is not None and widget.plain_body_text() == text.replace("**", "")
        figures = column.figures.text()
        assert " in · " in figures and "tok/s" in figures and "first token" in figures
    assert [c.column.target.model for c in view.columns] == ["model-a", "model-b", "model-c"]
    # names from servers are text, never markup
    assert all(c.title.textFormat() == Qt.TextFormat.PlainText for c in view.columns)
    assert "&lt;" not in view.columns[0].title.toolTip()
    assert view.columns[0].title.toolTip().startswith("<p") and "model-a" in \
        view.columns[0].title.toolTip()

    qtbot.mouseClick(view.columns[1].keep_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: launcher.view is None, timeout=5000)
    assert window.chat.isVisible()
    controller = window.controller
    assert [m.text for m in controller.history] == ["Which is right?", ANSWERS[1]]
    answer = controller.history[1]
    assert controller.branch_label(answer.id) == "2/3"
    assert [m.text for m in ctx.sessions.load_messages(controller.session_id or "")] == [
        "Which is right?", ANSWERS[1]]
    shown = window.chat.widget_for(answer.id)
    assert shown is not None and shown.branch_bar.label.text() == "2/3"


def test_compare_typed_in_the_composer_opens_the_chooser_with_the_rest_as_question(
        qtbot: Any, qt_loop: qasync.QEventLoop, servers: list[FakeOpenAIServer],
        open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    configs = add_providers(ctx, servers[:2])
    window = make_window(qtbot, ctx)
    servers[0].enqueue(ScriptedResponse(chunks=text_stream("A.")))
    servers[1].enqueue(ScriptedResponse(chunks=text_stream("B.")))
    qtbot.keyClicks(window.composer.input, "/compare Two views please")
    qtbot.keyClick(window.composer.input, Qt.Key.Key_Return)
    chooser = window.dialogs.current("compare")
    assert isinstance(chooser, CompareChooser)
    chooser.toggle(configs[1].id, "model-b")
    chooser.accept()
    qtbot.waitUntil(lambda: window.compare.view is not None, timeout=5000)
    view = window.compare.view
    qtbot.waitUntil(lambda: view.run.done, timeout=10000)
    assert view.run.question.text == "Two views please"
    assert servers[1].last_chat_body["messages"][-1]["content"] == "Two views please"
    qtbot.mouseClick(view.back_button, Qt.MouseButton.LeftButton)
    assert window.compare.view is None
    assert [m.text for m in window.controller.history] == ["Two views please", "A."]


def test_compare_without_a_question_says_what_to_do(
        qtbot: Any, qt_loop: qasync.QEventLoop, servers: list[FakeOpenAIServer],
        open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    add_providers(ctx, servers[:2])
    window = make_window(qtbot, ctx)
    qtbot.mouseClick(window.composer.compare_button, Qt.MouseButton.LeftButton)
    assert window.dialogs.current("compare") is None
    assert window.chat_pane.error_banner.isVisible()
    assert "question" in window.chat_pane.error_banner.text()


def test_keep_while_another_streams_stops_it_and_returns_to_the_kept_answer(
        qtbot: Any, qt_loop: qasync.QEventLoop, servers: list[FakeOpenAIServer],
        open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    configs = add_providers(ctx, servers[:2])
    window = make_window(qtbot, ctx)
    slow = ScriptedResponse(chunks=text_stream("Slow and long " * 20, 4), hold_after=3)
    servers[0].enqueue(slow)
    servers[1].enqueue(ScriptedResponse(chunks=text_stream("Quick.")))
    window.composer.input.setPlainText("Race")
    window.compare.start(window.compare.targets([(c.id, c.model) for c in configs]))
    view = window.compare.view
    assert view is not None
    qtbot.waitUntil(lambda: view.columns[1].keep_button.isEnabled() and slow.holding.is_set(),
                    timeout=10000)
    assert view.columns[0].stop_button.isEnabled()  # still streaming
    qtbot.mouseClick(view.columns[1].keep_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.compare.view is None, timeout=10000)
    controller = window.controller
    assert [m.text for m in controller.history] == ["Race", "Quick."]
    assert controller.branch_label(controller.history[1].id) == "2/2"
    stopped = [m for m in ctx.sessions.load_all_messages(controller.session_id or "")
               if m.model == "model-a"]
    assert [m.status for m in stopped] == ["stopped"]


def test_an_approval_shows_in_the_column_that_asks(
        qtbot: Any, qt_loop: qasync.QEventLoop, servers: list[FakeOpenAIServer],
        open_ctx: Callable[..., AppContext]) -> None:
    from tests.support.openai_server import tool_call_stream

    ctx = open_ctx()
    configs = add_providers(ctx, servers[:2])
    window = make_window(qtbot, ctx)
    servers[0].enqueue(ScriptedResponse(chunks=text_stream("No tools needed.")))
    servers[1].enqueue(ScriptedResponse(chunks=tool_call_stream(
        [("fetch_url", '{"url": "https://example.com/page"}')])))
    servers[1].enqueue(ScriptedResponse(chunks=text_stream("Fine, without the page.")))
    window.composer.input.setPlainText("Look it up")
    window.compare.start(window.compare.targets([(c.id, c.model) for c in configs]))
    view = window.compare.view
    assert view is not None
    asking = view.columns[1].chat.turn_status
    qtbot.waitUntil(lambda: asking.kind == "approval", timeout=10000)
    assert view.columns[0].chat.turn_status.kind != "approval"
    qtbot.mouseClick(asking.approval_buttons["deny"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.run.done, timeout=10000)
    assert [c.column.status for c in view.columns] == ["complete", "complete"]
    assert column_text(view.columns[0]) == "No tools needed."
    answer = [m for m in view.columns[1].column.answer if m.role == "assistant"]
    assert answer[-1].text == "Fine, without the page."
    assert answer[0].tool_calls[0].name == "fetch_url"


def test_ask_other_models_from_an_answers_menu(
        qtbot: Any, qt_loop: qasync.QEventLoop, servers: list[FakeOpenAIServer],
        open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    configs = add_providers(ctx, servers)
    window = make_window(qtbot, ctx)
    servers[0].enqueue(ScriptedResponse(chunks=text_stream("The first answer.")))
    window.composer.input.setPlainText("A question")
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        window.chat_pane.send("A question")
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    answer = window.controller.history[1]
    widget = window.chat.widget_for(answer.id)
    assert widget is not None
    header = widget.header_row
    header._fill_more_menu()
    action = next(a for a in header.more_menu.actions() if a.text() == "Ask other models…")
    action.trigger()
    chooser = window.dialogs.current("compare")
    assert isinstance(chooser, CompareChooser)
    assert chooser.chosen == [] and not chooser.compare_button.isEnabled()
    chooser.toggle(configs[1].id, "model-b")
    assert chooser.compare_button.isEnabled()  # one other model is enough here
    servers[1].enqueue(ScriptedResponse(chunks=text_stream("A second opinion.")))
    chooser.accept()
    view = window.compare.view
    assert view is not None
    qtbot.waitUntil(lambda: view.run.done, timeout=10000)
    assert view.run.question.id == window.controller.history[0].id
    earlier = view.earlier  # the answer asked about, first, as stored
    assert earlier is not None and earlier.title.text() == "model-a"
    shown = earlier.chat.widget_for(answer.id)
    assert shown is not None and shown.plain_body_text() == "The first answer."
    assert "in · " in earlier.figures.text()
    qtbot.mouseClick(view.columns[0].keep_button, Qt.MouseButton.LeftButton)
    assert [m.text for m in window.controller.history] == ["A question", "A second opinion."]
    assert window.controller.branch_label(window.controller.history[1].id) == "2/2"


def test_a_columns_message_actions_say_to_keep_it_first(
        qtbot: Any, qt_loop: qasync.QEventLoop, servers: list[FakeOpenAIServer],
        open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    configs = add_providers(ctx, servers[:2])
    window = make_window(qtbot, ctx)
    for server in servers[:2]:
        server.enqueue(ScriptedResponse(chunks=text_stream("Done.")))
    window.composer.input.setPlainText("Hi")
    window.compare.start(window.compare.targets([(c.id, c.model) for c in configs]))
    view = window.compare.view
    assert view is not None
    qtbot.waitUntil(lambda: view.run.done, timeout=10000)
    column = view.columns[0]
    first = column.column.first_id
    widget = column.chat.widget_for(first or "")
    assert widget is not None
    widget.branch_bar.action.click()  # Regenerate, in a column
    assert "Keep this answer first" in column.state.text() and column.state.isVisible()
    assert [m.text for m in ctx.sessions.load_all_messages(view.run.session_id)
            if m.role == "assistant"] == ["Done.", "Done."]  # nothing was started


def test_a_message_sent_after_the_compare_follows_the_answer_shown(
        qtbot: Any, qt_loop: qasync.QEventLoop, servers: list[FakeOpenAIServer],
        open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    configs = add_providers(ctx, servers[:2])
    window = make_window(qtbot, ctx)
    servers[0].enqueue(ScriptedResponse(chunks=text_stream("From A.")))
    servers[1].enqueue(ScriptedResponse(chunks=text_stream("From B.")))
    window.composer.input.setPlainText("First")
    window.compare.start(window.compare.targets([(c.id, c.model) for c in configs]))
    view = window.compare.view
    assert view is not None
    qtbot.waitUntil(lambda: view.run.done and not window.controller.busy, timeout=10000)
    assert window.compare.view is view  # still comparing: nothing kept yet
    servers[0].enqueue(ScriptedResponse(chunks=text_stream("Next from A.")))
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        window.chat_pane.send("Second")
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    assert window.compare.view is None and window.chat.isVisible()
    texts = [m.text for m in window.controller.history]
    assert texts == ["First", "From A.", "Second", "Next from A."]
    shown = [window.chat.widget_for(m.id) for m in window.controller.history]
    assert all(w is not None for w in shown)  # the chat on screen has them all, in order
