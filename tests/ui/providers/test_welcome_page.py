"""The first-run page of the Providers dialog: its preset buttons reflow to the width
they are given (down to one column) instead of pushing a horizontal scroll bar."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QPushButton, QScrollArea

from desktop.app import AppContext
from desktop.ui.providers.provider_dialog import ProviderDialog
from desktop.ui.providers.welcome_page import WelcomePage

SCREENS = [(1400, 900), (1024, 700), (800, 600), (640, 480)]


def preset_buttons(page: WelcomePage) -> list[QPushButton]:
    return page.findChildren(QPushButton)


@pytest.mark.parametrize(("width", "height"), SCREENS)
def test_presets_fit_the_first_run_dialog_without_horizontal_scrolling(
    qtbot: Any, open_ctx: Callable[..., AppContext], width: int, height: int,
) -> None:
    dialog = ProviderDialog(open_ctx().providers)
    qtbot.addWidget(dialog)
    assert dialog.stack.currentWidget() is dialog.welcome
    # as fit_to_screen sizes it on that screen
    dialog.resize(min(820, int(width * 0.95)), min(520, int(height * 0.95)))
    dialog.show()
    qtbot.waitExposed(dialog)
    area = next(a for a in dialog.findChildren(QScrollArea) if a.widget() is dialog.stack)
    qtbot.waitUntil(lambda: not area.horizontalScrollBar().isVisible())
    assert area.horizontalScrollBar().maximum() == 0
    viewport = area.viewport()
    room = QRect(QPoint(0, 0), viewport.size())
    for button in preset_buttons(dialog.welcome):
        assert button.isVisible()
        top_left = button.mapTo(viewport, QPoint(0, 0))
        shown = QRect(top_left, button.size())
        # the whole button across (a vertical scroll is fine), its text not cut
        assert room.left() <= shown.left() and shown.right() <= room.right(), button.text()
        assert button.width() >= button.sizeHint().width(), button.text()


def test_preset_grid_reflows_down_to_one_column(qtbot: Any) -> None:
    page = WelcomePage()
    qtbot.addWidget(page)
    buttons = preset_buttons(page)
    widest = max(button.sizeHint().width() for button in buttons)

    def columns() -> int:
        return len({button.x() for button in buttons})

    page.resize(widest * 3 + 60, 600)
    page.show()
    qtbot.waitExposed(page)
    qtbot.waitUntil(lambda: columns() == 3)
    page.resize(widest * 2 + 30, 600)
    qtbot.waitUntil(lambda: columns() == 2)
    page.resize(widest + 20, 900)
    qtbot.waitUntil(lambda: columns() == 1)
    # narrower than one button still takes no more than the page allows: one column and
    # the page's margins (with the app's style sheet, applied by earlier tests, ~41 px;
    # two columns would need another button's width)
    assert page.minimumSizeHint().width() <= widest + 60
    # the buttons stay in reading order: row by row
    ys = [button.y() for button in buttons]
    assert ys == sorted(ys)


def test_right_to_left_the_first_preset_is_at_the_right(qtbot: Any) -> None:
    from PySide6.QtCore import Qt

    page = WelcomePage()
    qtbot.addWidget(page)
    page.setLayoutDirection(Qt.LayoutDirection.RightToLeft)
    buttons = preset_buttons(page)
    widest = max(button.sizeHint().width() for button in buttons)
    page.resize(widest * 2 + 30, 600)
    page.show()
    qtbot.waitExposed(page)
    qtbot.waitUntil(lambda: buttons[0].y() == buttons[1].y())
    assert buttons[0].x() > buttons[1].x()
