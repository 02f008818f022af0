"""The main window on the screen it opens on."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow


def fit_to_screen(window: QMainWindow) -> None:
    """No bigger than the screen's free area, and on it: a first start on a small screen
    (or a size saved on a bigger one) put the composer and its buttons off screen."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        return
    room = screen.availableGeometry()
    if window.width() <= room.width() and window.height() <= room.height():
        return
    window.resize(min(window.width(), room.width()), min(window.height(), room.height()))
    frame = window.frameGeometry()
    frame.moveCenter(room.center())
    window.move(max(frame.left(), room.left()), max(frame.top(), room.top()))
