"""A row of buttons that wraps instead of cutting its buttons: one line when all fit,
the buttons under their text when they do not, never narrower than their text."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QLabel, QPushButton, QWidget

from desktop.ui.wrap_row import WrapRow

TEXTS = ("Allow once", "Allow for this chat", "Always allow", "Deny")


def make_row(qtbot: Any, *, lead: str | None = None, right: tuple[str, ...] = ()
             ) -> tuple[QWidget, WrapRow, QLabel | None, list[QPushButton]]:
    host = QWidget()
    qtbot.addWidget(host)
    label = None
    if lead is not None:
        label = QLabel(lead)
        label.setWordWrap(True)
    row = WrapRow(host, lead=label)
    row.setContentsMargins(16, 6, 8, 6)
    buttons = [QPushButton(text) for text in TEXTS]
    for button in buttons:
        row.addWidget(button)
    if right:
        row.add_stretch()
        for text in right:
            buttons.append(QPushButton(text))
            row.addWidget(buttons[-1])
    host.show()
    return host, row, label, buttons


def lay_out(host: QWidget, width: int) -> None:
    host.resize(width, host.heightForWidth(width))
    layout = host.layout()
    assert layout is not None
    layout.activate()


def check_uncut(host: QWidget, buttons: list[QPushButton]) -> None:
    """Every shown button as wide as its text needs, inside the row, none overlapping."""
    inner = host.rect().adjusted(16, 6, -8, -6)
    shown = [b for b in buttons if b.isVisible()]
    for button in shown:
        assert button.width() >= button.sizeHint().width(), button.text()
        text = button.fontMetrics().horizontalAdvance(button.text())
        assert text + 8 <= button.width(), button.text()
        assert inner.contains(button.geometry()), (button.text(), button.geometry(), inner)
    for index, first in enumerate(shown):
        for second in shown[index + 1:]:
            assert not first.geometry().intersects(second.geometry()), (
                first.text(), second.text())


def test_text_and_buttons_share_one_line_when_they_fit(qtbot: Any) -> None:
    host, _row, label, buttons = make_row(qtbot, lead="Waiting for your approval: edit_file")
    assert label is not None
    lay_out(host, 1200)
    check_uncut(host, buttons)
    assert {b.geometry().center().y() for b in buttons} == {label.geometry().center().y()}
    assert label.geometry().left() == 16
    assert buttons[-1].geometry().right() == host.width() - 8 - 1  # at the right end
    # (the text on one line: as tall as a button)
    assert host.height() == 6 + max(b.height() for b in buttons) + 6


def test_a_narrow_row_puts_the_buttons_under_the_text_uncut(qtbot: Any) -> None:
    host, row, label, buttons = make_row(qtbot, lead="Waiting for your approval: edit_file")
    assert label is not None
    heights = []
    one_line = row.sizeHint().width()  # (the text on one line beside all the buttons)
    for width in (one_line - 1, 400, 300, 220):
        lay_out(host, width)
        check_uncut(host, buttons)
        top = min(b.geometry().top() for b in buttons)
        assert label.geometry().bottom() < top  # the text above, on its own line(s)
        assert label.geometry().width() == width - 16 - 8
        assert label.heightForWidth(label.width()) <= label.height()  # its text not cut
        lowest = max(b.geometry().bottom() for b in buttons)
        assert row.heightForWidth(width) == lowest + 1 + 6  # the row says how tall it is
        heights.append(host.height())
    assert heights == sorted(heights) and heights[-1] > heights[0]  # more lines when narrower


def test_hidden_buttons_take_no_room(qtbot: Any) -> None:
    host, row, label, buttons = make_row(qtbot, lead="Thinking")
    for button in buttons:
        button.hide()
    lay_out(host, 300)
    assert label is not None and label.geometry() == QRect(16, 6, 300 - 24, label.height())
    assert row.heightForWidth(300) == label.height() + 12


def test_the_right_group_stays_at_the_right_of_its_line(qtbot: Any) -> None:
    host, _row, _label, buttons = make_row(qtbot, right=("Compare", "Send"))
    send = buttons[-1]
    for width in (900, 420, 300, 260):
        lay_out(host, width)
        check_uncut(host, buttons)
        assert send.geometry().right() == width - 8 - 1
        left_of_send = [b for b in buttons[:-1]
                        if b.geometry().center().y() == send.geometry().center().y()]
        assert all(b.geometry().right() < send.geometry().left() for b in left_of_send)
        assert buttons[-2].geometry().top() == send.geometry().top()  # the group together
    lay_out(host, 900)
    assert len({b.geometry().top() for b in buttons}) == 1  # one line when it fits
    assert buttons[0].geometry().left() == 16


def test_right_to_left_the_first_button_is_at_the_right(qtbot: Any) -> None:
    """(Arabic, Hebrew: the row reads from the right, as Qt's own layouts do.)"""
    from PySide6.QtCore import Qt

    host, _row, _label, buttons = make_row(qtbot)
    host.setLayoutDirection(Qt.LayoutDirection.RightToLeft)
    lay_out(host, 900)
    xs = [b.x() for b in buttons]
    assert xs == sorted(xs, reverse=True)  # one line, from the right
    assert buttons[0].geometry().right() >= host.width() - 16 - 8 - 2
    check_uncut(host, buttons)
