"""Starter assistants: a gallery of ready-made assistants, each added with its own
button (never silently); once added it is an ordinary assistant, edited in the
Assistants dialog like any other."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QGridLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.starter_assistants import STARTERS, StarterAssistant, add_starter

if TYPE_CHECKING:
    from desktop.core.services import AssistantSource

#: Cards per row at the dialog's usual width (one column when it is narrow).
COLUMNS = 2
PREVIEW_CHARS = 110


class StarterCard(QFrame):
    addRequested = Signal(object)  # StarterAssistant

    def __init__(self, starter: StarterAssistant, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.starter = starter
        self.setObjectName("toolCard")  # the theme's card look
        name = QLabel(starter.name)
        name.setObjectName("toolCardName")
        description = QLabel(starter.description)
        description.setWordWrap(True)
        # The start of its prompt, whole lines only (a height cap cut lines in half).
        preview = starter.system_prompt
        if len(preview) > PREVIEW_CHARS:
            preview = preview[:PREVIEW_CHARS].rsplit(" ", 1)[0] + "…"
        prompt = QLabel(preview)
        prompt.setObjectName("toolCardMeta")
        prompt.setWordWrap(True)
        prompt.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        prompt.setToolTip(starter.system_prompt)
        self.add_button = QPushButton(self.tr("Add"))
        self.add_button.setAccessibleName(self.tr("Add {name}").format(name=starter.name))
        self.add_button.clicked.connect(lambda: self.addRequested.emit(self.starter))
        column = QVBoxLayout(self)
        column.addWidget(name)
        column.addWidget(description)
        column.addWidget(prompt, 1)
        column.addWidget(self.add_button, 0, Qt.AlignmentFlag.AlignRight)

    def mark_added(self, name: str) -> None:
        self.add_button.setText(self.tr("Added"))
        self.add_button.setEnabled(False)
        self.add_button.setToolTip(self.tr("Added as “{name}”; edit it in Assistants").format(
            name=name))


class AssistantGallery(QDialog):
    """The starter assistants; ``added`` says which assistant each Add created."""

    added = Signal(str)  # the new assistant's id

    def __init__(self, store: AssistantSource, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.setWindowTitle(self.tr("Starter assistants"))
        self.resize(720, 560)
        intro = QLabel(self.tr("Ready-made assistants to start from. Add the ones you want: each "
                       "becomes your own, to edit or delete in Assistants."))
        intro.setWordWrap(True)
        grid_host = QWidget()
        grid = QGridLayout(grid_host)
        self.cards: list[StarterCard] = []
        for i, starter in enumerate(STARTERS):
            card = StarterCard(starter)
            card.addRequested.connect(self.add)
            grid.addWidget(card, i // COLUMNS, i % COLUMNS)
            self.cards.append(card)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(grid_host)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        close = buttons.button(QDialogButtonBox.StandardButton.Close)
        if close is not None:
            close.setIcon(QIcon())  # (some styles add a themed icon that clashes)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(scroll, 1)
        layout.addWidget(buttons)

    def card(self, name: str) -> StarterCard:
        return next(c for c in self.cards if c.starter.name == name)

    def add(self, starter: StarterAssistant) -> None:
        assistant = add_starter(self.store, starter)
        self.card(starter.name).mark_added(assistant.name)
        self.added.emit(assistant.id)
