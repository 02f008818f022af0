"""What the main window shows in the fraction of a second before it is filled.

The window appears as soon as Qt is up (the database, the models, the agent loop and
the chat view load after its first frame, see :mod:`desktop.gui`). Until then
it shows this: the same top bar, the three panes at their saved widths and an empty
message box, styled by the same stylesheet, so filling it in changes the content,
not the layout. Right after its first frame it lists the newest chats (read with
plain ``sqlite3``, :func:`~desktop.storage.first_chats.read_first_chats`) and its
message box takes typing: what is typed (and an Enter) is handed to the real composer
(:meth:`StartupSkeleton.take_typing`), a chat clicked is opened once the app is loaded.
Only Qt widget classes, and not Qt's ``Qt`` namespace before the first frame (creating
its enums takes ~13 ms): frames instead of styled-background widgets, stretches
instead of alignment flags, the splitter's default orientation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QSize
from PySide6.QtGui import QKeyEvent, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop.ui import theme
from desktop.ui.window.panel_widths import CHATS_INLINE_MIN, TOOLS_INLINE_MIN

if TYPE_CHECKING:
    from desktop.core.first_frame import FirstChat

DEFAULT_SPLITTER = (230, 730, 330)
ROW_HEIGHT = 26  # px: a row of the chat list (desktop.ui.conversations.session_items)


class EarlyTyping:
    """What was typed in the skeleton's message box, for the real composer."""

    __slots__ = ("focused", "send", "text")

    def __init__(self, text: str, send: bool, focused: bool) -> None:
        self.text = text
        self.send = send  #: Enter was pressed: send it once the app can
        self.focused = focused  #: the box had the keyboard focus


class EarlyMessageBox(QPlainTextEdit):
    """Takes typing before the composer exists; Enter (without Shift) asks for the
    text to be sent as soon as the app is loaded, Shift+Enter is a new line."""

    def __init__(self) -> None:
        super().__init__()
        self.send_requested = False
        #: called at Enter once a question can be sent before the window is built
        self.on_send: Callable[[], None] | None = None
        self.setObjectName("composerInput")
        self.setAccessibleName(QCoreApplication.translate("StartupSkeleton", "Message"))
        self.setPlaceholderText(QCoreApplication.translate(
            "StartupSkeleton", "Type a message… (it is sent once the app has loaded)"))
        self.setTabChangesFocus(True)
        self.setFixedHeight(56)  # the composer's

    def keyPressEvent(self, event: QKeyEvent) -> None:
        from PySide6.QtCore import Qt

        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (
                event.modifiers() & Qt.KeyboardModifier.ShiftModifier):
            if self.toPlainText().strip():
                self.send_requested = True
                self.setReadOnly(True)  # what is sent is what was there at Enter
                if self.on_send is not None:
                    self.on_send()
            return
        super().keyPressEvent(event)


