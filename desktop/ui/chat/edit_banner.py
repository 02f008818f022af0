"""The band over the composer while an earlier user message is being edited: it holds
which message, and offers to cancel."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget


class EditBanner(QWidget):
    cancelled = Signal()  # "Cancel edit" while editing: the composer should be emptied

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("editBanner")
        self.message_id: str | None = None  # the user message being edited, if any
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 0, 4, 0)
        label = QLabel(self.tr("Editing an earlier message — Enter sends it as a new version; "
                       "the original and its answers are kept (‹ › switches)."))
        label.setObjectName("emptyHint")
        label.setWordWrap(True)
        cancel = QPushButton(self.tr("Cancel edit"))
        cancel.clicked.connect(self.cancel)
        row.addWidget(label, 1)
        row.addWidget(cancel)
        self.hide()

    def start(self, message_id: str) -> None:
        self.message_id = message_id
        self.show()

    def finish(self) -> None:
        """Editing is over (sent, or another chat opened)."""
        self.message_id = None
        self.hide()

    def cancel(self) -> None:
        editing = self.message_id is not None
        self.finish()
        if editing:
            self.cancelled.emit()
