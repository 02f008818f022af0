"""Start-up work that waits for a frame of the window (the model list, MCP servers, the
update check): slow work must not delay what the user sees first.

Queued until the window paints, then run on the next turn of the event loop (after the
frame is flushed); once that has happened, new work runs at once. The window queues
again when it is filled in after its skeleton was painted, and holds the queue while
it is being built in steps (the frames painted between the steps do not count).
Only Qt's QTimer: this module is imported before the window's first frame.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer


class FirstFrameWork:
    def __init__(self) -> None:
        #: what waits for the next frame (None: a frame was painted, work runs at once)
        self.queued: list[Callable[[], None]] | None = []
        self.held = False  # (while the window is built in steps)

    def add(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` after the next frame (at once when one was painted)."""
        if self.queued is None:
            callback()
        elif callback not in self.queued:
            self.queued.append(callback)

    def wait_for_next_frame(self) -> None:
        """New work waits for a frame again (the content is about to change)."""
        if self.queued is None:
            self.queued = []

    def frame_painted(self) -> None:
        if self.queued is not None and not self.held:
            callbacks, self.queued = self.queued, None
            QTimer.singleShot(0, lambda: [callback() for callback in callbacks])
