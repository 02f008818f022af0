"""Ctrl+K: search every chat (all branches, tool calls, titles) as you type.

The search is shown inside the main window, over its content (a dimmed backdrop with
a card in the middle), not as a window of its own: the search box takes the keyboard
focus at once, in the same window, so every key typed right after Ctrl+K lands in it.
(A separate dialog only gets keys once the window manager has handed it the focus;
keys typed before that went to the chat window, which the modal dialog blocked, and
Qt dropped them: "zebra" typed quickly arrived as "ra" on a busy machine.)

The query runs :meth:`SessionStore.search` in a worker thread (``asyncio.to_thread``)
:data:`DEBOUNCE_MS` after the last key press; results that arrive for an older
query are dropped. Up/Down move through the results from the search box; Enter
or a double-click emits :attr:`SearchDialog.hitChosen` and closes the search; Esc,
a click beside the card or on the menu bar closes it. While it is open it acts as a
modal dialog: the window's shortcuts wait, and the focus stays in it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QGraphicsDropShadowEffect,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.saved_chats import SearchHit
from desktop.core.errors import AssistaError
from desktop.ui.conversations.search_hits import HIT_ROLE, HitDelegate
from desktop.ui.error_text import exception_text
from desktop.ui.plain_text import plain_tooltip

if TYPE_CHECKING:
    from desktop.chat.saved_chats import SessionStore

log = logging.getLogger(__name__)

DEBOUNCE_MS = 150
RESULT_LIMIT = 50
CARD_SIZE = (720, 520)  # px: the card at its largest (smaller in a small window)
MARGIN = 16  # px: the least room around the card
_NAV_KEYS = (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown)


class SearchDialog(QWidget):
    """Search across all chats, over the window's content (``parent``). Reuse one
    instance: :meth:`start` re-opens it."""

    hitChosen = Signal(str, str)  # session id, message id ("" when the title matched)
    searchFinished = Signal(int)  # number of hits shown (tests wait on it)

    def __init__(self, store: SessionStore, parent: QWidget, *,
                 debounce_ms: int = DEBOUNCE_MS, limit: int = RESULT_LIMIT) -> None:
        super().__init__(parent)
        self.store = store
        self.limit = limit
        self.setAccessibleName(self.tr("Search chats"))
        self.setAttribute(Qt.WidgetAttribute.WA_NoMousePropagation)
        self._generation = 0
        self._task: asyncio.Future[None] | None = None
        self._open_when_shown = False
        self._focus_before: QWidget | None = None
        self._menu = parent.menuWidget() if isinstance(parent, QMainWindow) else None
        self._app_keys: list[QKeySequence] = []  # (the app-wide shortcuts: they go on)
        self._closing = False
        self.card = QFrame(self)
        self.card.setObjectName("searchCard")
        shadow = QGraphicsDropShadowEffect(self.card)
        shadow.setBlurRadius(32)
        shadow.setOffset(0, 4)
        shadow.setColor(QColor(0, 0, 0, 110))
        self.card.setGraphicsEffect(shadow)
        layout = QVBoxLayout(self.card)
        self.query = QLineEdit()
        self.query.setPlaceholderText(
                self.tr("Search every chat — words, \"exact phrases\", any language"))
        self.query.setAccessibleName(self.tr("Search chats"))
        self.query.setClearButtonEnabled(True)
        self.query.installEventFilter(self)
        self.results = QListWidget()
        self.results.setAccessibleName(self.tr("Search results"))
        self.results.setItemDelegate(HitDelegate(self.results))
        self.results.setUniformItemSizes(True)
        self.results.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.results.itemActivated.connect(self._chosen)
        self.results.itemDoubleClicked.connect(self._chosen)
        self.status = QLabel()
        self.status.setObjectName("emptyHint")
        layout.addWidget(self.query)
        layout.addWidget(self.results, 1)
        layout.addWidget(self.status)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(debounce_ms)
        self.timer.timeout.connect(self.run_search)
        self.query.textChanged.connect(self._typed)
        self._show_hint()
        parent.installEventFilter(self)  # (its resizes: the backdrop covers it)
        if self._menu is not None:
            self._menu.installEventFilter(self)  # (a click on it: the menus are used)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_changed)
        self.hide()

    def start(self) -> None:
        """Show the search with the last query selected (type to replace it). The box
        has the focus when this returns: the keys already on their way land in it."""
        if not self.isVisible():
            focus = QApplication.focusWidget()
            self._focus_before = focus if focus is not None and focus.window() is \
                self.window() else None
            self._app_keys = [action.shortcut() for action in
                              self.window().findChildren(QAction)
                              if action.shortcutContext()
                              == Qt.ShortcutContext.ApplicationShortcut]
            self._place()
            self.show()
        self.raise_()
        self.query.selectAll()
        self.query.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def close_search(self) -> None:
        """Hide the search; the focus goes back where it was."""
        if not self.isVisible():
            return
        back, self._focus_before = self._focus_before, None
        self._closing = True
        try:
            if back is not None and back.isVisible():
                back.setFocus(Qt.FocusReason.OtherFocusReason)
            self.hide()  # (Qt moves a focus still in it to the window's next widget)
        finally:
            self._closing = False

    # -- in the window ---------------------------------------------------------------------

    def _place(self) -> None:
        """Over the parent's content (below a main window's menu bar), the card at the top
        middle, as large as :data:`CARD_SIZE` where it fits."""
        parent = self.parentWidget()
        if parent is None:
            return
        area = parent.rect()
        if self._menu is not None and self._menu.isVisible():
            area.setTop(self._menu.geometry().bottom() + 1)
        self.setGeometry(area)
        width = min(CARD_SIZE[0], area.width() - 2 * MARGIN)
        height = min(CARD_SIZE[1], area.height() - 2 * MARGIN)
        top = min(max(MARGIN, area.height() // 10), area.height() - height - MARGIN)
        self.card.setGeometry(QRect((area.width() - width) // 2, max(top, 0),
                                    max(width, 0), max(height, 0)))

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor(0, 0, 0, 96))  # (the window, dimmed)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if not self.card.geometry().contains(event.position().toPoint()):
            self.close_search()  # a click beside the card

    def event(self, event: QEvent) -> bool:
        """The window's shortcuts wait while the search is open, as under a modal dialog
        (Ctrl+N would start a chat under it): their keys come to the search, which
        ignores them. The app-wide ones (Ctrl+K again) go on working."""
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) \
                and QKeySequence(event.keyCombination()) not in self._app_keys:
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.close_search()
            return
        super().keyPressEvent(event)

    def focusNextPrevChild(self, next: bool) -> bool:
        """Tab stays in the search: the box, the results, the box..."""
        if not self.isVisible():  # (hidden with the focus in it: Qt moves it out)
            return super().focusNextPrevChild(next)
        order = [self.query, self.results]
        focus = QApplication.focusWidget()
        at = order.index(focus) if focus in order else -1
        order[(at + (1 if next else -1)) % len(order)].setFocus(Qt.FocusReason.TabFocusReason)
        return True

    def _focus_changed(self, old: QWidget | None, new: QWidget | None) -> None:
        """The focus stays in the search while it is open: the window asking for it
        (an answer done puts it in the composer) gets it when the search closes, and the
        keys typed meanwhile go on into the search box."""
        if self._closing or not self.isVisible() or new is None or self.isAncestorOf(new) \
                or new.window() is not self.window():
            return
        self._focus_before = new
        keep = old if old is not None and self.isAncestorOf(old) else self.query
        keep.setFocus(Qt.FocusReason.OtherFocusReason)

    # -- searching -----------------------------------------------------------------------

    def _typed(self, _text: str) -> None:
        self.timer.start()

    def run_search(self) -> None:
        """Search for the current text now (in a worker thread when a loop runs)."""
        self.timer.stop()
        self._generation += 1
        generation = self._generation
        text = self.query.text()
        if not text.strip():
            self.results.clear()
            self._show_hint()
            self.searchFinished.emit(0)
            return
        if self._task is not None and not self._task.done():
            self._task.cancel()
        try:
            self._task = asyncio.ensure_future(self._search(generation, text))
        except RuntimeError:  # no event loop (plain Qt): search right here
            self._task = None
            self._show(generation, self._hits(text))

    async def _search(self, generation: int, text: str) -> None:
        hits = await asyncio.to_thread(self._hits, text)
        self._show(generation, hits)

    def _hits(self, text: str) -> list[SearchHit] | str:
        try:
            return self.store.search(text, limit=self.limit)
        except AssistaError as exc:
            log.warning("search failed: %s", exc)
            return exception_text(exc)

    def _show(self, generation: int, hits: list[SearchHit] | str) -> None:
        if generation != self._generation:
            return  # an older query finished after a newer one started
        self.results.clear()
        if isinstance(hits, str):
            self.status.setText(hits)
            self.searchFinished.emit(0)
            return
        for hit in hits:
            item = QListWidgetItem()
            item.setData(HIT_ROLE, hit)
            item.setToolTip(plain_tooltip(f"{hit.session_title}\n{hit.snippet}"))
            self.results.addItem(item)
        if hits:
            self.results.setCurrentRow(0)
        if self._open_when_shown:
            self._open_when_shown = False
            QTimer.singleShot(0, self.open_current)
        n = len(hits)
        if not n:
            self.status.setText(self.tr("No matches."))
        elif n >= self.limit:
            self.status.setText(self.tr("%n matches (the most recent shown) · Enter opens · "
                                        "↑↓ move · Esc closes", "", n))
        else:
            self.status.setText(self.tr("%n matches · Enter opens · ↑↓ move · Esc closes",
                                        "", n))
        self.searchFinished.emit(n)

    def _show_hint(self) -> None:
        self.status.setText(
                self.tr("Type to search every chat, every branch, tool calls and titles."))

    def hits(self) -> list[SearchHit]:
        return [self.results.item(i).data(HIT_ROLE) for i in range(self.results.count())]

    # -- choosing ------------------------------------------------------------------------

    def _chosen(self, item: QListWidgetItem) -> None:
        hit = item.data(HIT_ROLE)
        if isinstance(hit, SearchHit):
            self.close_search()
            self.hitChosen.emit(hit.session_id, hit.message_id or "")

    def open_current(self) -> None:
        if self.timer.isActive() or (self._task is not None and not self._task.done()):
            self._open_when_shown = True  # Enter typed before the results came
            if self.timer.isActive():
                self.run_search()
            return
        item = self.results.currentItem()
        if item is not None:
            self._chosen(item)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize \
                and self.isVisible():
            self._place()
        if watched is self._menu and event.type() == QEvent.Type.MouseButtonPress:
            self.close_search()  # (the menu's command is for the window)
        if watched is self.query and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() in _NAV_KEYS:
                QApplication.sendEvent(self.results, QKeyEvent(
                    QEvent.Type.KeyPress, event.key(), event.modifiers()))
                return True
            if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.open_current()
                return True
        return super().eventFilter(watched, event)
