"""Preferences → General → Language: "System default" or one of the translations."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel, QVBoxLayout, QWidget

from desktop.ui.i18n import language_names


class LanguageChoice(QWidget):
    """The language combo box and the note that it applies at the next start."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        self.combo = QComboBox()
        self.combo.setAccessibleName(self.tr("Language"))
        for value, name in language_names():
            self.combo.addItem(name, value)
        self.note = QLabel(self.tr("A new language shows after the app is restarted."))
        self.note.setObjectName("emptyHint")
        self.note.setWordWrap(True)
        self.note.hide()
        self.combo.currentIndexChanged.connect(self._changed)
        self._loaded = ""
        column.addWidget(self.combo)
        column.addWidget(self.note)

    def load(self, language: str) -> None:
        self._loaded = language
        index = self.combo.findData(language)
        self.combo.setCurrentIndex(max(0, index))
        self.note.hide()

    def value(self) -> str:
        return str(self.combo.currentData() or "")

    def _changed(self) -> None:
        self.note.setVisible(self.value() != self._loaded)
