"""How a Ctrl+K search hit is shown: the chat's title with the role and the date, then
the snippet with the matched words marked."""

from __future__ import annotations

import html
from datetime import datetime

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QDate,
    QLocale,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QTextDocument
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from desktop.chat.saved_chats import SearchHit
from desktop.ui import locale_format, theme

HIT_ROLE = Qt.ItemDataRole.UserRole
# (translated when shown)
ROLE_NAMES = {"user": str(QT_TRANSLATE_NOOP("HitDelegate", "You")),
              "assistant": str(QT_TRANSLATE_NOOP("HitDelegate", "Assistant")),
              "tool": str(QT_TRANSLATE_NOOP("HitDelegate", "Tool result")),
              "system": str(QT_TRANSLATE_NOOP("HitDelegate", "System")),
              None: str(QT_TRANSLATE_NOOP("HitDelegate", "Title"))}


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
