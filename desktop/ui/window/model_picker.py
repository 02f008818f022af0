"""The model picker: a popup under the top bar's model button with a search field
(the list filters as you type), the models of every provider with their capability
badges, a star for favourites, and Favourites / Recent at the top.

Enter takes the highlighted model, or — when nothing in the lists matches — the text
typed, as a model id of the chat's provider (any id the server knows works).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QKeyEvent, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import (
    QFrame,
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

from desktop.chat.model_catalog import ModelCatalog, ModelEntry
from desktop.ui import model_words, theme
from desktop.ui.icons import render
from desktop.ui.plain_text import plain_tooltip

ENTRY_ROLE = Qt.ItemDataRole.UserRole
TYPED_ROLE = Qt.ItemDataRole.UserRole + 1  # a row that uses the typed text as the id
STAR_PX = 16
ROW_PAD = 8


class ModelRowDelegate(QStyledItemDelegate):
    """Paints a model row: star, id, provider, and the badges as small chips; with
    ``checks`` (a list to choose several from), a check box at the right end showing
    the row's check state."""

    starClicked = Signal(object)  # ModelEntry

    def __init__(self, parent: QWidget | None = None, *, checks: bool = False) -> None:
        super().__init__(parent)
        self.checks = checks

    def sizeHint(self, option: QStyleOptionViewItem,
                 index: QModelIndex | QPersistentModelIndex) -> QSize:
        height = option.fontMetrics.height()
        if index.data(ENTRY_ROLE) is None:  # a section title
            return QSize(100, height + ROW_PAD)
        return QSize(100, height * 2 + ROW_PAD + 4)

    def star_rect(self, row: QRect) -> QRect:
        return QRect(row.left() + ROW_PAD, row.top() + (row.height() - STAR_PX) // 2,
                     STAR_PX, STAR_PX)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        colors = theme.colors()
        entry = index.data(ENTRY_ROLE)
        rect: QRect = option.rect
        painter.save()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if selected:
            painter.fillRect(rect, QColor(colors["hover"]))
        font = QFont(option.font)
        metrics = QFontMetrics(font)
        if not isinstance(entry, ModelEntry):
            font.setBold(True)
            painter.setFont(font)
            painter.setPen(QColor(colors["muted"]))
            painter.drawText(rect.adjusted(ROW_PAD, 0, -ROW_PAD, 0),
                             int(Qt.AlignmentFlag.AlignVCenter), str(index.data()))
            painter.restore()
            return
        star = self.star_rect(rect)
        painter.drawPixmap(star, render("star", colors["warn" if entry.favourite else "muted"],
                                        star.size(), painter.device().devicePixelRatioF()))
        left = star.right() + ROW_PAD
        top = rect.top() + ROW_PAD // 2
        line = metrics.height()
        painter.setFont(font)
        painter.setPen(QColor(colors["text"]))
        name = str(index.data())
        text_width = rect.right() - left - ROW_PAD
        if self.checks:
            view = self.parent()
            if isinstance(view, QListWidget) and view.currentIndex() == index:
                # the keyboard's row (selected rows are the chosen ones)
                painter.setPen(QPen(QColor(colors["accent"])))
                painter.drawRoundedRect(rect.adjusted(1, 1, -2, -2), 4, 4)
            box = QRect(rect.right() - ROW_PAD - STAR_PX, star.top(), STAR_PX, STAR_PX)
            checked = index.data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
            color = colors["accent" if checked else "muted"]
            scale = painter.device().devicePixelRatioF()
            painter.drawPixmap(box, render("square", color, box.size(), scale))
            if checked:
                painter.drawPixmap(box.adjusted(2, 2, -2, -2),
                                   render("check", color, box.adjusted(2, 2, -2, -2).size(),
                                          scale))
            text_width -= STAR_PX + ROW_PAD
        painter.drawText(QRect(left, top, text_width, line), int(Qt.AlignmentFlag.AlignVCenter),
                         metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, text_width))
        self._paint_badges(painter, font, QRect(left, top + line + 2, text_width, line),
                           [entry.provider_name, *model_words.badges(entry)], colors)
        painter.restore()

    def _paint_badges(self, painter: QPainter, font: QFont, area: QRect, badges: list[str],
                      colors: dict[str, str]) -> None:
        small = QFont(font)
        small.setPointSizeF(max(6.0, font.pointSizeF() * 0.85))
        metrics = QFontMetrics(small)
        painter.setFont(small)
        x = area.left()
        for i, badge in enumerate(badges):
            width = metrics.horizontalAdvance(badge) + 10
            if x + width > area.right():
                break
            chip = QRect(x, area.top(), width, area.height())
            if i > 0:  # the first is the provider's name: plain text
                painter.setPen(QPen(QColor(colors["border"])))
                painter.drawRoundedRect(chip, 4, 4)
            painter.setPen(QColor(colors["muted"]))
            painter.drawText(chip, int(Qt.AlignmentFlag.AlignCenter), badge)
            x += width + 4

    def editorEvent(self, event: object, model: object, option: QStyleOptionViewItem,
                    index: QModelIndex | QPersistentModelIndex) -> bool:
        entry = index.data(ENTRY_ROLE)
        if isinstance(event, QMouseEvent) and isinstance(entry, ModelEntry) and \
                event.type() == QMouseEvent.Type.MouseButtonRelease and \
                self.star_rect(option.rect).adjusted(-4, -4, 4, 4).contains(
                    event.position().toPoint()):
            self.starClicked.emit(entry)
            return True
        return False


