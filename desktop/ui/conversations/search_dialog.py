"""Ctrl+K: search every chat (all branches, tool calls, titles) as you type.

The query runs :meth:`SessionStore.search` in a worker thread (``asyncio.to_thread``)
:data:`DEBOUNCE_MS` after the last key press; results that arrive for an older
query are dropped. Up/Down move through the results from the search box; Enter
or a double-click emits :attr:`SearchDialog.hitChosen` and closes the dialog.
"""

from __future__ import annotations

import asyncio
import html
import logging
from datetime import datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QDate,
    QEvent,
    QLocale,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics, QKeyEvent, QPainter, QTextDocument
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.saved_chats import SearchHit
from desktop.core.errors import AssistaError
from desktop.ui import locale_format, theme
from desktop.ui.error_text import exception_text
from desktop.ui.plain_text import plain_tooltip

if TYPE_CHECKING:
    from desktop.chat.saved_chats import SessionStore

log = logging.getLogger(__name__)

DEBOUNCE_MS = 150
RESULT_LIMIT = 50
HIT_ROLE = Qt.ItemDataRole.UserRole
# (translated when shown)
ROLE_NAMES = {"user": str(QT_TRANSLATE_NOOP("HitDelegate", "You")),
              "assistant": str(QT_TRANSLATE_NOOP("HitDelegate", "Assistant")),
              "tool": str(QT_TRANSLATE_NOOP("HitDelegate", "Tool result")),
              "system": str(QT_TRANSLATE_NOOP("HitDelegate", "System")),
              None: str(QT_TRANSLATE_NOOP("HitDelegate", "Title"))}
_NAV_KEYS = (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown)


def when_text(timestamp: float, now: datetime | None = None) -> str:
    """"10:42" today, "12 Mar" this year, else "2023-03-12" (as the locale writes them)."""
    moment = datetime.fromtimestamp(timestamp)
    now = now or datetime.now()
    if moment.date() == now.date():
        return locale_format.clock_time(moment)
    if moment.year == now.year:
        # (the pattern is the translators': "M月d日", "d. MMM", ...)
        return QLocale().toString(QDate(moment.year, moment.month, moment.day),
                                  QCoreApplication.translate("SearchDialog", "d MMM"))
    return locale_format.short_date(moment)


def snippet_html(snippet: str, highlights: tuple[tuple[int, int], ...], mark: str) -> str:
    """The snippet as HTML with each highlighted span in bold on ``mark``."""
    out: list[str] = []
    pos = 0
    for first, end in sorted(highlights):
        start = max(first, pos)
        if end <= start:
            continue
        out.append(html.escape(snippet[pos:start]))
        out.append(f'<b style="background-color:{mark}">{html.escape(snippet[start:end])}</b>')
        pos = end
    out.append(html.escape(snippet[pos:]))
    return "".join(out)


def mark_color() -> str:
    return "#6b5a17" if theme.is_dark() else "#fff0a8"


class HitDelegate(QStyledItemDelegate):
    """Two parts per hit: chat title with role and date, then the snippet (2 lines)."""

    PAD = 8

    def sizeHint(self, option: QStyleOptionViewItem,
                 index: QModelIndex | QPersistentModelIndex) -> QSize:
        height = QFontMetrics(option.font).lineSpacing()
        return QSize(200, height * 3 + 3 * self.PAD)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        hit = index.data(HIT_ROLE)
        if not isinstance(hit, SearchHit):
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, opt, painter, widget)
        c = theme.colors()
        rect = option.rect.adjusted(self.PAD + 2, self.PAD - 2, -self.PAD - 2, -self.PAD)
        line = QFontMetrics(option.font).lineSpacing()
        painter.save()
        role = ROLE_NAMES.get(hit.role)
        meta = " · ".join(filter(None, [self.tr(role) if role else hit.role or "",
                                        self.tr("archived") if hit.archived else "",
                                        when_text(hit.created_at)]))
        painter.setPen(QColor(c["muted"]))
        painter.setFont(option.font)
        meta_width = QFontMetrics(option.font).horizontalAdvance(meta) + 4
        painter.drawText(QRect(rect.right() - meta_width, rect.top(), meta_width, line),
                         Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, meta)
        bold = QFont(option.font)
        bold.setBold(True)
        painter.setFont(bold)
        painter.setPen(QColor(c["text"]))
        title_width = rect.width() - meta_width - 12
        title = QFontMetrics(bold).elidedText(hit.session_title, Qt.TextElideMode.ElideRight,
                                              title_width)
        painter.drawText(QRect(rect.left(), rect.top(), title_width, line),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, title)
        doc = QTextDocument()
        doc.setDefaultFont(option.font)
        doc.setDocumentMargin(0)
        doc.setDefaultStyleSheet(f"body {{ color: {c['text']}; }}")
        doc.setHtml(f"<body>{snippet_html(hit.snippet, hit.highlights, mark_color())}</body>")
        doc.setTextWidth(rect.width())
        painter.translate(rect.left(), rect.top() + line + 4)
        painter.setClipRect(QRect(0, 0, rect.width(), line * 2 + 2))
        doc.drawContents(painter)
        painter.restore()


class SearchDialog(QDialog):
    """Search across all chats. Reuse one instance: :meth:`start` re-opens it."""

    hitChosen = Signal(str, str)  # session id, message id ("" when the title matched)
    searchFinished = Signal(int)  # number of hits shown (tests wait on it)

    def __init__(self, store: SessionStore, parent: QWidget | None = None, *,
                 debounce_ms: int = DEBOUNCE_MS, limit: int = RESULT_LIMIT) -> None:
        super().__init__(parent)
        self.store = store
        self.limit = limit
        self.setWindowTitle(self.tr("Search chats"))
        self.resize(720, 520)
        self._generation = 0
        self._task: asyncio.Future[None] | None = None
        self._open_when_shown = False
        layout = QVBoxLayout(self)
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

    def start(self) -> None:
        """Show the dialog with the last query selected (type to replace it)."""
        self.query.selectAll()
        self.query.setFocus()
        if not self.isVisible():
            self.open()
        self.raise_()
        self.activateWindow()

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
            self.accept()
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
