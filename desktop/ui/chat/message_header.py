"""The header of a message block: who and when, tokens and speed, Copy, a "more"
menu (Continue, Fork, Delete) and, last, Edit/Regenerate with the ‹ n/m › switcher.

Nothing clips, and who answered and when is read whole first: when the row is too
narrow for everything, the token figures elide and then go (into the "more" menu; the
whole figures are their tooltip), then Copy and Edit/Regenerate move into that menu;
only then does the title elide. Every version of a message keeps its actions the
same way (the switcher's room is counted once it is shown).
The switcher always keeps its fixed slot at the right end.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QKeySequence, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QSizePolicy, QToolButton, QWidget

from desktop.core.messages import Message
from desktop.ui.chat.branch_bar import BranchBar, message_button
from desktop.ui.chat.message_texts import header_text
from desktop.ui.icons import icon_size, set_icon

#: Read the last answer aloud (again: stop); shown beside "Read aloud" in the menu.
READ_ALOUD_KEYS = QKeySequence("Ctrl+Shift+R")


class ElidedLabel(QLabel):
    """A one-line label that ends in "…" when it does not fit (never clipped)."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setTextFormat(Qt.TextFormat.PlainText)  # model and provider names: never markup
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(self.fontMetrics().horizontalAdvance("Yo…") + 4, hint.height())

    def paintEvent(self, event: QPaintEvent) -> None:
        with QPainter(self) as painter:
            painter.setPen(self.palette().color(self.foregroundRole()))
            rect = self.contentsRect()
            text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight,
                                                 rect.width())
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft
                                       | Qt.AlignmentFlag.AlignVCenter), text)


