"""The Edit / Regenerate action and the ‹ n/m › switcher at the right end of a header.

The switcher has a fixed slot: it is the last thing in the header and its label has
a fixed width, so stepping through versions leaves ‹ and › exactly where they were
(before, a wider or narrower token count moved them, and the next click landed on
Regenerate).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from desktop.ui.icons import icon_size, set_icon


def message_button(text: str, tip: str) -> QToolButton:
    button = QToolButton()
    button.setObjectName("messageAction")
    button.setText(text)
    button.setToolTip(tip)
    button.setAccessibleName(tip)
    button.setAutoRaise(True)
    button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
    return button


def _step_button(icon_name: str, tip: str) -> QToolButton:
    button = message_button("", tip)
    set_icon(button, icon_name, tip, role="muted")
    button.setIconSize(icon_size())
    return button


class BranchBar(QWidget):
    stepRequested = Signal(int)  # -1 previous version, +1 next
    actionRequested = Signal()  # edit (user message) or regenerate (answer)

    def __init__(self, role: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        if role == "user":
            self.action = message_button(self.tr("Edit"),
                    self.tr("Edit this message and send it again "
                                                 "(the original is kept)"))
        else:
            self.action = message_button(self.tr("Regenerate"),
                    self.tr("Answer again (this answer is kept)"))
        self.previous = _step_button("chevron-left", self.tr("Previous version"))
        self.label = QLabel()
        self.label.setObjectName("tokenCount")
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setFixedWidth(QFontMetrics(self.label.font()).horizontalAdvance("99/99") + 4)
        self.next = _step_button("chevron-right", self.tr("Next version"))
        for widget in (self.action, self.previous, self.label, self.next):
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
        self.label.setAccessibleName(
            self.tr("Version {index} of {count}").format(index=index, count=count))

    def set_compact(self, compact: bool) -> None:
        """Narrow header: the action moves into the header's menu."""
        self.action.setVisible(not compact)
