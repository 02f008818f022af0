"""How far a running call is, on its card: an MCP server's progress notifications
as a bar (busy when the server gives no total) and the server's message."""

from __future__ import annotations

from PySide6.QtWidgets import QProgressBar, QVBoxLayout, QWidget

from desktop.tools.approval import ToolProgress
from desktop.ui.plain_text import plain_label

SCALE = 1000  # QProgressBar counts in integers


class CallProgress(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("callProgress")
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 2, 0, 2)
        column.setSpacing(2)
        self.bar = QProgressBar()
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(6)
        self.bar.setAccessibleName(self.tr("Progress"))
        self.message = plain_label()
        self.message.setObjectName("toolCardMeta")
        self.message.setWordWrap(True)
        column.addWidget(self.bar)
        column.addWidget(self.message)

    def update_from(self, progress: ToolProgress) -> None:
        done, total = progress.done or 0.0, progress.total
        if total and total > 0:
            self.bar.setRange(0, SCALE)
            self.bar.setValue(int(min(done / total, 1.0) * SCALE))
        else:
            self.bar.setRange(0, 0)  # busy: the server did not say how much there is
        self.message.setText(progress.text)
        self.bar.setAccessibleDescription(progress.text)


def show_progress(card: QWidget, progress: ToolProgress) -> CallProgress:
    """The card's progress line (added under its name and arguments the first time)."""
    widget = card.findChild(CallProgress)
    if widget is None:
        widget = CallProgress(card)
        layout = card.layout()
        if isinstance(layout, QVBoxLayout):
            layout.insertWidget(min(3, layout.count()), widget)
    widget.update_from(progress)
    return widget
