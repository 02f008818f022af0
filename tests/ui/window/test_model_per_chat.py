"""A model and request settings per chat from the top bar: the model picker filters
as you type and keeps favourites and recent models; the chat-settings popover's values
reach the request; the bar fits a 640 px window without overlapping or clipping."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from desktop.app import AppContext
from desktop.ui.window.elided import ElidedButton, ElidingComboBox
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.window.test_main_window import add_provider, make_window, send


def _cache_models(ctx: AppContext, ids: list[str]) -> None:
    config = ctx.providers.all()[0]
    ctx.settings_store.set_value(f"models:{config.id}", [{"id": i} for i in ids])


def test_picker_filters_as_you_type_and_the_model_is_the_chats(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    _cache_models(ctx, ["gpt-test", "gpt-4o", "claude-sonnet-4", "llava:13b"])
    window = make_window(qtbot, ctx)
    bar = window.top_bar
    qtbot.mouseClick(bar.model_button, Qt.MouseButton.LeftButton)
    picker = bar.picker
    assert picker.isVisible() and picker.search.hasFocus()
    assert set(picker.visible_models()) >= {"gpt-test", "gpt-4o", "claude-sonnet-4"}
    qtbot.keyClicks(picker.search, "son")
    assert picker.visible_models() == ["claude-sonnet-4"]
    row = picker.list.item(picker.first_model_row())
    assert {"tools", "images", "reasoning", "200K", "$3/$15"} <= set(
        row.data(Qt.ItemDataRole.UserRole).badges())
    picker.search.clear()
    qtbot.keyClicks(picker.search, "images 128k")  # badges are searched too
    assert picker.visible_models() == ["gpt-4o"]
    qtbot.keyClick(picker.search, Qt.Key.Key_Return)
    assert not picker.isVisible()
    assert window.controller.model() == "gpt-4o"
    assert bar.model_button.full_text == "gpt-4o"

    fake_server.enqueue_text("Hi.")
    send(qtbot, window, "first chat")
    assert fake_server.last_chat_body["model"] == "gpt-4o"
    first = window.controller.session_id
    # another chat, another model; the first keeps its own
    window.controller.new_session()
    window.controller.set_model("gpt-test")
    fake_server.enqueue_text("Hello.")
    send(qtbot, window, "second chat")
    assert fake_server.last_chat_body["model"] == "gpt-test"
    window.controller.open_session(first or "")
    assert bar.model_button.full_text == "gpt-4o"
    fake_server.enqueue_text("Again.")
    send(qtbot, window, "back in the first")
    assert fake_server.last_chat_body["model"] == "gpt-4o"

    # Recent lists the picked model first; a star makes it a favourite
    bar.open_model_picker()
    titles = [picker.list.item(i).text() for i in range(picker.list.count())]
    assert titles[:2] == ["Recent", "gpt-4o"]
    picker.delegate.starClicked.emit(picker.list.item(1).data(Qt.ItemDataRole.UserRole))
    titles = [picker.list.item(i).text() for i in range(picker.list.count())]
    assert titles[:2] == ["Favourites", "gpt-4o"]
    # a model id that is not listed is taken as typed
    picker.search.setText("my-finetune")
    assert picker.visible_models() == [] and picker.empty_label.isVisibleTo(picker)
    qtbot.keyClick(picker.search, Qt.Key.Key_Return)
    assert window.controller.model() == "my-finetune"


def test_chat_settings_reach_the_request_of_that_chat_only(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    bar = window.top_bar
    qtbot.mouseClick(bar.settings_button, Qt.MouseButton.LeftButton)
    popover = bar.chat_settings
    assert popover.isVisible()
    popover.temperature_check.setChecked(True)
    popover.temperature_spin.setValue(0.4)
    popover.max_tokens_spin.setValue(900)
    popover.effort_combo.setCurrentIndex(popover.effort_combo.findData("low"))
    popover.effort_combo.activated.emit(popover.effort_combo.currentIndex())
    popover.hide()
    fake_server.enqueue_text("Tuned.")
    send(qtbot, window, "tuned chat")
    body = fake_server.last_chat_body
    assert (body["temperature"], body["max_tokens"]) == (0.4, 900)
    session = window.controller.session_id or ""
    assert window.controller.service.plan(session).request.reasoning_effort == "low"
    # a new chat starts from the defaults again
    window.controller.new_session()
    fake_server.enqueue_text("Plain.")
    send(qtbot, window, "plain chat")
    body = fake_server.last_chat_body
    assert "temperature" not in body and "max_tokens" not in body
    # the popover shows the first chat's values again, and resets them
    window.controller.open_session(session)
    bar.open_chat_settings()
    assert popover.temperature_spin.value() == pytest.approx(0.4)
    assert popover.max_tokens_spin.value() == 900
    popover.reset()
    assert window.controller.service.chats.options(session).is_default()


def _overlaps(widgets: list[QWidget]) -> list[tuple[str, str]]:
    boxes = [(w.accessibleName() or w.objectName() or type(w).__name__, w.geometry())
             for w in widgets]
    return [(a, b) for i, (a, ra) in enumerate(boxes) for b, rb in boxes[i + 1:]
            if ra.intersects(rb)]


@pytest.mark.parametrize("width", [640, 800, 1024, 1400])
def test_the_top_bar_fits_without_overlap_or_clipping(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], width: int,
) -> None:
    ctx = open_ctx()
    config = add_provider(ctx, fake_server)
    ctx.settings_store.save_provider(config.model_copy(update={
        "name": "A provider with a rather long name",
        "model": "some-vendor/an-extremely-long-model-name-preview-2025-06-01"}))
    ctx.assistants.create("An assistant with a long name", "x")
    window = make_window(qtbot, ctx)
    window.resize(width, 480)
    qtbot.waitUntil(lambda: window.width() == width)
    bar = window.top_bar
    qtbot.waitUntil(lambda: bar.width() == width)
    shown = [w for w in bar.findChildren(QWidget) if w.isVisible() and w.parent() is bar]
    assert bar.model_button in shown and bar.assistant_picker in shown
    assert _overlaps(shown) == []
    for widget in shown:
        geometry = widget.geometry()
        assert bar.rect().contains(geometry), widget.accessibleName()
        assert geometry.width() >= widget.minimumSizeHint().width(), widget.accessibleName()
    # long texts are elided, never cut
    full = bar.model_button.full_text
    text = bar.model_button.text()
    assert text == full or ("…" in text and bar.model_button.fontMetrics().horizontalAdvance(
        text) <= bar.model_button.width())
    for combo in (bar.provider_combo, bar.assistant_picker):
        assert isinstance(combo, ElidingComboBox)
        assert combo.shown_text() == combo.currentText() or "…" in combo.shown_text()
    assert isinstance(bar.model_button, ElidedButton)
    assert bar.compact == (width < 900)
    if width == 640:
        assert bar.providers_button.text() == "" and not bar.providers_button.icon().isNull()


def test_the_model_picker_opens_from_the_keyboard(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.composer.input.setFocus()
    picker = window.top_bar.picker
    assert not picker.isVisible()
    qtbot.keyClick(window.composer.input, Qt.Key.Key_M,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(picker.isVisible)
    assert picker.search.hasFocus()
