"""What the chat column shows over its blocks: the hint of an empty chat, and "Jump to
latest" while the user reads above the end."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QSize, Qt
from PySide6.QtWidgets import QLabel, QPushButton, QWidget


class ColumnOverlays:
    def __init__(self, viewport: QWidget) -> None:
        self._viewport = viewport
        translate = QCoreApplication.translate  # (in the column's context, as before)
        self.empty = QLabel(translate(
            "VirtualColumn", "Ask anything. Press Enter to send, Shift+Enter for a new line."),
            viewport)
        self.empty.setWordWrap(True)
        self.empty.setObjectName("emptyHint")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        # (on the viewport, not over it: a widget over the viewport makes Qt repaint all of
        # it on every scroll step instead of moving its pixels and painting the new strip)
        self.jump_button = QPushButton(translate("VirtualColumn", "↓  Jump to latest"), viewport)
        self.jump_button.setObjectName("jumpButton")
        self.jump_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.jump_button.hide()
        self._hint: QSize | None = None  # the button's size, measured in idle time

    def ready(self) -> bool:
        """Whether the button was measured and drawn once (see :meth:`prepare`)."""
        return self._hint is not None

    def prepare(self) -> None:
        """Measure and draw the hidden button once, in idle time: the first scroll up
        shows it, and measuring its text and drawing its glyphs then (2-5 ms here) made
        that scroll step the one that missed its frame."""
        self.jump_button.ensurePolished()
        self._hint = self.jump_button.sizeHint()
        self.jump_button.resize(self._hint)
        self.jump_button.grab()  # (draws it off screen: its glyphs are cached)

    def restyled(self) -> None:
        """The theme or zoom changed: measure the button again."""
        self._hint = None

    def set_hint(self, text: str | None) -> None:
        """What an empty chat says (None: how to send, the default)."""
        self.empty.setText(text or QCoreApplication.translate(
            "VirtualColumn", "Ask anything. Press Enter to send, Shift+Enter for a new line."))

    def update(self, *, empty: bool, jump: bool) -> None:
        self.empty.setGeometry(self._viewport.rect())
        self.empty.setVisible(empty)
        shown = self.jump_button.isVisible()
        self.jump_button.setVisible(jump)
        if jump:
            hint = self._hint or self.jump_button.sizeHint()
            area = self._viewport.rect()
            self.jump_button.setGeometry(area.center().x() - hint.width() // 2,
                                         area.bottom() - hint.height() - 14,
                                         hint.width(), hint.height())
            if not shown:
                self.jump_button.raise_()

    def keep_on_top(self) -> None:
        """A block was just shown: the button stays above it."""
        if self.jump_button.isVisible():
            self.jump_button.raise_()
