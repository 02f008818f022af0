"""What the main window shows in the fraction of a second before it is filled.

The window appears as soon as Qt is up (the database, the models, the agent loop and
the chat view load after its first frame, see :mod:`desktop.ui.window.launch`). Until then
it shows this: the same top bar, the three panes at their saved widths and an empty
message box, styled by the same stylesheet, so filling it in changes the content,
not the layout. Nothing here is interactive. Only Qt widget classes, and not Qt's
``Qt`` namespace (creating its enums takes ~13 ms): frames instead of styled-background
widgets, stretches instead of alignment flags, the splitter's default orientation.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

DEFAULT_SPLITTER = (230, 730, 330)


class StartupSkeleton(QWidget):
    """The window's content while the app loads (replaced by the real one)."""

    def __init__(self, app_name: str, splitter: Sequence[int] = (),
                 sidebar_visible: bool = True) -> None:
        super().__init__()
        self.setObjectName("startupSkeleton")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        outer.addWidget(self._top_bar(app_name))

        self.splitter = QSplitter()  # horizontal
        self.splitter.addWidget(self._panel("sessionPanel", self.tr("Chats"),
                                             self.tr("+  New chat")))
        self.splitter.addWidget(self._center())
        sidebar = self._panel("toolSidebar", self.tr("Tool activity"), None)
        self.splitter.addWidget(sidebar)
        sidebar.setVisible(sidebar_visible)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes(list(splitter) if len(splitter) == 3 else list(DEFAULT_SPLITTER))
        outer.addWidget(self.splitter, 1)
        self.setEnabled(False)

    @staticmethod
    def _top_bar(app_name: str) -> QWidget:
        bar = QFrame()
        bar.setObjectName("topBar")
        row = QHBoxLayout(bar)
        row.setContentsMargins(14, 8, 14, 8)
        title = QLabel(app_name)
        title.setObjectName("appTitle")
        row.addWidget(title)
        row.addSpacing(16)
        # A button's height, so the bar does not grow when the real controls arrive.
        placeholder = QPushButton(QCoreApplication.translate("StartupSkeleton", "Opening…"))
        placeholder.setFlat(True)
        row.addWidget(placeholder)
        row.addStretch(1)
        return bar

    @staticmethod
    def _panel(name: str, title: str, button: str | None) -> QWidget:
        panel = QFrame()
        panel.setObjectName(name)
        column = QVBoxLayout(panel)
        column.setContentsMargins(10, 10, 10, 10)
        if button is not None:
            new = QPushButton(button)
            new.setObjectName("primaryButton")
            column.addWidget(new)
        label = QLabel(title)
        label.setObjectName("panelTitle")
        column.addWidget(label)
        column.addStretch(1)
        return panel

    @staticmethod
    def _center() -> QWidget:
        center = QFrame()
        center.setObjectName("chatContainer")
        column = QVBoxLayout(center)
        column.setContentsMargins(24, 0, 24, 12)
        column.setSpacing(8)
        hint = QLabel(QCoreApplication.translate("StartupSkeleton", "Opening your chats…"))
        hint.setObjectName("emptyHint")
        middle = QHBoxLayout()
        middle.addStretch(1)
        middle.addWidget(hint)
        middle.addStretch(1)
        column.addStretch(1)
        column.addLayout(middle)
        column.addStretch(1)
        box = QFrame()
        box.setObjectName("composerBox")
        box.setMinimumHeight(96)
        column.addWidget(box)
        return center
