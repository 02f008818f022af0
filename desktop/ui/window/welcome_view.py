"""First run: a welcome in the empty chat area explaining the three steps (add a
provider, pick a model, ask), and the last chat reopened at the next start.

:class:`WelcomeView` lies over the chat view while there is nothing to show there —
no provider yet, or no chat at all — and goes away with the first message. Each step
says whether it is done and has the button that does it. :class:`WelcomeGuide` decides
when it shows; the window wires what its buttons ask for.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop.ui import conversations, theme
from desktop.ui.icons import icon_px, render

if TYPE_CHECKING:
    from desktop.chat.provider_service import ProviderService
    from desktop.core.services import AssistantSource
    from desktop.ui.window.controller import ChatController

# (translated where they are shown)
STEPS = (
    (str(QT_TRANSLATE_NOOP("WelcomeView", "Add a provider")),
     str(QT_TRANSLATE_NOOP("WelcomeView", "OpenAI, Anthropic, Gemini, OpenRouter, Ollama, "
                           "LM Studio or any OpenAI-compatible server. Keys stay in your "
                           "system keyring.")),
     str(QT_TRANSLATE_NOOP("WelcomeView", "Add a provider…"))),
    (str(QT_TRANSLATE_NOOP("WelcomeView", "Pick a model")),
     str(QT_TRANSLATE_NOOP("WelcomeView", "Type in the model picker to search every model "
                           "your providers offer; star the ones you use most.")),
     str(QT_TRANSLATE_NOOP("WelcomeView", "Choose a model…"))),
    (str(QT_TRANSLATE_NOOP("WelcomeView", "Ask")),
     str(QT_TRANSLATE_NOOP("WelcomeView", "Write below and press Enter. Choose a workspace "
                           "folder and the assistant can read and edit its files — it asks "
                           "before changing anything.")),
     str(QT_TRANSLATE_NOOP("WelcomeView", "Write a message"))),
)


class WelcomeView(QWidget):
    providersRequested = Signal()
    modelRequested = Signal()
    askRequested = Signal()
    startersRequested = Signal()

    def __init__(self, over: QWidget) -> None:
        super().__init__(over)
        self.setObjectName("welcomeView")
        # A heading relative to the widget's font, so that it follows the zoom.
        title = QLabel(self.tr("<h2>Welcome to Assista</h2>"))
        title.setTextFormat(Qt.TextFormat.RichText)
        intro = QLabel(self.tr("Three steps to your first answer:"))
        intro.setObjectName("emptyHint")
        self.markers: list[QLabel] = []
        self.buttons: list[QPushButton] = []
        box = QWidget()
        box.setMaximumWidth(640)
        inner = QVBoxLayout(box)
        inner.setSpacing(14)
        inner.addWidget(title)
        inner.addWidget(intro)
        for number, step in enumerate(STEPS, start=1):
            inner.addLayout(self._step_row(number, *(self.tr(text) for text in step)))
        self.buttons[0].clicked.connect(self.providersRequested)
        self.buttons[1].clicked.connect(self.modelRequested)
        self.buttons[2].clicked.connect(self.askRequested)
        # A wrapping label, not a button: a button's text would set the least width.
        self.starters_link = QLabel(self.tr('Or start from a <a href="starters">ready-made '
                                    "assistant</a>: translator, programmer, editor…"))
        self.starters_link.setWordWrap(True)
        self.starters_link.setTextFormat(Qt.TextFormat.RichText)
        self.starters_link.setAccessibleName(self.tr("Starter assistants"))
        self.starters_link.linkActivated.connect(lambda _link: self.startersRequested.emit())
        inner.addSpacing(4)
        inner.addWidget(self.starters_link)

        centred = QHBoxLayout()
        centred.addStretch(1)
        centred.addWidget(box, 20)
        centred.addStretch(1)
        content = QWidget()
        column = QVBoxLayout(content)
        column.setContentsMargins(24, 16, 24, 16)
        column.addStretch(1)
        column.addLayout(centred)
        column.addStretch(2)
        # In a short window the steps scroll rather than squeeze their text.
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        # Opaque: the chat view's own empty-chat hint must not show through.
        for widget in (self, content):
            widget.setAutoFillBackground(True)
            widget.setBackgroundRole(QPalette.ColorRole.Window)
        over.installEventFilter(self)
        self.setGeometry(over.rect())

    def _step_row(self, number: int, name: str, detail: str, action: str) -> QHBoxLayout:
        marker = QLabel(str(number))
        marker.setAlignment(Qt.AlignmentFlag.AlignCenter)
        marker.setFixedWidth(icon_px() + 8)
        # One word-wrapped label for heading and text: it gets the height its width
        # needs (two labels in a grid were cut off at narrow widths).
        text = QLabel(f"<b>{html.escape(name)}</b><br>{html.escape(detail)}")
        text.setWordWrap(True)
        text.setTextFormat(Qt.TextFormat.RichText)
        button = QPushButton(action)
        row = QHBoxLayout()
        row.setSpacing(12)
        row.addWidget(marker, 0, Qt.AlignmentFlag.AlignTop)
        row.addWidget(text, 1)
        row.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
        self.markers.append(marker)
        self.buttons.append(button)
        return row

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Cover the chat view whatever its size (it is not in a layout of ours).
        if isinstance(watched, QWidget) and watched is self.parent() and \
                event.type() == QEvent.Type.Resize:
            self.setGeometry(watched.rect())
        return False

    def show_steps(self, has_provider: bool, has_model: bool) -> None:
        """Mark the steps done so far; the next one's button is the default."""
        done = [has_provider, has_provider and has_model, False]
        for row, (marker, button) in enumerate(zip(self.markers, self.buttons, strict=True)):
            if done[row]:
                side = icon_px()
                marker.setPixmap(render("circle-check", theme.colors()["ok"],
                                        QSize(side, side), self.devicePixelRatioF()))
                marker.setAccessibleName(self.tr("Step {number} done").format(number=row + 1))
            else:
                marker.setText(str(row + 1))
                marker.setAccessibleName(self.tr("Step {number}").format(number=row + 1))
            button.setEnabled(row == 0 or done[row - 1])
            button.setObjectName("primaryButton" if row == done.index(False) else "")
            button.style().unpolish(button)
            button.style().polish(button)


