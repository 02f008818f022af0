"""The compare view: the question once at the top, then one column per model, side by
side. The columns share the width; when it is too narrow for all of them (each needs
:data:`COLUMN_MIN_WIDTH`), as many as fit share it and the row scrolls sideways a
whole column at a time, so that every column shown is shown whole.

It takes the chat's place in the chat pane while the user compares; "Keep this one"
in a column, or "Back to chat", hands the chat back (see
:mod:`desktop.ui.compare.launcher`). Approvals asked by a column's tools show in that
column (and, as for any chat, in the Tool activity sidebar).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.approvals import PendingApproval
from desktop.chat.compare_run import CompareRun
from desktop.ui import icons
from desktop.ui.chat.message_header import ElidedLabel
from desktop.ui.chat.usage_text import PriceSource
from desktop.ui.compare.column import CompareColumnView
from desktop.ui.compare.earlier_column import EarlierColumnView
from desktop.ui.plain_text import plain_tooltip

COLUMN_MIN_WIDTH = 250  # px; narrower windows scroll the columns sideways
STRIP_MARGIN = 12  # px on each side of the columns
COLUMN_GAP = 8


class CompareView(QWidget):
    stopRequested = Signal(int)  # column index
    keepRequested = Signal(int)
    backRequested = Signal()

    def __init__(self, run: CompareRun, prices: PriceSource,
                 pending: list[PendingApproval], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compareView")
        self.setAccessibleName(self.tr("Compare answers"))
        self.run = run
        count = len(run.columns) + (1 if run.earlier else 0)
        heading = QLabel(self.tr("Comparing %n answer(s)", "", count))
        heading.setObjectName("compareHeading")
        question = run.question.body_text.strip() or ", ".join(run.question.attachment_names)
        self.question = ElidedLabel(" ".join(question.split()))
        self.question.setToolTip(plain_tooltip(question[:2000]))
        self.question.setObjectName("emptyHint")
        self.back_button = QPushButton(self.tr("Back to chat"))
        icons.set_icon(self.back_button, "chevron-left",
                       self.tr("Back to the chat, showing the first answer (or the one you "
                               "keep); every answer stays as a version of the reply"),
                       self.tr("Back to chat"))
        self.back_button.clicked.connect(self.backRequested)
        top = QHBoxLayout()
        top.setContentsMargins(24, 10, 24, 6)
        titles = QVBoxLayout()
        titles.setSpacing(2)
        titles.addWidget(heading)
        titles.addWidget(self.question)
        top.addLayout(titles, 1)
        top.addWidget(self.back_button)

        strip = QWidget()
        row = QHBoxLayout(strip)
        row.setContentsMargins(STRIP_MARGIN, 0, STRIP_MARGIN, 0)
        row.setSpacing(COLUMN_GAP)
        self.row = row
        self.columns: list[CompareColumnView] = []
        self.earlier: EarlierColumnView | None = None
        if run.earlier:  # the answer asked about, first
            self.earlier = EarlierColumnView(len(run.columns), run.earlier, prices)
            self.earlier.setFrameShape(QFrame.Shape.StyledPanel)
            self.earlier.keepRequested.connect(self.keepRequested)
            row.addWidget(self.earlier, 1)
        for column in run.columns:
            view = CompareColumnView(column, prices)
            view.setFrameShape(QFrame.Shape.StyledPanel)
            view.stopRequested.connect(self.stopRequested)
            view.keepRequested.connect(self.keepRequested)
            row.addWidget(view, 1)
            self.columns.append(view)
        self.strip_area = QScrollArea()
        self.strip_area.setWidgetResizable(True)
        self.strip_area.setFrameShape(QFrame.Shape.NoFrame)
        self.strip_area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.strip_area.setWidget(strip)
        self.strip_area.viewport().installEventFilter(self)
        bar = self.strip_area.horizontalScrollBar()
        bar.valueChanged.connect(self._snap)
        bar.sliderReleased.connect(self._snap)
        self._step = 0  # px from one column to the next (0: all of them fit)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(top)
        layout.addWidget(self.strip_area, 1)
        for request in pending:
            self.show_approval(request)

    # -- fitting the columns ------------------------------------------------------------

    def all_columns(self) -> list[QWidget]:
        return [*([self.earlier] if self.earlier is not None else []), *self.columns]

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.strip_area.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_columns()
        return False

    def _fit_columns(self) -> None:
        """All columns share the viewport's width when each gets at least
        :data:`COLUMN_MIN_WIDTH`; else as many as fit share all of it (no side margins:
        the next column starts past the right edge) and the row scrolls by columns."""
        columns = self.all_columns()
        count = len(columns)
        if not count:
            return
        viewport = self.strip_area.viewport().width()
        room = viewport - 2 * STRIP_MARGIN
        margin, fit = STRIP_MARGIN, count
        if (room - (count - 1) * COLUMN_GAP) // count < COLUMN_MIN_WIDTH:
            margin, room = 0, viewport
            fit = max(1, min(count, (room + COLUMN_GAP) // (COLUMN_MIN_WIDTH + COLUMN_GAP)))
        width = max(1, (room - (fit - 1) * COLUMN_GAP) // fit)
        for column in columns:
            column.setFixedWidth(width)
        # (the pixels the columns leave go to the right margin: the last scroll step
        # ends exactly at a column's start, as every other one does)
        spare = max(0, room - fit * width - (fit - 1) * COLUMN_GAP)
        self.row.setContentsMargins(margin, 0, margin + spare, 0)
        self._step = width + COLUMN_GAP if fit < count else 0
        bar = self.strip_area.horizontalScrollBar()
        if self._step:
            bar.setSingleStep(self._step)
            bar.setPageStep(self._step * fit)
        self._snap()

    def _snap(self) -> None:
        """Scrolled (arrows, wheel, dragging let go): to the nearest column's start."""
        bar = self.strip_area.horizontalScrollBar()
        if not self._step or bar.isSliderDown():
            return
        value = min(bar.maximum(), round(bar.value() / self._step) * self._step)
        if value != bar.value():
            bar.setValue(value)

    def show_approval(self, pending: PendingApproval) -> None:
        """A tool of one of the columns asks: shown in that column."""
        if pending.session_id != self.run.session_id:
            return
        column = self.run.column_of(pending)
        if column is not None:
            self.columns[column.index].show_approval(pending)

    def approval_closed(self, call_id: str) -> None:
        for view in self.columns:
            view.approval_closed(call_id)

    def dispose(self) -> None:
        for view in self.columns:
            view.dispose()
