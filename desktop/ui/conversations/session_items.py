"""Pieces of the chat list: day groups, the delegate that draws group titles, the list
widget's keys (F2 / Del / Enter) and the undo bar shown after a delete."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Literal

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QEvent,
    QMimeData,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QHelpEvent,
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QRegion,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolTip,
    QWidget,
)

from desktop.core.records import SessionInfo
from desktop.ui import locale_format, theme
from desktop.ui.plain_text import plain_label

View = Literal["chats", "archived", "trash"]
ID_ROLE = Qt.ItemDataRole.UserRole
HEADER_ROLE = Qt.ItemDataRole.UserRole + 1  # group title shown above the first chat of a group
TITLE_ROLE = Qt.ItemDataRole.UserRole + 2  # the stored title (to notice a rename)
PINNED_ROLE = Qt.ItemDataRole.UserRole + 3  # (also: PROJECT_ROLE holds its project's id)
INFO_ROLE = Qt.ItemDataRole.UserRole + 4  # the SessionInfo (for the tooltip)
STATE_ROLE = Qt.ItemDataRole.UserRole + 5  # the chat's ChatState when not idle
PROJECT_ROLE = Qt.ItemDataRole.UserRole + 6  # the id of the chat's project, if any

#: What each state says to a screen reader and in the tooltip (see :func:`state_text`).
STATE_TEXT = {"queued": str(QT_TRANSLATE_NOOP("SessionItems", "waiting for the provider")),
              "answering": str(QT_TRANSLATE_NOOP("SessionItems", "answering")),
              "approval": str(QT_TRANSLATE_NOOP("SessionItems", "waiting for your approval")),
              "failed": str(QT_TRANSLATE_NOOP("SessionItems", "failed")),
              "unread": str(QT_TRANSLATE_NOOP("SessionItems", "new answer"))}
STATE_MARK = 14  # px kept free on the right of a row for the mark
UNDO_SECONDS = 10
#: The drag of a chat (onto a project): its session id, as UTF-8.
CHAT_MIME = "application/x-assista-chat"
_ModelIndex = QModelIndex | QPersistentModelIndex


def chat_mime(session_id: str) -> QMimeData:
    data = QMimeData()
    data.setData(CHAT_MIME, session_id.encode("utf-8"))
    return data


def dragged_chat(data: QMimeData) -> str | None:
    """The session id a drag carries (None: not a chat)."""
    if not data.hasFormat(CHAT_MIME):
        return None
    return bytes(data.data(CHAT_MIME).data()).decode("utf-8", "replace") or None


def state_text(state: str) -> str:
    """What a chat's state says, in the user's language ("" for none)."""
    text = STATE_TEXT.get(state)
    return QCoreApplication.translate("SessionItems", text) if text else ""


def date_group(timestamp: float, now: datetime | None = None) -> str:
    """"Today", "Yesterday", "Previous 7 days" or "Older" (local calendar days)."""
    today = (now or datetime.now()).date()
    days = (today - datetime.fromtimestamp(timestamp).date()).days
    if days <= 0:
        return QCoreApplication.translate("SessionItems", "Today")
    if days == 1:
        return QCoreApplication.translate("SessionItems", "Yesterday")
    if days < 7:
        return QCoreApplication.translate("SessionItems", "Previous 7 days")
    return QCoreApplication.translate("SessionItems", "Older")


def grouped(sessions: Sequence[SessionInfo], view: View, now: datetime | None = None,
            projects: Mapping[str, str] | None = None) -> list[tuple[str, SessionInfo]]:
    """Each chat with its group: pinned ones first under "Pinned" (main view only),
    then (main view only) the chats of each project under its name (``projects``: name
    by id, in their order), then by recency (the trash by when each chat was deleted)."""
    def when(info: SessionInfo) -> float:
        return info.deleted_at if view == "trash" and info.deleted_at else info.updated_at

    pinned = [s for s in sessions if s.pinned] if view == "chats" else []
    pinned_ids = {s.id for s in pinned}
    rest = sorted((s for s in sessions if s.id not in pinned_ids), key=when, reverse=True)
    pinned_title = QCoreApplication.translate("SessionItems", "Pinned")
    groups = [(pinned_title, s) for s in pinned]
    names = projects if view == "chats" and projects else {}
    for project_id, name in names.items():
        groups += [(name, s) for s in rest if s.project_id == project_id]
    return groups + [(date_group(when(s), now), s) for s in rest if s.project_id not in names]


def tooltip_for(info: SessionInfo, messages_text: str = "") -> str:
    """``messages_text``: "12 messages" (a plural form, which only tr() gives)."""
    def fmt(ts: float) -> str:
        return locale_format.date_time(datetime.fromtimestamp(ts))

    lines = [info.title, QCoreApplication.translate("SessionItems", "Last changed {time}").format(
        time=fmt(info.updated_at))]
    if info.message_count is not None and messages_text:
        lines.append(messages_text)
    if info.deleted_at is not None:
        lines.append(QCoreApplication.translate("SessionItems", "Deleted {time}").format(
            time=fmt(info.deleted_at)))
    return "\n".join(lines)


class SectionDelegate(QStyledItemDelegate):
    """Draws a group title above the first chat of each group (inside that row, so the
    list holds only chats and keyboard movement never lands on a title)."""

    def _header_height(self, option: QStyleOptionViewItem, index: _ModelIndex) -> int:
        if not index.data(HEADER_ROLE):
            return 0
        gap = 10 if index.row() > 0 else 2
        return option.fontMetrics.height() + 8 + gap

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._row_height: dict[str, int] = {}  # font -> height of a one-line row
        self.phase = 0  # the spinners' step (12 per turn)

    def sizeHint(self, option: QStyleOptionViewItem, index: _ModelIndex) -> QSize:
        # Rows are one elided line: measure once per font (10,000 chats lay out fast).
        key = option.font.key()
        height = self._row_height.get(key)
        if height is None:
            height = super().sizeHint(option, index).height()
            self._row_height[key] = height
        return QSize(40, height + self._header_height(option, index))

    def helpEvent(self, event: QHelpEvent, view: QAbstractItemView,
                  option: QStyleOptionViewItem, index: _ModelIndex) -> bool:
        """The tooltip, built when asked (not for every row of a long list)."""
        info = index.data(INFO_ROLE)
        if event.type() == QEvent.Type.ToolTip and isinstance(info, SessionInfo):
            count = info.message_count or 0
            text = tooltip_for(info, self.tr("%n messages", "", count))
            if index.data(STATE_ROLE):
                text += "\n" + self.tr("Now: {state}").format(
                    state=state_text(str(index.data(STATE_ROLE))))
            QToolTip.showText(event.globalPos(), text, view)
            return True
        return super().helpEvent(event, view, option, index)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: _ModelIndex) -> None:
        header = self._header_height(option, index)
        state = index.data(STATE_ROLE)
        if state and _outside_text(painter, option.rect, header):
            # (a spinner's step repaints its mark only: the title and the row's
            # background, drawn and then clipped away, were most of what a step cost)
            self.paint_state(painter, self.mark_rect(option.rect, header), str(state))
            return
        if header:
            painter.save()
            font = QFont(option.font)
            font.setBold(True)
            font.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
            painter.setFont(font)
            painter.setPen(QColor(theme.colors()["muted"]))
            painter.drawText(_title_rect(option.rect, header),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom,
                             str(index.data(HEADER_ROLE)).upper())
            painter.restore()
        inner = QStyleOptionViewItem(option)
        inner.rect = _text_rect(option.rect, header, bool(state))
        if state:
            self.initStyleOption(inner, index)
        super().paint(painter, inner, index)
        if state:
            self.paint_state(painter, self.mark_rect(option.rect, header), str(state))

    @staticmethod
    def mark_rect(row: QRect, header: int) -> QRect:
        """Where a row's state mark is drawn (``header``: the section title's height
        above the row's text, see :meth:`header_height`)."""
        centre = row.adjusted(0, header, 0, 0).center().y()
        return QRect(row.right() - STATE_MARK - 6, centre - STATE_MARK // 2 + 1,
                     STATE_MARK, STATE_MARK)

    def header_height(self, view: QWidget, index: _ModelIndex) -> int:
        """:meth:`_header_height` for a row of ``view`` (its font), outside a paint."""
        option = QStyleOptionViewItem()
        option.initFrom(view)
        return self._header_height(option, index)

    def paint_state(self, painter: QPainter, rect: QRect, state: str) -> None:
        """A spinner while answering, a badge when the chat waits for the user, a dot
        for a new answer, a ring for a failure (drawn, not emoji: no font needed)."""
        c = theme.colors()
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if state in ("answering", "queued"):
            pen = QPen(QColor(c["accent"] if state == "answering" else c["muted"]), 2)
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            painter.setPen(pen)
            # QPainter angles are 1/16 degree; the arc turns with the list's timer
            painter.drawArc(rect.adjusted(2, 2, -2, -2), -self.phase * 16 * 30, 270 * 16)
        elif state == "approval":
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(c["warn"]))
            painter.drawEllipse(rect)
            painter.setPen(QColor("#ffffff"))
            font = QFont(painter.font())
            font.setBold(True)
            font.setPixelSize(rect.height() - 3)
            painter.setFont(font)
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, "!")
        elif state == "failed":
            painter.setPen(QPen(QColor(c["error"]), 2))
            painter.drawEllipse(rect.adjusted(3, 3, -3, -3))
        elif state == "unread":
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(c["accent"]))
            painter.drawEllipse(rect.adjusted(3, 3, -3, -3))
        painter.restore()

    def updateEditorGeometry(self, editor: QWidget, option: QStyleOptionViewItem,
                             index: _ModelIndex) -> None:
        editor.setGeometry(option.rect.adjusted(0, self._header_height(option, index), 0, 0))