class StartupSkeleton(QWidget):
    """The window's content while the app loads (replaced by the real one)."""

    def __init__(self, app_name: str, splitter: Sequence[int] = (),
                 sidebar_visible: bool = False) -> None:
        super().__init__()
        self.setObjectName("startupSkeleton")
        self.chat_list: QListWidget | None = None  # (after the first frame, :meth:`fill`)
        self.message_box: EarlyMessageBox | None = None
        self.chosen_chat: str | None = None  #: clicked before the app had loaded
        self.first_chats: list[FirstChat] = []  #: listed by :meth:`fill`
        self.early_keys: list[QKeyEvent] = []  #: pressed in the window before :meth:`fill`
        self._watching: QWidget | None = None
        self._on_send: Callable[[], None] | None = None
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        top_bar = self._top_bar(app_name)
        top_bar.setEnabled(False)  # (nothing in the skeleton acts before it is filled)
        outer.addWidget(top_bar)

        self.splitter = QSplitter()  # horizontal
        self.sessions_panel = self._panel("sessionPanel", self.tr("Chats"),
                                          self.tr("+  New chat"))
        self.splitter.addWidget(self.sessions_panel)
        self.splitter.addWidget(self._center())
        self.sidebar = self._panel("toolSidebar", self.tr("Tool activity"), None)
        self.splitter.addWidget(self.sidebar)
        self.sidebar_visible = sidebar_visible
        self.sidebar.setVisible(sidebar_visible)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes(list(splitter) if len(splitter) == 3 else list(DEFAULT_SPLITTER))
        outer.addWidget(self.splitter, 1)
        self.setEnabled(False)

    def showEvent(self, event: QShowEvent) -> None:
        """Until the message box is there, keys pressed in the window are kept for it:
        typing starts the moment the window has the focus (with nothing enabled in the
        skeleton the window itself gets the keys, and dropped them)."""
        super().showEvent(event)
        if self.message_box is None and self._watching is None:
            self._watching = self.window()
            self._watching.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # (no Qt enum is looked at for the window's other events before the first frame)
        if isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress:
            self.early_keys.append(QKeyEvent(event.type(), event.key(), event.modifiers(),
                                             event.text()))
            return True
        return False

    def resizeEvent(self, event: QResizeEvent) -> None:
        """The side panes leave at the widths where the real ones become drawers."""
        super().resizeEvent(event)
        width = self.width() / theme.ui_scale()
        self.sessions_panel.setVisible(width >= CHATS_INLINE_MIN)
        self.sidebar.setVisible(self.sidebar_visible and width >= TOOLS_INLINE_MIN)

    def fill(self, chats: Sequence[FirstChat]) -> None:
        """List ``chats`` (newest first, as read) and take typing in the message box."""
        self.setEnabled(True)
        for child in self.findChildren(QPushButton):
            child.setEnabled(False)  # New chat and the top bar's placeholder do nothing yet
        column = self.sessions_panel.layout()
        if not isinstance(column, QVBoxLayout) or self.chat_list is not None:
            return
        column.takeAt(column.count() - 1)  # the stretch: the list takes the height
        self.chat_list = QListWidget()
        self.chat_list.setAccessibleName(self.tr("Chats"))
        self.chat_list.setUniformItemSizes(True)
        row = QSize(0, ROW_HEIGHT)  # as tall as the real list's rows: they do not jump
        for chat in chats:
            item = QListWidgetItem(chat.title)
            item.setToolTip(chat.title)
            item.setSizeHint(row)
            self.chat_list.addItem(item)
        self.first_chats = list(chats)
        self.chat_list.itemClicked.connect(self._chosen)
        self.chat_list.itemActivated.connect(self._chosen)
        column.addWidget(self.chat_list, 1)
        self.message_box = EarlyMessageBox()
        self.message_box.on_send = self._on_send
        box = self.composer_box.layout()
        if isinstance(box, QVBoxLayout):
            box.addWidget(self.message_box)
            box.addStretch(1)  # (where the composer's buttons come)
        # (a layout shows a widget added to it only on a later turn of the loop)
        self.chat_list.show()
        self.message_box.show()
        self.message_box.setFocus()
        if self._watching is not None:
            self._watching.removeEventFilter(self)
            self._watching = None
        for key in self.early_keys:  # (typed before the box was there)
            self.message_box.keyPressEvent(key)
        self.early_keys.clear()

    @property
    def on_send(self) -> Callable[[], None] | None:
        """Called at Enter in the message box once a question can be sent (set by
        :class:`desktop.ui.window.early_question.EarlyQuestion`)."""
        return self._on_send

    @on_send.setter
    def on_send(self, send: Callable[[], None] | None) -> None:
        self._on_send = send
        if self.message_box is not None:
            self.message_box.on_send = send

    def _chosen(self, item: QListWidgetItem) -> None:
        if self.chat_list is not None:
            self.chosen_chat = self.first_chats[self.chat_list.row(item)].id

    def listed(self) -> list[str]:
        """The titles listed (none before :meth:`fill`)."""
        return [] if self.chat_list is None else [
            self.chat_list.item(row).text() for row in range(self.chat_list.count())]

    def take_typing(self) -> EarlyTyping:
        """What was typed so far (the box is emptied: the composer takes it over)."""
        box = self.message_box
        if box is None:
            return EarlyTyping("", False, False)
        typing = EarlyTyping(box.toPlainText(), box.send_requested, box.hasFocus())
        box.clear()
        box.send_requested = False
        return typing

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

    def _center(self) -> QWidget:
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
        self.composer_box = QFrame()
        self.composer_box.setObjectName("composerBox")
        self.composer_box.setMinimumHeight(96)
        QVBoxLayout(self.composer_box).setContentsMargins(8, 8, 8, 8)
        column.addWidget(self.composer_box)
        return center


def hand_over_typing(box: QPlainTextEdit, typing: EarlyTyping) -> None:
    """Put what was typed before ``box`` existed after what it holds (a chat's draft),
    the cursor at the end, and give it the focus if the typing had it."""
    if typing.text:
        from PySide6.QtGui import QTextCursor

        box.moveCursor(QTextCursor.MoveOperation.End)
        held = box.toPlainText()
        if held and not held.endswith("\n"):
            box.insertPlainText("\n")
        box.insertPlainText(typing.text)
    if typing.focused:
        box.setFocus()
