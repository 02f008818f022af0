"""Left panel: new chat, and the saved sessions (most recent first)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.storage.sessions import SessionInfo


class SessionList(QWidget):
    newRequested = Signal()
    sessionSelected = Signal(str)
    renameRequested = Signal(str, str)
    deleteRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sessionPanel")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        self.new_button = QPushButton("+  New chat")
        self.new_button.setObjectName("primaryButton")
        self.new_button.setToolTip("Start a new conversation (Ctrl+N)")
        self.new_button.clicked.connect(self.newRequested)
        layout.addWidget(self.new_button)
        title = QLabel("Chats")
        title.setObjectName("panelTitle")
        layout.addWidget(title)
        self.list = QListWidget()
        self.list.setAccessibleName("Chats")
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.itemActivated.connect(self._activated)
        self.list.itemClicked.connect(self._activated)
        layout.addWidget(self.list, 1)

    def set_sessions(self, sessions: list[SessionInfo], current: str | None) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        for info in sessions:
            item = QListWidgetItem(info.title)
            item.setData(Qt.ItemDataRole.UserRole, info.id)
            item.setToolTip(info.title)
            self.list.addItem(item)
            if info.id == current:
                item.setSelected(True)
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)

    def _activated(self, item: QListWidgetItem) -> None:
        self.sessionSelected.emit(item.data(Qt.ItemDataRole.UserRole))

    def _menu(self, pos: QPoint) -> None:
        item = self.list.itemAt(pos)
        if item is None:
            return
        menu = QMenu(self)
        rename = menu.addAction("Rename…")
        delete = menu.addAction("Delete")
        chosen = menu.exec(self.list.mapToGlobal(pos))
        session_id = item.data(Qt.ItemDataRole.UserRole)
        if chosen is rename:
            self.prompt_rename(session_id, item.text())
        elif chosen is delete:
            self.confirm_delete(session_id, item.text())

    def prompt_rename(self, session_id: str, current: str) -> None:
        title, ok = QInputDialog.getText(self, "Rename chat", "Title:", text=current)
        if ok and title.strip():
            self.renameRequested.emit(session_id, title.strip())

    def confirm_delete(self, session_id: str, title: str) -> None:
        answer = QMessageBox.question(self, "Delete chat",
                                      f"Delete “{title}”? This cannot be undone.")
        if answer == QMessageBox.StandardButton.Yes:
            self.deleteRequested.emit(session_id)

    def current_id(self) -> str | None:
        item = self.list.currentItem()
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None
