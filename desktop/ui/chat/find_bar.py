"""Ctrl+F: the bar above the chat that finds words in it. Enter and the down arrow go
to the next match, Shift+Enter and the up arrow to the previous one, "3 of 12" says
where; Esc closes it (and the marks go)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QWidget

from desktop.ui import icons
from desktop.ui.chat.chat_find import ChatFind
from desktop.ui.plain_text import plain_label


class FindBar(QFrame):
    closed = Signal()

    def __init__(self, finder: ChatFind, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.finder = finder
        self.setObjectName("findBar")
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 4, 4)
        self.field = QLineEdit()
        self.field.setPlaceholderText(self.tr("Find in this chat"))
        self.field.setAccessibleName(self.tr("Find in this chat"))
        self.field.setClearButtonEnabled(True)
        self.field.installEventFilter(self)
        self.count: QLabel = plain_label()
        self.count.setObjectName("findCount")
        self.previous_button = icons.icon_button("chevron-up", self.tr("Previous match "
                                                                       "(Shift+Enter)"),
                                                 self.tr("Previous match"))
        self.next_button = icons.icon_button("chevron-down", self.tr("Next match (Enter)"),
                                             self.tr("Next match"))
        self.close_button = icons.icon_button("x", self.tr("Close (Esc)"),
                                              self.tr("Close the find bar"))
        row.addWidget(self.field, 1)
        row.addWidget(self.count)
        row.addWidget(self.previous_button)
        row.addWidget(self.next_button)
        row.addWidget(self.close_button)
        self.field.textChanged.connect(self.finder.find)
        self.previous_button.clicked.connect(lambda: self.finder.step(-1))
        self.next_button.clicked.connect(lambda: self.finder.step(1))
        self.close_button.clicked.connect(self.close_bar)
        finder.changed.connect(self._show_count)
        self._show_count(-1, 0)
        self.hide()

    def open_bar(self) -> None:
        """Show the bar with its text selected (typing replaces it); the marks of the
        text it had come back."""
        already = self.isVisible()
        self.show()
        self.field.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.field.selectAll()
        if not already and self.field.text():
            self.finder.find(self.field.text())

    def close_bar(self) -> None:
        self.finder.clear()
        self.hide()
        self.closed.emit()

    def _show_count(self, current: int, total: int) -> None:
        if not self.field.text().strip() or self.finder.from_search:
            self.count.setText("")
        elif total == 0:
            self.count.setText(self.tr("No matches"))
        elif current < 0:  # (another chat shown: Enter goes to its first match)
            self.count.setText(self.tr("%n match(es)", "", total))
        else:
            self.count.setText(self.tr("{current} of {total}").format(current=current + 1,
                                                                       total=total))
        for button in (self.previous_button, self.next_button):
            button.setEnabled(total > 0)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.field and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key = event.key()
            if key == Qt.Key.Key_Escape:
                self.close_bar()
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Down, Qt.Key.Key_Up):
                back = key == Qt.Key.Key_Up or (
                    key != Qt.Key.Key_Down
                    and bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))
                self.finder.step(-1 if back else 1)
                return True
        return super().eventFilter(watched, event)
