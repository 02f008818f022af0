"""Buttons and combo boxes that shrink with their text elided ("gpt-4o-…-preview"), so
a narrow top bar gives every control a part of the width instead of overlapping them.

Each asks the layout for room for its whole text (``sizeHint``) but accepts much less
(``minimumSizeHint``); whatever it gets, its text is elided to fit.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPaintEvent, QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QPushButton,
    QSizePolicy,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QWidget,
)

from desktop.ui.plain_text import button_text, plain_tooltip

#: Room for about eight characters and the arrow: the least a box shrinks to.
MIN_CHARS = 8


class ElidingComboBox(QComboBox):
    def __init__(self, parent: QWidget | None = None, *, max_width: int = 240) -> None:
        super().__init__(parent)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setMaximumWidth(max_width)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        least = self.fontMetrics().averageCharWidth() * MIN_CHARS + 28
        return QSize(min(hint.width(), least), hint.height())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)
        text = option.currentText if self.currentIndex() >= 0 else self.placeholderText()
        option.currentText = self.fontMetrics().elidedText(
            text, Qt.TextElideMode.ElideRight, max(0, field.width() - 4))
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)

    def shown_text(self) -> str:
        """The text as painted now (elided when the box is narrow)."""
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        field = self.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField, self)
        return self.fontMetrics().elidedText(self.currentText(), Qt.TextElideMode.ElideRight,
                                             max(0, field.width() - 4))


class ElidedButton(QPushButton):
    """A push button showing as much of ``full_text`` as fits (the middle elided: model
    ids differ at both ends); the whole text is its tooltip."""

    def __init__(self, parent: QWidget | None = None, *, max_width: int = 300) -> None:
        super().__init__(parent)
        self.full_text = ""
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setMaximumWidth(max_width)

    def set_full_text(self, text: str, tooltip: str = "") -> None:
        self.full_text = text
        self.setToolTip(plain_tooltip(tooltip or text))  # a model's id
        self.updateGeometry()
        self._elide()

    def _chrome(self) -> int:
        """Width of everything but the text: padding, border and the icon."""
        icon = self.iconSize().width() + 6 if not self.icon().isNull() else 0
        return 30 + icon

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(self.fontMetrics().horizontalAdvance(self.full_text) + self._chrome(),
                     hint.height())

    def minimumSizeHint(self) -> QSize:
        least = self.fontMetrics().averageCharWidth() * MIN_CHARS + self._chrome()
        return QSize(min(least, self.sizeHint().width()), super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        room = max(0, self.width() - self._chrome())
        self.setText(button_text(self.fontMetrics().elidedText(
            self.full_text, Qt.TextElideMode.ElideMiddle, room)))  # (a model's id: & is &)
