"""The top bar tells one story after Compare: the provider box, the model button and
the status line name the chat's provider and model; "Keep this one" makes the kept
answer's provider and model the chat's (the next message goes there)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import QPoint, Qt

from desktop.app import AppContext
from desktop.ui.compare.chooser import CompareChooser
from desktop.ui.compare.view import COLUMN_MIN_WIDTH
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream
from tests.ui.compare.test_compare_window import add_providers, servers
from tests.ui.conversation_helpers import make_window, send

__all__ = ["servers"]  # (the fixture: three loopback servers)


def bar_story(window: MainWindow) -> tuple[str, str, str]:
    """(provider box, model button, status line) as shown."""
    bar = window.top_bar
    return (bar.provider_combo.currentText(), bar.model_button.full_text,
            window.statusBar().currentMessage())


def test_after_compare_and_keep_the_bar_and_the_chat_agree(
        qtbot: Any, qt_loop: qasync.QEventLoop, servers: list[FakeOpenAIServer],
        open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    configs = add_providers(ctx, servers)
    window = make_window(qtbot, ctx)
    assert bar_story(window)[:2] == ("Server A", "model-a")
    for server, text in zip(servers[1:], ["B answers.", "C answers."], strict=True):
        server.enqueue(ScriptedResponse(chunks=text_stream(text)))
    qtbot.keyClicks(window.composer.input, "Which one?")
    qtbot.mouseClick(window.composer.compare_button, Qt.MouseButton.LeftButton)
    chooser = window.dialogs.current("compare")
    assert isinstance(chooser, CompareChooser)
    chooser.toggle(configs[0].id, "model-a")  # not the chat's model: B and C
    chooser.toggle(configs[1].id, "model-b")
    chooser.toggle(configs[2].id, "model-c")
    qtbot.mouseClick(chooser.compare_button, Qt.MouseButton.LeftButton)
    launcher = window.compare
    qtbot.waitUntil(lambda: launcher.view is not None and launcher.view.run.done,
                    timeout=10000)
    controller = window.controller
    config = controller.provider()
    assert config is not None and (config.name, controller.model()) == ("Server B", "model-b")
    provider, model, status = bar_story(window)
    assert (provider, model) == ("Server B", "model-b")
    assert status.startswith("Server B · model-b")

    view = launcher.view
    assert view is not None
    qtbot.waitUntil(view.columns[1].keep_button.isEnabled, timeout=5000)
    qtbot.mouseClick(view.columns[1].keep_button, Qt.MouseButton.LeftButton)  # C's
    qtbot.waitUntil(lambda: launcher.view is None, timeout=5000)
    config = controller.provider()
    assert config is not None and (config.id, controller.model()) == (configs[2].id, "model-c")
    provider, model, status = bar_story(window)
    assert (provider, model) == ("Server C", "model-c")
    assert status.startswith("Server C · model-c")
    servers[2].enqueue(ScriptedResponse(chunks=text_stream("C again.")))
    send(qtbot, window, "And then?")
    assert servers[2].last_chat_body["model"] == "model-c"
    assert [m.text for m in controller.history][-2:] == ["And then?", "C again."]
    # reopened later, the chat is still on the kept model
    session = controller.session_id or ""
    controller.new_session()
    controller.open_session(session)
    assert bar_story(window)[:2] == ("Server C", "model-c")


def test_picking_a_model_changes_this_chat_only(
        qtbot: Any, qt_loop: qasync.QEventLoop, servers: list[FakeOpenAIServer],
        open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    configs = add_providers(ctx, servers[:1])
    servers[0].models = ["model-a", "model-x"]
    window = make_window(qtbot, ctx)
    bar = window.top_bar
    bar.open_model_picker()
    bar.picker.search.setText("model-x")
    qtbot.keyClick(bar.picker.search, Qt.Key.Key_Return)
    assert window.controller.model() == "model-x"
    assert bar_story(window)[1] == "model-x"
    assert bar_story(window)[2].startswith("Server A · model-x")
    # the provider's own default model is unchanged: a new chat starts on it
    stored = next(p for p in ctx.providers.all() if p.id == configs[0].id)
    assert stored.model == "model-a"
    window.controller.new_session()
    assert window.controller.model() == "model-a"
    assert bar_story(window)[:2] == ("Server A", "model-a")


def visible_parts(view: Any) -> list[str]:
    """Each column as the viewport shows it: "whole", "hidden" or "cut"."""
    viewport = view.strip_area.viewport()
    parts = []
    for column in view.all_columns():
        box = column.geometry().translated(column.parentWidget().mapTo(viewport, QPoint(0, 0)))
        inside = viewport.rect().intersected(box)
        parts.append("whole" if inside == box else "hidden" if inside.isEmpty() else "cut")
    return parts


def test_compare_columns_are_shown_whole_at_1400_with_the_tool_panel_open(
        qtbot: Any, qt_loop: qasync.QEventLoop, servers: list[FakeOpenAIServer],
        open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    configs = add_providers(ctx, servers)
    window = make_window(qtbot, ctx)
    window.resize(1400, 900)
    qtbot.waitUntil(lambda: window.width() == 1400)
    window.top_bar.set_sidebar_visible(True)  # Tool activity open beside the chat
    for server in servers:
        server.enqueue(ScriptedResponse(chunks=text_stream("An answer.")))
    servers[0].enqueue(ScriptedResponse(chunks=text_stream("Another answer.")))
    qtbot.keyClicks(window.composer.input, "Four models?")
    qtbot.mouseClick(window.composer.compare_button, Qt.MouseButton.LeftButton)
    chooser = window.dialogs.current("compare")
    assert isinstance(chooser, CompareChooser)
    for config in configs[1:]:
        chooser.toggle(config.id, config.model)
    chooser.toggle(configs[0].id, "model-a2")
    qtbot.mouseClick(chooser.compare_button, Qt.MouseButton.LeftButton)
    launcher = window.compare
    qtbot.waitUntil(lambda: launcher.view is not None and launcher.view.run.done,
                    timeout=10000)
    view = launcher.view
    assert view is not None and len(view.all_columns()) == 4
    bar = view.strip_area.horizontalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)  # four do not fit beside the tool panel
    seen: set[int] = set()
    while True:  # step by step to the end: never a column cut at an edge
        parts = visible_parts(view)
        assert "cut" not in parts, (bar.value(), parts)
        assert parts.count("whole") >= 1
        seen |= {i for i, part in enumerate(parts) if part == "whole"}
        if bar.value() >= bar.maximum():
            break
        bar.triggerAction(bar.SliderAction.SliderSingleStepAdd)
    assert seen == {0, 1, 2, 3}  # each column was shown whole on the way
    assert all(c.width() >= COLUMN_MIN_WIDTH for c in view.all_columns())
    bar.setValue(bar.maximum() // 2 + 7)  # a drag let go anywhere: to a column's start
    bar.sliderReleased.emit()
    assert "cut" not in visible_parts(view)
