"""The compare view: the question once at the top, then one column per model, side by
side (scrolling sideways when the window is too narrow for them all).

It takes the chat's place in the chat pane while the user compares; "Keep this one"
in a column, or "Back to chat", hands the chat back (see
:mod:`desktop.ui.compare.launcher`). Approvals asked by a column's tools show in that
column (and, as for any chat, in the Tool activity sidebar).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
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
        row.setContentsMargins(12, 0, 12, 0)
        row.setSpacing(8)
        self.columns: list[CompareColumnView] = []
        self.earlier: EarlierColumnView | None = None
        if run.earlier:  # the answer asked about, first
            self.earlier = EarlierColumnView(len(run.columns), run.earlier, prices)
            self.earlier.setMinimumWidth(COLUMN_MIN_WIDTH)
            self.earlier.setFrameShape(QFrame.Shape.StyledPanel)
            self.earlier.keepRequested.connect(self.keepRequested)
            row.addWidget(self.earlier, 1)
        for column in run.columns:
            view = CompareColumnView(column, prices)
            view.setMinimumWidth(COLUMN_MIN_WIDTH)
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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(top)
        layout.addWidget(self.strip_area, 1)
        for request in pending:
            self.show_approval(request)

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
