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
        self._row = row
        if role == "user":
            self.action = message_button(self.tr("Edit"),
                    self.tr("Edit this message and send it again "
                                                 "(the original is kept)"))
        else:
            self.action = message_button(self.tr("Regenerate"),
                    self.tr("Answer again (this answer is kept)"))
        row.addWidget(self.action)
        self.action.clicked.connect(self.actionRequested)
        # ‹ n/m › is built when a message first has other versions (most never do, and
        # a block is built while the chat scrolls)
        self._switcher: tuple[QToolButton, QLabel, QToolButton] | None = None

    def _built_switcher(self) -> tuple[QToolButton, QLabel, QToolButton]:
        if self._switcher is None:
            previous = _step_button("chevron-left", self.tr("Previous version"))
            label = QLabel()
            label.setObjectName("tokenCount")
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            label.setFixedWidth(QFontMetrics(label.font()).horizontalAdvance("99/99") + 4)
            following = _step_button("chevron-right", self.tr("Next version"))
            for widget in (previous, label, following):
                widget.hide()
                self._row.addWidget(widget)
            previous.clicked.connect(lambda: self.stepRequested.emit(-1))
            following.clicked.connect(lambda: self.stepRequested.emit(1))
            self._switcher = previous, label, following
        return self._switcher

    @property
    def previous(self) -> QToolButton:
        return self._built_switcher()[0]

    @property
    def label(self) -> QLabel:
        return self._built_switcher()[1]

    @property
    def next(self) -> QToolButton:
        return self._built_switcher()[2]

    def switcher_width(self) -> int:
        """The room ‹ n/m › takes while shown (0 when hidden)."""
        if self._switcher is None or not self._switcher[1].isVisibleTo(self):
            return 0
        return self._switcher[0].sizeHint().width() * 2 + self._switcher[1].width()

    def set_label(self, label: str | None) -> None:
        """``"2/3"`` shows the switcher; ``None`` hides it (no other versions)."""
        if label is None and self._switcher is None:
            return
        previous, text, following = self._built_switcher()
        for widget in (previous, text, following):
            widget.setVisible(label is not None)
        if label is None:
            return
        text.setText(label)
        index, _, count = label.partition("/")
        previous.setEnabled(index != "1")
        following.setEnabled(index != count)
        text.setAccessibleName(
            self.tr("Version {index} of {count}").format(index=index, count=count))

    def set_compact(self, compact: bool) -> None:
        """Narrow header: the action moves into the header's menu."""
        self.action.setVisible(not compact)
