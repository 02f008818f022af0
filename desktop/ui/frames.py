"""Streamed frames, for what else in the window may change with them.

While an answer streams the window is repainted about 15 times a second. Something
that changes on a timer of its own (the chat list's spinner of a chat answering in the
background) is repainted in passes of its own between those frames, and each pass
paints the window's backing store and sends it to the display again. Changed right
after a frame is rendered instead, it is painted in the frame's own pass.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from desktop.ui.app_owned import owned_by_app

_APP_ATTRIBUTE = "_assista_frames"


class FrameClock(QObject):
    #: A streamed frame was rendered; Qt paints it when this turn of the loop ends.
    rendered = Signal()


def clock() -> FrameClock:
    """The application's frame clock (one per QApplication)."""
    return owned_by_app(_APP_ATTRIBUTE, FrameClock, FrameClock)
