"""Left panel: new chat, search, the projects, and the saved chats — pinned first, then
each project's under its name, then by recency grouped Today / Yesterday / Previous 7
days / Older — with Archived and Trash views.

Each chat has a context menu (Rename, Pin, Duplicate, Archive, Delete); keys: F2
renames in place, Del moves to the trash, Enter opens. Deleting shows an undo bar
for ten seconds. Bound to a :class:`ChatController` with :meth:`SessionList.bind`;
its owner calls :meth:`SessionList.refresh` when the controller's chats change.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.records import SessionInfo
from desktop.ui import theme
from desktop.ui.conversations.chat_library import ChatLibrary
from desktop.ui.conversations.chat_states import ChatStateMarks
from desktop.ui.conversations.session_items import (
    HEADER_ROLE,
    ID_ROLE,
    INFO_ROLE,
    PINNED_ROLE,
    PROJECT_ROLE,
    TITLE_ROLE,
    ChatListWidget,
    UndoBar,
    View,
    grouped,
)

if TYPE_CHECKING:
    from desktop.ui.conversations.project_section import ProjectSection
    from desktop.ui.window.controller import ChatController

#: Chats added each time the list is scrolled to its end: with thousands of chats,
#: listing them all took hundreds of milliseconds on every change (each sent message;
#: tests/bench/bench_shipped_startup.py).
PAGE = 200

#: Chats listed at first: more than a tall window's list shows. The window lists them
#: when it is built and again when a question typed while it loaded is sent, both
#: before that question goes out: 200 rows were ~11-17 ms a listing, 60 are ~4-5 ms.
FIRST_PAGE = 60


class SessionList(QWidget):
    newRequested = Signal()
    searchRequested = Signal()
    sessionSelected = Signal(str)
    renameRequested = Signal(str, str)
    deleteRequested = Signal(str)
    viewChanged = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sessionPanel")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.controller: ChatController | None = None
        self.library: ChatLibrary | None = None
        self.view: View = "chats"
        self._current: str | None = None
        self._pending_refresh = False
        self.project_section: ProjectSection | None = None
        self.limit = FIRST_PAGE  # chats listed in the Chats view (more when scrolled
        # to the end)
        self.more = False  # whether there are more than that
        layout = self._layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        self.new_button = QPushButton(self.tr("+  New chat"))
        self.new_button.setObjectName("primaryButton")
        self.new_button.setToolTip(self.tr("Start a new conversation (Ctrl+N)"))
        self.new_button.clicked.connect(self.newRequested)
        layout.addWidget(self.new_button)
        self.search_button = QPushButton(self.tr("Search chats…   Ctrl+K"))
        self.search_button.setToolTip(self.tr("Find a chat by a word in it (Ctrl+K)"))
        self.search_button.clicked.connect(self.searchRequested)
        layout.addWidget(self.search_button)
        self.title = QLabel(self.tr("Chats"))
        self.title.setObjectName("panelTitle")
        self.trash_row = self._trash_row()
        self.list = ChatListWidget()
        self.list.setAccessibleName(self.tr("Chats"))
        self.marks = ChatStateMarks(self.list)  # answering, approval, failed, unread
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.itemActivated.connect(self._activated)
        self.list.itemClicked.connect(self._activated)
        self.list.itemChanged.connect(self._edited)
        self.list.renameKey.connect(lambda: self._with_current(self.start_rename))
        self.list.deleteKey.connect(lambda: self._with_current(self._delete_key))
        self.list.itemDelegate().closeEditor.connect(self._editor_closed)
        self.list.verticalScrollBar().valueChanged.connect(self._scrolled)
        self.list.verticalScrollBar().rangeChanged.connect(self._range_changed)
        self.empty_label = QLabel()
        self.empty_label.setObjectName("emptyHint")
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.undo_bar = UndoBar()
        self.undo_bar.undoRequested.connect(self._undo)
        for widget in (self.title, self.trash_row):
            layout.addWidget(widget)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.empty_label)
        layout.addWidget(self.undo_bar)
        layout.addWidget(self._view_switcher())

    def _trash_row(self) -> QWidget:
        """What the Trash view says above its chats, with Empty trash (hidden elsewhere)."""
        row = QWidget()
        trash_row = QHBoxLayout(row)
        trash_row.setContentsMargins(0, 0, 0, 0)
        self.trash_hint = QLabel()
        self.trash_hint.setObjectName("emptyHint")
        self.trash_hint.setWordWrap(True)
        self.empty_trash_button = QPushButton(self.tr("Empty trash"))
        self.empty_trash_button.clicked.connect(self._confirm_empty_trash)
        trash_row.addWidget(self.trash_hint, 1)
        trash_row.addWidget(self.empty_trash_button)
        row.hide()
        return row

    def _view_switcher(self) -> QWidget:
        box = QWidget()
        box.setObjectName("viewSwitcher")
        self.switcher = box
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 4, 0, 0)
        row.setSpacing(4)
        self.view_group = QButtonGroup(self)
        self.view_buttons: dict[View, QPushButton] = {}
        views: list[tuple[View, str, str]] = [
            ("chats", self.tr("Chats"), self.tr("Show chats")),
            ("archived", self.tr("Archived"), self.tr("Show archived chats")),
            ("trash", self.tr("Trash"), self.tr("Show the trash"))]
        for view, label, accessible in views:
            button = QPushButton(label)
            button.setCheckable(True)
            button.setChecked(view == "chats")
            button.setFlat(True)
            button.setAccessibleName(accessible)
            button.clicked.connect(partial(self.set_view, view))
            self.view_group.addButton(button)
            self.view_buttons[view] = button
            row.addWidget(button)
        theme.notifier().changed.connect(self._restyle)
        self._restyle()
        return box

    def _restyle(self) -> None:
        c = theme.colors()
        self.switcher.setStyleSheet(
            f"#viewSwitcher QPushButton {{ border: 1px solid transparent; background: "
            f"transparent; color: {c['muted']}; padding: 4px 6px; }}"
            f"#viewSwitcher QPushButton:hover {{ background: {c['hover']}; }}"
            f"#viewSwitcher QPushButton:checked {{ background: {c['base']}; color: {c['text']};"
            f" border: 1px solid {c['border']}; }}")
        self.search_button.setStyleSheet(f"text-align: left; color: {c['muted']};")

    # -- data --------------------------------------------------------------------------

    def bind(self, controller: ChatController) -> None:
        """Act on ``controller`` (the owner calls :meth:`refresh` on ``sessionsChanged``)."""
        self.controller = controller
        self.library = ChatLibrary(controller)
        self.newRequested.connect(controller.new_session)
        self.sessionSelected.connect(controller.open_session)
        self.renameRequested.connect(controller.rename_session)
        self.deleteRequested.connect(self.library.delete_session)
        controller.sessionOpened.connect(lambda session_id, _messages: self.select(session_id))
        controller.chatStateChanged.connect(self.set_chat_state)

    def set_projects(self, section: ProjectSection) -> None:
        """Show the projects above the chats (their chats are grouped under them; the
        owner redraws the list when a chat moves)."""
        self.project_section = section
        self._layout.insertWidget(2, section)

    def _project_names(self) -> dict[str, str]:
        section = self.project_section
        return {p.id: p.name for p in section.projects.all()} if section is not None else {}

    def set_chat_state(self, session_id: str, state: str) -> None:
        self.marks.set_state(session_id, state)

    def state_of(self, session_id: str) -> str:
        return self.marks.state_of(session_id)

    def refresh(self, current: str | None = None) -> None:
        """Reload the shown view from the controller's store."""
        if self.controller is None:
            return
        if current is None:
            current = self.controller.session_id
        store = self.controller.services.sessions
        if self.view == "trash":
            days = self.controller.settings.trash_retention_days
            self.trash_hint.setText(
                self.tr("Chats here are erased after %n days.", "", days)
                if days else self.tr("Chats here are erased when the app next starts."))
            sessions = store.list_deleted()
        elif self.view == "archived":
            sessions = store.list_sessions(archived=True)
        else:  # a page more than shown, to know whether there are more
            sessions = store.list_sessions(limit=self.limit + 1)
        self.more = self.view == "chats" and len(sessions) > self.limit
        self.set_sessions(sessions[:self.limit] if self.more else sessions, current)

    def _scrolled(self, value: int) -> None:
        bar = self.list.verticalScrollBar()
        if self.more and value >= bar.maximum() - bar.pageStep() // 2:
            self.more = False  # (once: the next refresh tells again)
            QTimer.singleShot(0, self.show_more)

    def _range_changed(self, _minimum: int, maximum: int) -> None:
        if self.more and maximum == 0:  # (also while rows are being added: look after)
            QTimer.singleShot(0, self._fill_if_short)

    def _fill_if_short(self) -> None:
        """A list that shows its whole page without scrolling (a very tall window)
        cannot be scrolled to its end: the next page comes at once."""
        view = self.list
        height = view.viewport().height()
        if not (self.more and view.count() and view.isVisible() and height > 0) \
                or view.count() * view.fontMetrics().height() > height:
            return  # (rows are a line high at least: these scroll, no layout needed)
        view.doItemsLayout()  # (the scroll range of all its rows, as laid out now)
        if view.verticalScrollBar().maximum() == 0:
            self.more = False
            self.show_more()

    def show_more(self) -> None:
        """List the next page of chats (the list was scrolled to its end)."""
        self.limit += PAGE
        self.refresh()

    def set_view(self, view: View) -> None:
        self.view = view
        self.view_buttons[view].setChecked(True)
        self.title.setText({"chats": self.tr("Chats"), "archived": self.tr("Archived chats"),
                            "trash": self.tr("Trash")}[view])
        self.trash_row.setVisible(view == "trash")
        self.refresh()
        self.viewChanged.emit(view)

    def set_sessions(self, sessions: list[SessionInfo], current: str | None) -> None:
        if self.list.state() == QAbstractItemView.State.EditingState:
            self._pending_refresh = True  # do not pull the list away from under an edit
            return
        self._current = current
        self.marks.set_current(current)
        scroll = self.list.verticalScrollBar().value()
        self.list.blockSignals(True)
        self.list.clear()
        previous: str | None = None
        for group, info in grouped(sessions, self.view, projects=self._project_names()):
            item = QListWidgetItem(info.title)
            item.setData(ID_ROLE, info.id)
            item.setData(PROJECT_ROLE, info.project_id)
            item.setData(TITLE_ROLE, info.title)
            item.setData(PINNED_ROLE, info.pinned)
            if group != previous:
                item.setData(HEADER_ROLE, group)
                previous = group
            item.setData(INFO_ROLE, info)
            if self.view != "trash":
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
            self.marks.show(item, info.id)
            self.list.addItem(item)
            if info.id == current:
                item.setSelected(True)
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)
        self.list.verticalScrollBar().setValue(scroll)
        self.empty_label.setText({"chats": self.tr("No chats yet."),
                                  "archived": self.tr("Archived chats appear here."),
                                  "trash": self.tr("The trash is empty.")}[self.view])
        self.empty_label.setVisible(not sessions)
        self.empty_trash_button.setEnabled(bool(sessions))

    def select(self, session_id: str) -> None:
        """Mark the open chat (none when it is not in this view)."""
        self._current = session_id or None
        self.marks.set_current(self._current)
        item = self.item_for(session_id) if session_id else None
        self.list.blockSignals(True)
        if item is None:
            self.list.clearSelection()
            self.list.setCurrentRow(-1)
        else:
            self.list.setCurrentItem(item)
            self.list.scrollToItem(item)
        self.list.blockSignals(False)

    def items(self) -> list[QListWidgetItem]:
        return [self.list.item(i) for i in range(self.list.count())]

    def item_for(self, session_id: str) -> QListWidgetItem | None:
        return next((i for i in self.items() if i.data(ID_ROLE) == session_id), None)

    def headers(self) -> list[str]:
        """The group titles shown, in order (for tests and accessibility)."""
        return [str(i.data(HEADER_ROLE)) for i in self.items() if i.data(HEADER_ROLE)]

    def current_id(self) -> str | None:
        item = self.list.currentItem()
        return str(item.data(ID_ROLE)) if item is not None else None

    # -- actions ---------------------------------------------------------------------------

    def _with_current(self, action: Callable[[str], object]) -> None:
        session_id = self.current_id()
        if session_id is not None:
            action(session_id)

    def _activated(self, item: QListWidgetItem) -> None:
        if self.view != "trash":
            self.sessionSelected.emit(item.data(ID_ROLE))

    def _menu(self, pos: QPoint) -> None:
        item = self.list.itemAt(pos) or self.list.currentItem()
        if item is None:
            return
        session_id = str(item.data(ID_ROLE))
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)

        def add(text: str, slot: Callable[[], object], shortcut: str = "") -> None:
            action = menu.addAction(text)
            if shortcut:
                action.setShortcut(shortcut)
            action.triggered.connect(slot)

        if self.view == "trash":
            add(self.tr("Restore"), partial(self.restore, session_id))
            add(self.tr("Delete forever…"), partial(self._confirm_purge, session_id))
        else:
            pinned = bool(item.data(PINNED_ROLE))
            archived = self.view == "archived"
            add(self.tr("Open"), partial(self.sessionSelected.emit, session_id))
            add(self.tr("Rename"), partial(self.start_rename, session_id), "F2")
            if not archived:
                add(self.tr("Unpin") if pinned else self.tr("Pin"),
                    partial(self._call, "set_pinned", session_id, not pinned))
            add(self.tr("Duplicate"), partial(self._call, "duplicate_session", session_id))
            self._project_menu(menu, session_id, item.data(PROJECT_ROLE))
            add(self.tr("Unarchive") if archived else self.tr("Archive"),
                partial(self._call, "set_archived", session_id, not archived))
            menu.addSeparator()
            add(self.tr("Delete"), partial(self.delete, session_id), "Del")
        menu.popup(self.list.viewport().mapToGlobal(pos))

    def _project_menu(self, menu: QMenu, session_id: str, project_id: str | None) -> None:
        """Move to project ▸ (each other project), and Remove from project."""
        section = self.project_section
        if section is None:
            return
        others = [p for p in section.projects.all() if p.id != project_id]
        if others:
            move = menu.addMenu(self.tr("Move to project"))
            for project in others:
                move.addAction(project.name).triggered.connect(
                    partial(section.move_chat, session_id, project.id))
        if project_id:
            menu.addAction(self.tr("Remove from project")).triggered.connect(
                partial(section.move_chat, session_id, None))

    def _call(self, method: str, *args: object) -> None:
        if self.library is not None:
            getattr(self.library, method)(*args)

    def start_rename(self, session_id: str) -> None:
        item = self.item_for(session_id)
        if item is not None and self.view != "trash":
            self.list.setCurrentItem(item)
            self.list.editItem(item)

    def _edited(self, item: QListWidgetItem) -> None:
        old = str(item.data(TITLE_ROLE))
        new = " ".join(item.text().split())
        if not new or new == old:
            self.list.blockSignals(True)
            item.setText(old)
            self.list.blockSignals(False)
            return
        item.setData(TITLE_ROLE, new)
        # After the editor has closed: the rename redraws the list.
        QTimer.singleShot(0, partial(self.renameRequested.emit, str(item.data(ID_ROLE)), new))

    def _editor_closed(self) -> None:
        if self._pending_refresh:
            self._pending_refresh = False
            QTimer.singleShot(0, self.refresh)

    def _delete_key(self, session_id: str) -> None:
        if self.view == "trash":
            self._confirm_purge(session_id)
        else:
            self.delete(session_id)

    def delete(self, session_id: str) -> None:
        """Move the chat to the trash and offer Undo."""
        item = self.item_for(session_id)
        title = str(item.data(TITLE_ROLE)) if item is not None else self.tr("the chat")
        was_open = self.controller is not None and self.controller.session_id == session_id
        self.deleteRequested.emit(session_id)
        self.undo_bar.offer(session_id, title)
        if was_open:
            self.undo_bar.setProperty("reopen", session_id)

    def _undo(self, session_ids: list[str]) -> None:
        reopen = self.undo_bar.property("reopen")
        self.undo_bar.setProperty("reopen", None)
        for session_id in session_ids:
            self.restore(session_id)
        if reopen in session_ids and self.controller is not None:
            self.controller.open_session(str(reopen))

    def restore(self, session_id: str) -> None:
        self._call("restore_session", session_id)

    def _confirm_purge(self, session_id: str) -> None:
        item = self.item_for(session_id)
        title = str(item.data(TITLE_ROLE)) if item is not None else self.tr("this chat")
        self._confirm(self.tr("Delete “{title}” forever? This cannot be undone.").format(
                          title=title),
                      partial(self._call, "purge_session", session_id))

    def _confirm_empty_trash(self) -> None:
        self._confirm(self.tr("Delete every chat in the trash forever? This cannot be undone."),
                      partial(self._call, "empty_trash"))

    def _confirm(self, text: str, action: Callable[[], object]) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Delete forever"), text,
                          QMessageBox.StandardButton.Cancel, self)
        delete = box.addButton(self.tr("Delete forever"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.finished.connect(lambda _r: action() if box.clickedButton() is delete else None)
        self.confirm_box = box
        box.open()
