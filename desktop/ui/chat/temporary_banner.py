"""The line above the composer while a temporary chat is on screen."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QLabel, QWidget


class TemporaryBanner(QLabel):
    def __init__(self, is_temporary: Callable[[], bool], opened: SignalInstance,
                 parent: QWidget | None = None) -> None:
        """``is_temporary``: whether the chat on screen is temporary, asked each time
        ``opened`` (another chat shown) fires."""
        super().__init__(self.tr("Temporary chat: it uses no memory and is not kept once "
                                 "you leave it."), parent)
        self.setObjectName("emptyHint")
        self.setWordWrap(True)
        self.hide()
        opened.connect(lambda *_a: self.setVisible(is_temporary()))
