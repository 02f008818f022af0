"""The main window fits the screen it opens on (a first start on an 800x600 screen put
the composer's buttons off screen)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QMainWindow

from desktop.ui.window.screen_fit import fit_to_screen


def test_a_window_bigger_than_the_screen_is_shrunk_onto_it(qtbot: Any) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    room = window.screen().availableGeometry()
    window.resize(room.width() + 500, room.height() + 300)
    window.move(room.right() - 10, room.bottom() - 10)
    fit_to_screen(window)
    assert window.width() <= room.width() and window.height() <= room.height()
    assert room.contains(window.frameGeometry().topLeft())


def test_a_window_that_fits_is_left_alone(qtbot: Any) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    window.resize(300, 200)
    window.move(10, 10)
    fit_to_screen(window)
    assert (window.width(), window.height(), window.x(), window.y()) == (300, 200, 10, 10)