def _title_rect(row: QRect, header: int) -> QRect:
    """Where a row's group title is drawn (``header``: its height, above the text)."""
    return QRect(row.left() + 8, row.top(), row.width() - 16, header - 2)


def _text_rect(row: QRect, header: int, marked: bool) -> QRect:
    """Where a row's chat title and background are drawn (``marked``: a strip is kept
    on the right for its state mark)."""
    return row.adjusted(0, header, -(STATE_MARK + 8) if marked else 0, 0)


def _outside_text(painter: QPainter, row: QRect, header: int) -> bool:
    """Whether what ``painter`` paints now (the paint event's region) misses the part
    of ``row`` that holds its group title, chat title and background: all of it but
    the strip kept for the state mark (see :meth:`SectionDelegate.paint`)."""
    engine = painter.paintEngine()
    region = engine.systemClip() if engine is not None else QRegion()
    to_local, invertible = painter.deviceTransform().inverted()
    if region.isEmpty() or not invertible:
        return False
    # (the group title's rect and the text's, as drawn, the text's a pixel wider)
    text = _text_rect(row, header, True).adjusted(0, 0, 1, 0)
    drawn = QRegion(text).united(QRegion(_title_rect(row, header))) if header > 2 \
        else QRegion(text)
    return not to_local.map(region).intersects(drawn)


