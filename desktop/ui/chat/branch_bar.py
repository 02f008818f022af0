"""The ‹ n/m › switcher and the Edit / Regenerate action of a message header."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget


def _button(text: str, tip: str) -> QToolButton:
    button = QToolButton()
    button.setObjectName("messageAction")
    button.setText(text)
    button.setToolTip(tip)
    button.setAccessibleName(tip)
    button.setAutoRaise(True)
    button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
    return button


class BranchBar(QWidget):
    stepRequested = Signal(int)  # -1 previous version, +1 next
    actionRequested = Signal()  # edit (user message) or regenerate (answer)

    def __init__(self, role: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        self.previous = _button("‹", "Previous version")
        self.label = QLabel()
        self.label.setObjectName("tokenCount")
        self.next = _button("›", "Next version")
        if role == "user":
            self.action = _button("Edit", "Edit this message and send it again "
                                          "(the original is kept)")
        else:
            self.action = _button("Regenerate", "Answer again (this answer is kept)")
        for widget in (self.previous, self.label, self.next, self.action):
            row.addWidget(widget)
        self.previous.clicked.connect(lambda: self.stepRequested.emit(-1))
        self.next.clicked.connect(lambda: self.stepRequested.emit(1))
        self.action.clicked.connect(self.actionRequested)
        self.set_label(None)

    def set_label(self, label: str | None) -> None:
        """``"2/3"`` shows the switcher; ``None`` hides it (no other versions)."""
        shown = label is not None
        for widget in (self.previous, self.label, self.next):
            widget.setVisible(shown)
        if label is None:
            return
        self.label.setText(label)
        index, _, count = label.partition("/")
        self.previous.setEnabled(index != "1")
        self.next.setEnabled(index != count)
        self.label.setAccessibleName(f"Version {index} of {count}")
