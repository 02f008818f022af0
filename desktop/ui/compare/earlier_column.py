"""The answer that was there before "Ask other models…": shown as the first column of
the compare view, as it is stored (nothing streams), with its figures and Keep."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop.chat.answer_figures import figures_of
from desktop.core.messages import Message
from desktop.ui.chat.chat_view import ChatView
from desktop.ui.chat.usage_text import PriceSource
from desktop.ui.compare.column import figures_text, not_yet, not_yet_text
from desktop.ui.window.bridge import AgentBridge


class EarlierColumnView(QFrame):
    keepRequested = Signal(int)  # the answer's number among the run's choices

    def __init__(self, index: int, messages: list[Message], prices: PriceSource,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareColumn")
        self.index = index
        model = next((m.model for m in messages if m.model), None) or self.tr("Assistant")
        self.setAccessibleName(self.tr("Earlier answer of {model}").format(model=model))
        self.chat = ChatView(AgentBridge(self))
        self.chat.prices = prices
        for action in self.chat.actions():  # the window's zoom/theme shortcuts stay unique
            self.chat.removeAction(action)
        self.title = QLabel(model)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setObjectName("compareTitle")
        note = QLabel(self.tr("The answer you asked about"))
        note.setObjectName("emptyHint")
        self.figures = QLabel(figures_text(figures_of(messages, prices())))
        self.figures.setObjectName("tokenCount")
        self.figures.setTextFormat(Qt.TextFormat.PlainText)
        self.figures.setWordWrap(True)
        self.keep_button = QPushButton(self.tr("Keep this one"))
        self.keep_button.setObjectName("primaryButton")
        self.keep_button.setToolTip(self.tr("Go on from this answer, as before; the new "
                                            "answers stay as its other versions (‹ n/m ›)"))
        self.keep_button.setAccessibleName(self.tr("Keep the earlier answer"))
        self.keep_button.clicked.connect(lambda: self.keepRequested.emit(index))
        head = QVBoxLayout()
        head.setContentsMargins(12, 10, 12, 6)
        for widget in (self.title, note, self.figures, self.keep_button):
            head.addWidget(widget)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        box.addLayout(head)
        box.addWidget(self.chat, 1)
        self.note = note
        not_yet(self.chat, lambda: note.setText(not_yet_text()))
        note.setWordWrap(True)
        self.chat.show_messages(messages)

    def dispose(self) -> None:
        """Nothing to stop watching: it does not stream."""
