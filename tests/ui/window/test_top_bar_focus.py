"""Picking a model hands the keyboard back to the composer: what is typed next is the
message, never a model id. Real key events on the real window, started as the app
starts (the skeleton first, then the loaded window)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from desktop.app import AppContext
from desktop.chat.model_catalog import CHOICES_KEY
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider
from tests.ui.window.test_early_typing import load, skeleton_window

SPECIAL = {"\n": Qt.Key.Key_Return, "\x1b": Qt.Key.Key_Escape}


def _type(text: str) -> None:
    """Keys as the window system delivers them: to the window that has the keyboard
    (a popup while one is open), which hands them to its focus widget."""
    for char in text:
        target: QWidget | None = QApplication.activePopupWidget() or QApplication.activeWindow()
        assert target is not None and target.windowHandle() is not None
        if char in SPECIAL:
            QTest.keyClick(target.windowHandle(), SPECIAL[char])
        else:
            QTest.keyClick(target.windowHandle(), char)


def test_the_message_typed_after_picking_a_model_goes_to_the_composer(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window, _skeleton = skeleton_window(qtbot, ctx)
    load(window, ctx)
    bar = window.top_bar
    qtbot.waitUntil(lambda: len(bar.models) == 2, timeout=10000)
    picker = bar.picker
    qtbot.mouseClick(bar.model_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(picker.isVisible)
    _type("other\n")  # the search finds gpt-other; Enter picks it
    qtbot.waitUntil(lambda: not picker.isVisible())
    assert window.controller.model() == "gpt-other"
    qtbot.waitUntil(window.composer.input.hasFocus)
    fake_server.enqueue_text("Hi.")
    with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
        _type("hello world\n")
    assert not picker.isVisible()
    assert window.controller.model() == "gpt-other"
    sent = fake_server.last_chat_body
    assert sent["model"] == "gpt-other"
    assert sent["messages"][-1]["content"] == "hello world"
    assert "hello world" not in str(ctx.settings_store.get_value(CHOICES_KEY))


def test_typing_into_the_top_bar_never_changes_the_model(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window, _skeleton = skeleton_window(qtbot, ctx)
    load(window, ctx)
    bar = window.top_bar
    # Tabbed to on purpose, the model button opens the picker with Space; a sentence
    # typed there is not a model id.
    bar.model_button.setFocus(Qt.FocusReason.TabFocusReason)
    _type(" ")
    qtbot.waitUntil(bar.picker.isVisible)
    _type("hello world\n")
    assert window.controller.model() == "gpt-test"
    assert bar.picker.isVisible() and bar.picker.empty_label.isVisible()
    assert "space" in bar.picker.empty_label.text()
    _type("\x1b")  # Escape closes it
    qtbot.waitUntil(lambda: not bar.picker.isVisible())
    assert window.controller.model() == "gpt-test"


def test_a_model_list_arriving_after_a_refused_sentence_keeps_the_refusal(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    """The provider's model list may arrive after Enter refused a sentence (a slow
    server, a loaded machine): the picker lists it again and still says why nothing
    changed (it said "No model matches" again, as if Enter had not been pressed)."""
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window, _skeleton = skeleton_window(qtbot, ctx)
    load(window, ctx)
    bar = window.top_bar
    bar.model_button.setFocus(Qt.FocusReason.TabFocusReason)
    _type(" ")
    qtbot.waitUntil(bar.picker.isVisible)
    _type("hello world\n")
    assert "space" in bar.picker.empty_label.text()
    bar.picker.refresh()  # what the model list's arrival does to an open picker
    assert "space" in bar.picker.empty_label.text()
    _type("!")  # typing on is a new search: the usual hint again
    assert "No model matches" in bar.picker.empty_label.text()
    _type("\x1b")
    qtbot.waitUntil(lambda: not bar.picker.isVisible())
    assert window.controller.model() == "gpt-test"


def test_the_top_bars_boxes_leave_the_keyboard_with_the_composer(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    """A box of the bar opened with the mouse does not keep the keyboard: letters typed
    next are not a search of its items (which picked "Other" for an "o")."""
    ctx = open_ctx()
    config = add_provider(ctx, fake_server)
    ctx.settings_store.save_provider(config.model_copy(update={"id": "prov_other",
                                                               "name": "Other"}))
    ctx.assistants.create("Opinionated", "Argue.")
    window, _skeleton = skeleton_window(qtbot, ctx)
    load(window, ctx)
    bar = window.top_bar
    composer = window.composer.input
    composer.setFocus()
    for box in (bar.provider_combo, bar.assistant_picker):
        qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda b=box: b.view().isVisible())  # type: ignore[misc]
        box.hidePopup()  # (closed without a choice)
        qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None)
        qtbot.waitUntil(composer.hasFocus)
    window.activateWindow()  # (the offscreen platform leaves a closed popup active)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    _type("oo")
    assert composer.toPlainText() == "oo"
    provider = window.controller.provider()
    assert provider is not None and provider.name == "Loopback"
    assert window.controller.profile.assistant() is None
