"""Dialogs fit the screen of the window that opens them."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QDialog, QWidget

from desktop.ui.window.dialog_launcher import fit_to_screen


def test_a_dialog_larger_than_the_screen_is_shrunk_and_a_small_one_is_left_alone(
    qtbot: Any,
) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    screen = parent.screen().availableGeometry().size()
    big = QDialog(parent)
    big.resize(screen.width() + 300, screen.height() + 200)
    fit_to_screen(big, parent)
    assert big.width() <= screen.width() and big.height() <= screen.height()
    assert big.width() >= screen.width() * 0.9

    small = QDialog(parent)
    small.resize(300, 200)
    fit_to_screen(small, parent)
    assert (small.width(), small.height()) == (300, 200)
