"""The window at any size: side panels turn into drawers when narrow, nothing overlaps
or is clipped at 640×480, and the window never resizes itself."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QAbstractButton, QApplication, QComboBox, QLineEdit, QWidget

from desktop.app import AppContext
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.window.test_main_window import add_provider, make_window, send

CONTROLS = (QAbstractButton, QComboBox, QLineEdit)


def _in_window(widget: QWidget, window: QWidget) -> QRect:
    return QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())


def layout_problems(area: QWidget, window: QWidget) -> list[str]:
    """Visible controls in ``area`` that stick out of the window, are narrower than
    their content needs (clipped text), or overlap another control."""
    controls = [w for w in area.findChildren(QWidget)
                if isinstance(w, CONTROLS) and w.isVisibleTo(window)
                and not w.visibleRegion().isEmpty()]
    problems = []
    for widget in controls:
        name = widget.accessibleName() or widget.objectName() or type(widget).__name__
        rect = _in_window(widget, window)
        if not window.rect().contains(rect):
            problems.append(f"{name} sticks out: {rect} not in {window.rect()}")
        hint = widget.minimumSizeHint()
        if isinstance(widget, QAbstractButton) and widget.width() < hint.width():
            problems.append(f"{name} clipped: {widget.width()} < {hint.width()}")
    for index, first in enumerate(controls):
        for second in controls[index + 1:]:
            if first.isAncestorOf(second) or second.isAncestorOf(first):
                continue
            if first.parentWidget() is second.parentWidget() and _in_window(
                    first, window).intersects(_in_window(second, window)):
                problems.append(f"{first.accessibleName() or first.objectName()} overlaps "
                                f"{second.accessibleName() or second.objectName()}")
    return problems


def _sized(qtbot: Any, ctx: AppContext, width: int, height: int) -> MainWindow:
    window = make_window(qtbot, ctx)
    window.resize(width, height)
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.size().width() == width)
    window.activateWindow()  # (window shortcuts work in the active window only)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    return window


def test_the_window_never_resizes_itself(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = _sized(qtbot, ctx, 640, 480)
    assert window.minimumSizeHint().width() <= 640
    send(qtbot, window, "a question with a reasonably long line of text in it " * 3)
    first = window.controller.session_id
    assert window.size().toTuple() == (640, 480)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    qtbot.keyClick(window.composer.input, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.controller.session_id != first)
    assert window.size().toTuple() == (640, 480)
    window.controller.open_session(first)
    qtbot.waitUntil(lambda: window.controller.session_id == first)
    assert window.size().toTuple() == (640, 480)


def test_narrow_windows_show_the_side_panels_as_drawers(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = _sized(qtbot, ctx, 1400, 900)
    panels = window.panels
    assert panels.chats_inline() and panels.tools_inline()
    assert [window.splitter.indexOf(w) for w in (window.sessions, window.chat_pane,
                                                 window.sidebar)] == [0, 1, 2]
    assert not panels.chats_button.isVisible()

    window.resize(900, 700)
    qtbot.waitUntil(lambda: not panels.tools_inline())
    assert panels.chats_inline() and window.splitter.indexOf(window.sidebar) == -1
    # Tool activity was on: now a drawer, closed until asked for (it would cover the chat)
    assert not panels.tools_drawer.isVisible()
    window.top_bar.toggle_sidebar()
    assert panels.tools_drawer.isVisible()
    assert panels.tools_drawer.geometry().right() == panels.rect().right()
    qtbot.keyClick(window.sidebar, Qt.Key.Key_Escape)
    assert not panels.tools_drawer.isVisible()
    window.top_bar.toggle_sidebar()
    assert panels.tools_drawer.isVisible()
    window.top_bar.toggle_sidebar()
    assert not panels.tools_drawer.isVisible()

    window.resize(640, 480)
    qtbot.waitUntil(lambda: not panels.chats_inline())
    button = panels.chats_button
    assert button.isVisible() and button.toolTip() and button.accessibleName()
    assert not panels.chats_drawer.isVisible()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert panels.chats_drawer.isVisible() and window.sessions.isVisible()
    assert panels.chats_drawer.geometry().width() < window.width()
    window.controller.new_session()  # picking a chat closes the drawer
    qtbot.waitUntil(lambda: not panels.chats_drawer.isVisible())

    window.resize(1400, 900)  # back: all inline, at the widths they had
    qtbot.waitUntil(lambda: panels.chats_inline() and panels.tools_inline())
    assert window.splitter.indexOf(window.sessions) == 0
    assert window.splitter.sizes()[0] >= 150


def test_no_control_overlaps_or_is_clipped_at_640x480(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = _sized(qtbot, ctx, 640, 480)
    send(qtbot, window, "hello")
    # (Stop turning back into Send is restyled: its row lays out again at the next turn
    # of the event loop)
    qtbot.waitUntil(lambda: layout_problems(window.panels, window) == [])
    window.panels.show_chat_list(True)
    window.panels.show_tools_drawer(True)
    assert layout_problems(window.panels, window) == []
