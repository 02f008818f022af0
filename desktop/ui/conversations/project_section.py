"""The Projects section at the top of the chat list: one row per project (its name and
how many chats it holds), a New project button, and a menu per project (Open, New
chat in it, Delete). A chat dragged from the list below onto a project moves into it.

It reads and changes projects through the :class:`ProjectService` it is given; the
owner connects its signals (open the project page, start a chat, redraw the list).
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QPoint, QSize, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.errors import AssistaError
from desktop.projects.service import ProjectService
from desktop.ui.conversations.session_items import dragged_chat
from desktop.ui.error_text import exception_text
from desktop.ui.icons import icon

ID_ROLE = Qt.ItemDataRole.UserRole
MAX_ROWS = 6  # more projects scroll inside the section


class ProjectList(QListWidget):
    """The projects; a chat dropped on one moves into it."""

    chatDropped = Signal(str, str)  # session id, project id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAcceptDrops(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DropOnly)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setIconSize(QSize(16, 16))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dragged_chat(event.mimeData()) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        item = self.itemAt(event.position().toPoint())
        if item is not None and dragged_chat(event.mimeData()) is not None:
            self.setCurrentItem(item)
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        item = self.itemAt(event.position().toPoint())
        chat = dragged_chat(event.mimeData())
        if item is None or chat is None:
            event.ignore()
            return
        event.acceptProposedAction()
        self.chatDropped.emit(chat, str(item.data(ID_ROLE)))


class ProjectSection(QWidget):
    openRequested = Signal(str)  # project id ("" : a new project)
    newChatRequested = Signal(str)  # project id
    deleteRequested = Signal(str)  # project id
    chatMoved = Signal(str)  # session id (the chat list redraws)
    errorOccurred = Signal(str)

    def __init__(self, projects: ProjectService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.projects = projects
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(2)
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel(self.tr("Projects"))
        self.title.setObjectName("panelTitle")
        self.new_button = QToolButton()
        self.new_button.setIcon(icon("plus", "muted"))
        self.new_button.setAutoRaise(True)
        self.new_button.setToolTip(self.tr("New project"))
        self.new_button.setAccessibleName(self.tr("New project"))
        self.new_button.clicked.connect(lambda: self.openRequested.emit(""))
        head.addWidget(self.title, 1)
        head.addWidget(self.new_button)
        layout.addLayout(head)
        self.list = ProjectList()
        self.list.setAccessibleName(self.tr("Projects"))
        self.list.setToolTip(self.tr("Drag a chat here to move it into a project"))
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.itemActivated.connect(self._open)
        self.list.itemClicked.connect(self._open)
        self.list.chatDropped.connect(self.move_chat)
        self.hint = QLabel(self.tr("Group chats with shared instructions and files."))
        self.hint.setObjectName("emptyHint")
        self.hint.setWordWrap(True)
        layout.addWidget(self.list)
        layout.addWidget(self.hint)
        self.refresh()

    def refresh(self) -> None:
        counts = self.projects.chat_counts()
        self.list.clear()
        for project in self.projects.all():
            n = counts.get(project.id, 0)
            item = QListWidgetItem(icon("folder", "muted"), project.name)
            item.setData(ID_ROLE, project.id)
            item.setToolTip(self.tr("%n chats", "", n))
            item.setData(Qt.ItemDataRole.AccessibleDescriptionRole, self.tr("%n chats", "", n))
            self.list.addItem(item)
        rows = min(self.list.count(), MAX_ROWS)
        height = self.list.sizeHintForRow(0) * rows + 2 * self.list.frameWidth() if rows else 0
        self.list.setFixedHeight(height)
        self.list.setVisible(rows > 0)
        self.hint.setVisible(rows == 0)

    def project_ids(self) -> list[str]:
        return [str(self.list.item(i).data(ID_ROLE)) for i in range(self.list.count())]

    def move_chat(self, session_id: str, project_id: str | None) -> bool:
        """Put the chat in the project (None: out of any project)."""
        try:
            self.projects.move_chat(session_id, self.projects.get(project_id))
        except AssistaError as exc:
            self.errorOccurred.emit(exception_text(exc))
            return False
        self.refresh()
        self.chatMoved.emit(session_id)
        return True

    def _open(self, item: QListWidgetItem) -> None:
        self.openRequested.emit(str(item.data(ID_ROLE)))

    def _menu(self, pos: QPoint) -> None:
        item = self.list.itemAt(pos)
        if item is None:
            return
        project_id = str(item.data(ID_ROLE))
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        for text, signal in ((self.tr("Open project"), self.openRequested),
                             (self.tr("New chat in project"), self.newChatRequested),
                             (self.tr("Delete project…"), self.deleteRequested)):
            menu.addAction(text).triggered.connect(partial(signal.emit, project_id))
        menu.popup(self.list.viewport().mapToGlobal(pos))