class MessageHeader(QWidget):
    deleteRequested = Signal()
    forkRequested = Signal()
    continueRequested = Signal()
    inspectRequested = Signal()  # the request inspector, for this answer
    askOthersRequested = Signal()  # compare: this question answered by other models
    readAloudRequested = Signal()
    previewPageRequested = Signal()  # an answer that is a whole HTML page

    def __init__(self, role: str, title: str, fill_copy_menu: Callable[[QMenu], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageHeaderRow")
        self.role = role
        self.can_continue: Callable[[], bool] = lambda: False  # set by the chat view
        self.is_page: Callable[[], bool] = _never  # set by the message widget
        self._fill_copy_menu = fill_copy_menu
        line = QHBoxLayout(self)
        line.setContentsMargins(0, 0, 0, 0)
        line.setSpacing(8)
        self._spacing = 8
        self.title = ElidedLabel(title)
        self.title.setObjectName("messageHeader")
        self.tokens_label = QLabel()
        self.tokens_label.setObjectName("tokenCount")
        self.figures = ""  # the token figures whole (the label may show them elided)
        self.tokens_label.hide()
        self.copy_button = message_button(
            self.tr("Copy"), self.tr("Copy this message as Markdown (the arrow has more)"))
        self.copy_button.setAccessibleName(self.tr("Copy message"))
        self.copy_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.copy_menu = QMenu(self.copy_button)
        self.copy_menu.aboutToShow.connect(lambda: self._fill_copy_menu(self.copy_menu))
        self.copy_button.setMenu(self.copy_menu)
        self.more_button = message_button("", self.tr("More actions"))
        set_icon(self.more_button, "ellipsis",
                 self.tr("More: continue, fork into a new chat, delete"),
                 self.tr("More actions"), role="muted")
        self.more_button.setIconSize(icon_size())
        self.more_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        # (no arrow: the app's style sheet hides it; a style sheet per button cost
        # 15 % of building a message block while scrolling)
        self.more_menu = QMenu(self.more_button)
        self.more_menu.aboutToShow.connect(self._fill_more_menu)
        self.more_button.setMenu(self.more_menu)
        self.branch_bar = BranchBar(role)
        line.addWidget(self.title, 1)
        for widget in (self.tokens_label, self.copy_button, self.more_button,
                       self.branch_bar):
            line.addWidget(widget)
        self.compact = False
        self.tokens_whole = False  # the figures are shown and not elided

    def set_figures(self, text: str, tooltip: str) -> None:
        self.figures = text
        self.tokens_label.setText(text)
        self.tokens_label.setToolTip(tooltip)
        self._fit(self.width())

    # -- narrow rows ----------------------------------------------------------------------

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._fit(event.size().width())

    def set_versions(self, label: str | None) -> None:
        """``"2/3"`` shows the ‹ n/m › switcher, ``None`` hides it; the row fits again
        with (or without) its room."""
        self.branch_bar.set_label(label)
        self._fit(self.width())

    def _fit(self, width: int) -> None:
        """Show what fits next to the whole title; the rest goes into the menu."""
        if width <= 0:
            return
        spacing = self._spacing
        title = self.title.fontMetrics().horizontalAdvance(self.title.text()) + spacing + 4
        fixed = self.more_button.sizeHint().width() + self.branch_bar.switcher_width() + spacing * 2
        metrics = self.tokens_label.fontMetrics()
        tokens = metrics.horizontalAdvance(self.figures) + spacing if self.figures else 0
        actions = (self.copy_button.sizeHint().width()
                   + self.branch_bar.action.sizeHint().width() + spacing * 2)
        self.compact = title + fixed + actions > width
        self.copy_button.setVisible(not self.compact)
        self.branch_bar.set_compact(self.compact)
        # (in the room the actions leave, or that they left when they moved)
        room = width - title - fixed - (0 if self.compact else actions) - spacing
        shown = bool(self.figures) and room >= metrics.horizontalAdvance("99 in · 99…")
        self.tokens_whole = shown and tokens - spacing <= room
        if shown:
            self.tokens_label.setText(metrics.elidedText(self.figures,
                                                         Qt.TextElideMode.ElideRight, room))
        self.tokens_label.setVisible(shown)

    # -- the "more" menu ------------------------------------------------------------------

    def _fill_more_menu(self) -> None:
        menu = self.more_menu
        menu.clear()
        if self.compact:
            action = self.branch_bar.action
            menu.addAction(action.text(), action.click)
            self._fill_copy_menu(menu.addMenu(self.tr("Copy")))
            menu.addSeparator()
        if self.can_continue():
            menu.addAction(self.tr("Continue this answer"), self.continueRequested.emit)
        menu.addAction(self.tr("Fork into a new chat from here"), self.forkRequested.emit)
        menu.addAction(self.tr("Ask other models…"), self.askOthersRequested.emit)
        menu.addSeparator()
        menu.addAction(self.tr("Delete this and what follows…"), self.deleteRequested.emit)
        if self.role == "assistant":
            menu.addSeparator()
            read = menu.addAction(self.tr("Read aloud"), self.readAloudRequested.emit)
            read.setShortcut(READ_ALOUD_KEYS)
            if self.is_page():
                preview = menu.addAction(self.tr("Preview this page…"),
                                         self.previewPageRequested.emit)
                preview.setToolTip(self.tr("Opens in your browser: this runs the model's "
                                           "code, with every network request blocked"))
            inspect = menu.addAction(self.tr("Inspect the request…"), self.inspectRequested.emit)
            inspect.setToolTip(self.tr("What was sent, what came back, timings, Replay"))
        if self.figures and not self.tokens_whole:
            menu.addSeparator()
            menu.addAction(self.figures).setEnabled(False)

    def set_copy_menu(self, fill_copy_menu: Callable[[QMenu], None]) -> None:
        """What the Copy button's menu holds (a header built before its message widget)."""
        self._fill_copy_menu = fill_copy_menu

    def release(self) -> None:
        """Let go of the callbacks (they lead back to the message widget)."""
        self.can_continue = _never
        self.is_page = _never
        self._fill_copy_menu = _no_copy_menu


def _never() -> bool:
    return False


def _no_copy_menu(_menu: QMenu) -> None:
    pass


def header_for(message: Message, parent: QWidget) -> MessageHeader:
    """The header row of ``message``'s widget, built on its own (see :class:`HeaderAhead`)."""
    return MessageHeader(message.role, header_text(message), _no_copy_menu, parent)


class HeaderAhead:
    """The header row of the next block the chat builds, built an idle step before its
    widget (the two in one step took up to ~6 ms: a wheel notch arriving waited)."""

    def __init__(self) -> None:
        self._ahead: tuple[tuple[int, str], MessageHeader] | None = None

    def build(self, index: int, message: Message, parent: QWidget) -> None:
        self.drop()
        self._ahead = (index, message.id), header_for(message, parent)

    def built(self, index: int, message: Message) -> bool:
        return self._ahead is not None and self._ahead[0] == (index, message.id)

    def take(self, index: int, message: Message) -> MessageHeader | None:
        """The header built for block ``index`` showing ``message``, if any (once)."""
        if self._ahead is None or not self.built(index, message):
            return None
        header, self._ahead = self._ahead[1], None
        return header

    def drop(self) -> None:
        if self._ahead is not None:
            self._ahead[1].deleteLater()
            self._ahead = None

    def header(self) -> MessageHeader | None:
        return None if self._ahead is None else self._ahead[1]
