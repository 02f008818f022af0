"""A read-only text with a find field: every match highlighted, Enter goes to the next."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontDatabase, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop.ui.plain_text import plain_label

MAX_HIGHLIGHTS = 2000  # beyond this many matches only the count is shown


class FindableText(QWidget):
    def __init__(self, placeholder: str, accessible_name: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.find_field = QLineEdit()
        self.find_field.setPlaceholderText(placeholder)
        self.find_field.setClearButtonEnabled(True)
        self.find_field.setAccessibleName(self.tr("Find"))
        self.count: QLabel = plain_label()
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)  # plain text: whatever a server sent stays text
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setAccessibleName(accessible_name)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                          | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        row = QHBoxLayout()
        row.addWidget(self.find_field, 1)
        row.addWidget(self.count)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(row)
        column.addWidget(self.text, 1)
        self.find_field.textChanged.connect(self._highlight)
        self.find_field.returnPressed.connect(self.next_match)

    def set_text(self, text: str) -> None:
        self.text.setPlainText(text)
        self._highlight(self.find_field.text())

    def next_match(self) -> bool:
        """Select the next match after the cursor (wrapping); False when none."""
        needle = self.find_field.text()
        if not needle:
            return False
        document = self.text.document()
        found = document.find(needle, self.text.textCursor())
        if found.isNull():
            found = document.find(needle, 0)
        if found.isNull():
            return False
        self.text.setTextCursor(found)
        return True

    def _highlight(self, needle: str) -> None:
        selections: list[QTextEdit.ExtraSelection] = []
        matches = 0
        if needle:
            look = QTextCharFormat()
            look.setBackground(QColor(255, 200, 0, 110))
            document: QTextDocument = self.text.document()
            cursor = document.find(needle, 0)
            while not cursor.isNull():
                matches += 1
                if matches <= MAX_HIGHLIGHTS:
                    selection = QTextEdit.ExtraSelection()
                    selection.cursor = cursor
                    selection.format = look
                    selections.append(selection)
                cursor = document.find(needle, cursor)
            if matches:
                first = document.find(needle, 0)
                first.movePosition(QTextCursor.MoveOperation.Right,
                                   QTextCursor.MoveMode.KeepAnchor, 0)
                self.text.setTextCursor(first)
        self.text.setExtraSelections(selections)
        self.count.setText(self.tr("%n found", "", matches) if needle else "")
