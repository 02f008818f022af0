"""Files and images dropped anywhere on the window (the chat list, the top bar, the
tool panel, not only the chat) attach to the open chat's next message, through the
same path as the composer's paste and the chat pane's drop: documents are converted
by desktop.documents, and a file that cannot be attached says why. An MCP bundle
(``.mcpb``, ``.dxt``) dropped opens its install form instead."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent

from desktop.ui.chat.composer import local_files

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from desktop.ui.chat.chat_pane import ChatPane


DROP_EVENTS = frozenset({QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop})


class WindowDrops(QObject):
    """Watches a window's drops; children that take drops themselves keep them."""

    def __init__(self, window: QWidget, pane: ChatPane,
                 on_bundle: Callable[[str], object] | None = None) -> None:
        super().__init__(window)
        self.pane = pane
        # An MCP bundle (.mcpb) dropped is installed, not attached.
        self.on_bundle = on_bundle
        pane.on_bundle = on_bundle
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in DROP_EVENTS:
            # Every event of the window comes here (a streamed answer's frames too):
            # the others go on at once, without a call back into Qt.
            return False
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            assert isinstance(event, QDragEnterEvent | QDragMoveEvent)
            mime = event.mimeData()
            if local_files(mime) or mime.hasImage():
                event.acceptProposedAction()
                return True
        elif kind == QEvent.Type.Drop:
            assert isinstance(event, QDropEvent)
            self.pane.dropEvent(event)
            return True
        return False