class ModelPicker(QFrame):
    """A popup: type to filter, arrows to move, Enter or a click to pick."""

    picked = Signal(str, str)  # provider id, model id

    def __init__(self, catalog: ModelCatalog, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.catalog = catalog
        self.current_provider: str | None = None
        self.setObjectName("modelPicker")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Search models, or type a model id"))
        self.search.setAccessibleName(self.tr("Search models"))
        self.search.setClearButtonEnabled(True)
        self.list = QListWidget()
        self.list.setAccessibleName(self.tr("Models"))
        self.list.setUniformItemSizes(False)
        self.list.setVerticalScrollMode(QListWidget.ScrollMode.ScrollPerPixel)
        self.delegate = ModelRowDelegate(self.list)
        self.list.setItemDelegate(self.delegate)
        self._no_match = self.tr("No model matches. Press Enter to use the text as a model id.")
        self._refused = ""  # a search text Enter refused as a model id (it has spaces)
        self.empty_label = QLabel(self._no_match)
        self.empty_label.setObjectName("emptyHint")
        self.empty_label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.empty_label)
        self.search.textChanged.connect(self.refresh)
        self.search.installEventFilter(self)
        self.list.itemActivated.connect(self._item_chosen)
        self.list.itemClicked.connect(self._item_chosen)
        self.delegate.starClicked.connect(self._toggle_star)

    def popup(self, below: QWidget, provider_id: str | None) -> None:
        """Show under ``below``, as wide as there is room for (at most 460 px)."""
        self.current_provider = provider_id
        self.search.clear()
        self.refresh()
        screen = below.window().geometry()
        width = max(300, min(460, screen.width() - 16))
        spot = below.mapToGlobal(QPoint(0, below.height() + 2))
        x = max(screen.left() + 8, min(spot.x(), screen.right() - width - 8))
        height = max(240, min(520, screen.bottom() - spot.y() - 8))
        self.setGeometry(x, spot.y(), width, height)
        self.show()
        self.search.setFocus()

    def refresh(self) -> None:
        """List what matches the search text (section titles are not selectable)."""
        query = self.search.text().strip()
        self.list.clear()
        for section in self.catalog.sections(query, model_words.badge_text):
            header = QListWidgetItem(model_words.section_title(section))
            header.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.addItem(header)
            for entry in section.entries:
                item = QListWidgetItem(entry.model)
                item.setData(ENTRY_ROLE, entry)
                item.setToolTip(plain_tooltip(f"{entry.model} — {entry.provider_name}\n"
                                              + " · ".join(model_words.badges(entry))))
                self.list.addItem(item)
        # (a model list arriving while the refusal is shown keeps it)
        self.empty_label.setText(self._no_spaces() if query and query == self._refused
                                 else self._no_match)
        self.empty_label.setVisible(self.list.count() == 0)
        first = self.first_model_row()
        if first >= 0:
            self.list.setCurrentRow(first)

    def first_model_row(self) -> int:
        return next((i for i in range(self.list.count())
                     if isinstance(self.list.item(i).data(ENTRY_ROLE), ModelEntry)), -1)

    def visible_models(self) -> list[str]:
        """The model ids listed now, in order (a model may be in several sections)."""
        return [entry.model for i in range(self.list.count())
                if isinstance(entry := self.list.item(i).data(ENTRY_ROLE), ModelEntry)]

    def eventFilter(self, watched: object, event: object) -> bool:
        # Arrows and Enter in the search field move in / pick from the list, so the
        # keyboard never has to leave the field.
        if watched is self.search and isinstance(event, QKeyEvent) and \
                event.type() == QKeyEvent.Type.KeyPress:
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
                self._move(1 if key in (Qt.Key.Key_Down, Qt.Key.Key_PageDown) else -1)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.choose_current()
                return True
        return super().eventFilter(watched, event)  # type: ignore[arg-type]

    def _move(self, step: int) -> None:
        row = self.list.currentRow() + step
        while 0 <= row < self.list.count():
            if isinstance(self.list.item(row).data(ENTRY_ROLE), ModelEntry):
                self.list.setCurrentRow(row)
                return
            row += step

    def choose_current(self) -> None:
        item = self.list.currentItem()
        if item is not None and isinstance(item.data(ENTRY_ROLE), ModelEntry):
            self._item_chosen(item)
            return
        typed = self.search.text().strip()
        if any(c.isspace() for c in typed):  # a sentence typed here by mistake
            self._refused = typed
            self.empty_label.setText(self._no_spaces())
            return
        if typed and self.current_provider:
            self._pick(self.current_provider, typed)

    def _no_spaces(self) -> str:
        return self.tr("A model id has no spaces: nothing was changed.")

    def _item_chosen(self, item: QListWidgetItem) -> None:
        entry = item.data(ENTRY_ROLE)
        if isinstance(entry, ModelEntry):
            self._pick(entry.provider_id, entry.model)

    def _pick(self, provider_id: str, model: str) -> None:
        self.catalog.used(provider_id, model)
        self.hide()
        self.picked.emit(provider_id, model)

    def _toggle_star(self, entry: ModelEntry) -> None:
        self.catalog.set_favourite(entry.provider_id, entry.model, not entry.favourite)
        row = self.list.currentRow()
        self.refresh()
        if 0 <= row < self.list.count():
            self.list.setCurrentRow(row)
