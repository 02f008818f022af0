"""Tool activity (issue 24): closed at first, opening by itself when a tool runs, the
user's choice kept across restarts; waiting approval cards readable whole; and in a
narrow window, the chat's approval buttons and Send never under the panel."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget

from desktop.app import AppContext
from desktop.storage.window_state import read_window_state
from desktop.ui.window.controller import ChatController
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.chat.test_turn_status import type_and_send
from tests.ui.conversation_helpers import add_provider, send

TWO_CALLS = [("write_file", json.dumps({"path": "notes.txt", "content": "hello\n" * 30})),
             ("run_command", json.dumps({"command": "echo done"}))]


def _window(qtbot: Any, ctx: AppContext, width: int, height: int,
            tmp_path: Path | None = None) -> MainWindow:
    window = MainWindow(ChatController(ctx), state=read_window_state(ctx.paths.db_path))
    qtbot.addWidget(window)
    window.resize(width, height)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.width() == width)
    if tmp_path is not None:
        workspace = tmp_path / "ws"
        workspace.mkdir(parents=True, exist_ok=True)
        window.controller.set_workspace(str(workspace))
    return window


def _in(widget: QWidget, ancestor: QWidget) -> QRect:
    return QRect(widget.mapTo(ancestor, widget.rect().topLeft()), widget.size())


def test_closed_at_first_opens_for_a_tool_and_keeps_the_users_choice(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = _window(qtbot, ctx, 1400, 900, tmp_path)
    assert not window.sidebar.isVisible() and not window.top_bar.sidebar_visible()
    assert window.chat_pane.width() > 1000  # the chat has the room
    (tmp_path / "ws" / "a.txt").write_text("alpha\n")
    read = json.dumps({"files": [{"path": "a.txt"}]})
    fake_server.enqueue_tool_calls([("read_file", read)])
    fake_server.enqueue_text("It says alpha.")
    send(qtbot, window, "read a.txt")
    assert window.sidebar.isVisible() and window.top_bar.sidebar_visible()  # by itself
    assert window.sidebar.cards  # the call is listed
    # the user closes it: it stays closed when the next tool runs, and after a restart
    qtbot.mouseClick(window.top_bar.sidebar_button, Qt.MouseButton.LeftButton)
    assert not window.sidebar.isVisible()
    fake_server.enqueue_tool_calls([("read_file", read)])
    fake_server.enqueue_text("Still alpha.")
    send(qtbot, window, "again")
    assert not window.sidebar.isVisible()
    window.close()
    assert read_window_state(ctx.paths.db_path).sidebar_visible is False
    again = _window(qtbot, ctx, 1400, 900)
    assert not again.sidebar.isVisible()
    # the user opens it: it starts open from then on
    window = again
    qtbot.mouseClick(window.top_bar.sidebar_button, Qt.MouseButton.LeftButton)
    assert window.sidebar.isVisible()
    window.close()
    assert read_window_state(ctx.paths.db_path).sidebar_visible is True
    third = _window(qtbot, ctx, 1400, 900)
    assert third.sidebar.isVisible() and third.top_bar.sidebar_visible()


def test_several_waiting_cards_are_whole_in_the_panels_one_scrolling_column(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = _window(qtbot, ctx, 1400, 900, tmp_path)
    fake_server.enqueue_tool_calls(TWO_CALLS)
    fake_server.enqueue_text("Done.")
    type_and_send(qtbot, window, "write and run")
    sidebar = window.sidebar
    qtbot.waitUntil(lambda: len(sidebar.approval_cards) == 2, timeout=10000)
    qtbot.waitUntil(sidebar.isVisible)
    cards = list(sidebar.approval_cards.values())
    viewport = sidebar.scroll_area.viewport()
    for card in cards:
        scroll = card.parentWidget()
        while scroll is not None and not isinstance(scroll, QScrollArea):
            scroll = scroll.parentWidget()
        assert scroll is sidebar.scroll_area  # no small scroll area of their own
        qtbot.waitUntil(lambda c=card: c.height() >= c.minimumSizeHint().height())
    # the first card shows whole; scrolling the panel brings the second one whole
    qtbot.waitUntil(lambda: viewport.rect().contains(_in(cards[0], viewport)))
    sidebar.scroll_area.ensureWidgetVisible(cards[1], 0, 0)
    qtbot.waitUntil(lambda: viewport.rect().contains(_in(cards[1], viewport)))
    window.controller.stop()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)


def test_narrow_windows_keep_the_inline_buttons_and_send_uncovered(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext], tmp_path: Path,
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    for width, height in ((800, 600), (640, 480)):
        window = _window(qtbot, ctx, width, height, tmp_path / str(width))
        panels, status = window.panels, window.chat.turn_status
        fake_server.enqueue_tool_calls(TWO_CALLS)
        fake_server.enqueue_text("Done.")
        type_and_send(qtbot, window, "write and run")
        qtbot.waitUntil(lambda s=status: len(s.approvals) == 2, timeout=10000)
        assert not panels.tools_inline()
        assert not panels.tools_drawer.isVisible()  # not over the chat by itself
        # the user opens Tool activity: it takes its place beside the chat, not over it
        window.activateWindow()
        qtbot.waitUntil(lambda w=window: QApplication.activeWindow() is w)
        qtbot.keyClick(window.composer.input, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
        assert panels.tools_drawer.isVisible() and window.sidebar.approval_cards
        window.chat.scroll_to_bottom()
        drawer = panels.tools_drawer.geometry()
        # the chat list went to its drawer: the chat has all the rest of the width
        assert not panels.chats_inline() and not panels.chats_drawer.isVisible()
        assert _in(window.chat_pane, panels).right() < drawer.left()
        assert window.chat_pane.width() >= drawer.left() - 10
        buttons = [*status.approval_buttons.values(),
                   *status.more_rows[0].buttons.values(), window.composer.send_button]
        # (the composer's buttons take their short forms on the resize; their row is
        # laid out again when the posted layout request is handled)
        qtbot.waitUntil(lambda b=buttons, p=panels: all(
            p.rect().contains(_in(button, p)) for button in b), timeout=5000)
        for button in buttons:
            assert button.isVisibleTo(window)
            assert not _in(button, panels).intersects(drawer), (width, button.text())
            assert panels.rect().contains(_in(button, panels)), (width, button.text())
        # and they answer: deny both from the chat's rows
        qtbot.mouseClick(status.more_rows[0].buttons["deny"], Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda s=status: len(s.approvals) == 1, timeout=10000)
        with qtbot.waitSignal(window.controller.bridge.runFinished, timeout=10000):
            qtbot.mouseClick(status.approval_buttons["deny"], Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda w=window: not w.controller.busy, timeout=10000)
        window.close()
