"""An answer's header at any width: who answered and when is never elided while an
action or the figures are shown (they move into ⋯ first), and every version of an
answer (‹ 1/2 ›) keeps Copy and Regenerate as the newest does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtWidgets import QWidget

from desktop.app import AppContext
from desktop.ui.chat.message_header import MessageHeader
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window, send


def header_state(window: MainWindow) -> tuple[MessageHeader, bool]:
    """The last answer's header, and whether its actions are on the row."""
    controller = window.controller
    widget = window.chat.widget_for(controller.history[-1].id)
    assert widget is not None
    header = widget.header_row
    return header, header.copy_button.isVisible() and header.branch_bar.action.isVisible()


def check_row(header: MessageHeader) -> bool:
    title = header.title
    whole = title.fontMetrics().horizontalAdvance(title.text())
    extras = [header.copy_button, header.branch_bar.action, header.tokens_label]
    if any(w.isVisible() for w in extras):
        assert title.contentsRect().width() >= whole, (
            f"title elided to {title.width()} px (needs {whole}) beside shown actions")
    shown = [w for w in header.findChildren(QWidget) if w.isVisible()
             and w.parentWidget() in (header, header.branch_bar)]
    for widget in shown:
        box = widget.geometry()
        if widget.parentWidget() is header.branch_bar:
            box.translate(header.branch_bar.pos())
        assert header.rect().contains(box), (widget.accessibleName(), box, header.width())
    return True


def test_every_version_keeps_its_actions_and_the_title_is_whole(
    qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    window.resize(1400, 900)
    fake_server.enqueue_text("First answer.")
    send(qtbot, window, "hello")
    controller = window.controller
    fake_server.enqueue_text("Second answer.")
    with qtbot.waitSignal(controller.bridge.runFinished, timeout=10000):
        controller.regenerate(controller.history[-1].id)
    qtbot.waitUntil(lambda: not controller.busy)
    for width in (1400, 1200, 1100, 1000, 900, 800, 700):
        window.resize(width, 900)
        qtbot.waitUntil(lambda w=width: window.width() == w)  # type: ignore[misc]
        assert controller.branch_label(controller.history[-1].id) == "2/2"
        # (once the layouts have settled)
        qtbot.waitUntil(lambda: check_row(header_state(window)[0]))
        newest, newest_actions = header_state(window)
        row_width = newest.width()
        controller.step_branch(controller.history[-1].id, -1)
        assert controller.branch_label(controller.history[-1].id) == "1/2"
        qtbot.waitUntil(lambda w=row_width: header_state(window)[0].width() == w  # type: ignore[misc]
                        and check_row(header_state(window)[0]))
        _older, older_actions = header_state(window)
        assert older_actions == newest_actions, f"at {width} px"
        if width == 1400:
            assert older_actions  # room enough: on the row for every version
        controller.step_branch(controller.history[-1].id, 1)
