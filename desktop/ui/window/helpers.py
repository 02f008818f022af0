"""Small helpers the main window and its parts share (Qt only, cheap to import)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    import logging


def window_log() -> logging.Logger:
    """The main window's logger (logging is imported once the window is on screen)."""
    import logging

    return logging.getLogger("desktop.ui.window.main_window")


def delete_on_close(widget: QWidget) -> None:
    from PySide6.QtCore import Qt  # (its enums take ~13 ms: not before the window shows)

    widget.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)


#: Room left for the window manager's title bar and frame when the window fills a screen.
FRAME_ALLOWANCE = (16, 48)


def within_screen(window: QWidget) -> None:
    """Shrink ``window`` to its screen's free area (its default 1280x820, or a size
    saved on a larger screen, held it wider than a small one: dialogs centred over it
    were then pushed off the screen) and bring it back onto the screen."""
    screen = window.screen()
    if screen is None:
        return
    room = screen.availableGeometry()
    width = min(window.width(), room.width() - FRAME_ALLOWANCE[0])
    height = min(window.height(), room.height() - FRAME_ALLOWANCE[1])
    if (width, height) != (window.width(), window.height()):
        window.resize(max(width, window.minimumWidth()), max(height, window.minimumHeight()))
        x = min(max(window.x(), room.left()), room.right() - window.width() - FRAME_ALLOWANCE[0])
        y = min(max(window.y(), room.top()), room.bottom() - window.height() - FRAME_ALLOWANCE[1])
        window.move(max(x, room.left()), max(y, room.top()))