class ChatListWidget(QListWidget):
    """The list of chats, with F2 / Del / Enter; a chat can be dragged onto a project."""

    renameKey = Signal()
    deleteKey = Signal()
    # Printable text typed while the list has the focus (after a click on a chat):
    # the window hands it to the composer, so clicking a chat never swallows typing.
    typed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDragEnabled(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        # Opaque: the style sheet leaves the list transparent over its panel, so each
        # repaint of a row (a spinner's step ~11 times a second) painted the panel, the
        # drawer and the window under it too. It paints the panel's colour itself.
        self._background = QColor(theme.colors()["sidebar"])
        self._make_opaque()
        theme.notifier().changed.connect(self._restyle)

    def _make_opaque(self) -> None:
        self.viewport().setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)

    def _restyle(self) -> None:
        self._background = QColor(theme.colors()["sidebar"])
        self._make_opaque()
        self.viewport().update()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.StyleChange:  # (a style sheet's polish)
            self._make_opaque()

    def paintEvent(self, event: QPaintEvent) -> None:  # the viewport's, under the rows
        with QPainter(self.viewport()) as painter:
            painter.fillRect(event.rect(), self._background)
        super().paintEvent(event)

    def mimeTypes(self) -> list[str]:
        return [CHAT_MIME]

    def mimeData(self, items: Sequence[QListWidgetItem]) -> QMimeData:
        ids = [str(i.data(ID_ROLE)) for i in items if i.data(ID_ROLE)]
        return chat_mime(ids[0]) if ids else QMimeData()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        editing = self.state() == QAbstractItemView.State.EditingState
        key = event.key()
        if not editing and key == Qt.Key.Key_F2:
            self.renameKey.emit()
        elif not editing and (key == Qt.Key.Key_Delete
                              or (key == Qt.Key.Key_Backspace and sys.platform == "darwin")):
            self.deleteKey.emit()
        elif not editing and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            item = self.currentItem()
            if item is not None:
                self.itemActivated.emit(item)
        elif not editing and _is_typing(event):
            self.typed.emit(event.text())
        else:
            super().keyPressEvent(event)


def _is_typing(event: QKeyEvent) -> bool:
    """Plain printable text (Shift allowed), not a shortcut or a navigation key."""
    text = event.text()
    mods = event.modifiers() & ~Qt.KeyboardModifier.ShiftModifier
    return (bool(text) and text.isprintable() and not text.isspace()
            and mods in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.KeypadModifier))


class UndoBar(QFrame):
    """"Moved “title” to the trash  [Undo]" for :data:`UNDO_SECONDS` seconds."""

    undoRequested = Signal(list)  # the session ids to restore

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("undoBar")
        self.ids: list[str] = []
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 4, 4)
        self.label = plain_label()
        self.label.setWordWrap(True)
        self.undo_button = QPushButton(self.tr("Undo"))
        self.undo_button.setToolTip(self.tr("Bring the chat back from the trash"))
        self.undo_button.clicked.connect(self._undo)
        row.addWidget(self.label, 1)
        row.addWidget(self.undo_button)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.dismiss)
        theme.notifier().changed.connect(self._restyle)
        self._restyle()
        self.hide()

    def _restyle(self) -> None:
        c = theme.colors()
        self.setStyleSheet(f"#undoBar {{ background: {c['base']}; border: 1px solid "
                           f"{c['border']}; border-radius: 6px; }}")

    def offer(self, session_id: str, title: str) -> None:
        self.ids.append(session_id)
        n = len(self.ids)
        self.label.setText(self.tr("Moved “{title}” to the trash").format(title=title) if n == 1
                           else self.tr("Moved %n chats to the trash", "", n))
        self.show()
        self.timer.start(UNDO_SECONDS * 1000)

    def _undo(self) -> None:
        ids = list(self.ids)
        self.dismiss()
        if ids:
            self.undoRequested.emit(ids)

    def dismiss(self) -> None:
        self.timer.stop()
        self.ids = []
        self.hide()
