"""Streamed frames, for what else in the window may change with them.

While an answer streams the window is repainted about 15 times a second. Something
that changes on a timer of its own (the chat list's spinner of a chat answering in the
background) is repainted in passes of its own between those frames, and each pass
paints the window's backing store and sends it to the display again. Changed right
after a frame is rendered instead, it is painted in the frame's own pass.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QObject, Signal

_APP_ATTRIBUTE = "_assista_frames"
_without_app: FrameClock | None = None


class FrameClock(QObject):
    #: A streamed frame was rendered; Qt paints it when this turn of the loop ends.
    rendered = Signal()


def clock() -> FrameClock:
    """The application's frame clock (one per QApplication)."""
    global _without_app
    app = QCoreApplication.instance()
    if app is None:
        if _without_app is None:
            _without_app = FrameClock()
        return _without_app
    frames = getattr(app, _APP_ATTRIBUTE, None)
    if not isinstance(frames, FrameClock):
        frames = FrameClock(app)
        setattr(app, _APP_ATTRIBUTE, frames)
    return frames