class WelcomeGuide(QObject):
    """Shows the welcome while it helps. What its buttons ask for it emits (the
    window wires them); it calls :meth:`refresh` when what it shows may change."""

    providersRequested = Signal()
    modelRequested = Signal()
    askRequested = Signal()
    assistantAdded = Signal(str)  # the id of an assistant added in the starter gallery

    def __init__(self, controller: ChatController, providers: ProviderService,
                 assistants: AssistantSource, over: QWidget) -> None:
        """``over``: the chat view the welcome lies over while it helps."""
        super().__init__(over)
        self.controller = controller
        self.providers = providers
        self.assistants = assistants
        self.over = over
        # Built the first time it is wanted: a returning user with chats never needs it,
        # and building (and restyling) it took a share of the start-up stall.
        self._view: WelcomeView | None = None

    @property
    def view(self) -> WelcomeView:
        if self._view is None:
            view = WelcomeView(self.over)
            view.hide()
            view.providersRequested.connect(self.providersRequested)
            view.modelRequested.connect(self.modelRequested)
            view.askRequested.connect(self.askRequested)
            view.startersRequested.connect(self.open_starters)
            self._view = view
        return self._view

    def wanted(self) -> bool:
        """An empty new chat, and no provider yet or no chat at all."""
        c = self.controller
        if c.session_id is not None or c.history:
            return False
        return not self.providers.all() or not c.services.has_chats()

    def refresh(self, *_args: object) -> None:
        wanted = self.wanted()
        if not wanted:
            if self._view is not None:
                self._view.hide()
            return
        view = self.view
        view.show_steps(bool(self.providers.all()), bool(self.controller.model()))
        view.show()
        view.raise_()

    def open_starters(self) -> None:
        """The starter gallery; an assistant added here is used by the new chat."""
        gallery = conversations.AssistantGallery(self.assistants, self.over.window())
        gallery.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        gallery.added.connect(self.assistantAdded)
        gallery.open()
        self.gallery = gallery
