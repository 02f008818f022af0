"""The tray and quick ask work with only what they are handed (a plain widget, the
settings, a controller) and say what they want by signals; the main window wires
them. Built here without a main window at all."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QWidget

from desktop.app import AppContext
from desktop.ui.quick.quick_ask import QuickAsk
from desktop.ui.window.controller import ChatController
from desktop.ui.window.tray import AppTray

PORTABLE = QKeySequence.SequenceFormat.PortableText


def test_the_tray_asks_by_signals_and_handles_only_a_widget(
    qtbot: Any, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    window = QWidget()
    qtbot.addWidget(window)
    tray = AppTray(window, ctx.settings, lambda: None)
    heard: list[str] = []
    for name in ("frontRequested", "newChatRequested", "quickAskRequested", "hideRequested"):
        getattr(tray, name).connect(lambda name=name: heard.append(name))
    tray.new_chat_action.trigger()
    tray.quick_action.trigger()
    assert heard == ["frontRequested", "newChatRequested", "quickAskRequested"]
    window.show()
    qtbot.waitExposed(window)
    heard.clear()
    tray.show_action.trigger()  # shown: Hide asks the window to go away
    window.hide()
    tray.show_action.trigger()  # hidden: Show asks for it in front
    assert heard == ["hideRequested", "frontRequested"]

    tray.available = lambda: True  # type: ignore[method-assign]  # (no tray offscreen)
    assert not tray.keeps_running()
    ctx.settings.update(keep_in_tray=True)  # read from the settings it was handed
    assert tray.keeps_running()

    quits: list[bool] = []
    tray.quit_app = lambda: quits.append(True)
    window.show()
    tray.quit_action.trigger()  # nothing answering (no question): closes and quits
    assert quits == [True] and not window.isVisible()


def test_quick_ask_says_what_the_main_window_should_do(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    window = QWidget()
    qtbot.addWidget(window)
    controller = ChatController(ctx)
    quick = QuickAsk(controller, ctx.settings, window)
    try:
        action = quick.menu_action()  # with the keys the settings name
        assert action.shortcut().toString(PORTABLE) == ctx.settings.current.quick_shortcut
        shown = quick.open()
        assert shown.controller is not controller  # its own adapter...
        assert shown.controller.service is controller.service  # ...on the same service
        chat = ctx.sessions.create_session("Kept chat")
        shown.controller.open_session(chat.id)
        with qtbot.waitSignal(quick.openInMainRequested, timeout=1000) as opened:
            shown.open_in_main()
        assert opened.args == [chat.id]

        assert not shown.isVisible()
        quick.open()
        quick.standalone = True  # started alone, the main window hidden
        with qtbot.waitSignal(quick.hiddenAlone, timeout=1000):
            shown.hide()
        ctx.settings.update(quick_shortcut="Ctrl+Alt+K")  # follows the settings handed
        assert action.shortcut().toString(PORTABLE) == "Ctrl+Alt+K"
    finally:
        quick.close()
