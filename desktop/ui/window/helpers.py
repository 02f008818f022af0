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
