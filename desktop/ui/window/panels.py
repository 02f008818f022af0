"""The window's body at any width: chat list | chat | Tool activity in a splitter when
there is room, the side panels as drawers over the chat when there is not.

Widths (of the body, in pixels at zoom 0, growing with the zoom):

- from :data:`TOOLS_INLINE_MIN`: all three side by side, as the user sized them;
- below it, Tool activity leaves the splitter: when switched on (the top bar's toggle,
  Ctrl+B, or Ctrl+Shift+A) it slides in at the right, beside the chat, which narrows
  (over it only when the chat would be narrower than it can be), the chat list going
  to its drawer if need be: the chat's approval buttons and the composer's Send are
  never under it;
- below :data:`CHATS_INLINE_MIN`, the chat list leaves too: the button at the chat's
  top left (or Ctrl+Shift+L) shows it over the left of the chat; picking a chat or Esc
  hides it.

The window never grows to fit its content: the body's minimum size is fixed
(:data:`BODY_MIN`), and the panels' own minimum widths too; what does not fit is
squeezed, elided or moved into a drawer, never pushed outward.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QGraphicsDropShadowEffect,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop.ui import icons, theme
from desktop.ui.window.panel_widths import CHATS_INLINE_MIN, TOOLS_INLINE_MIN

SIDE_PANEL_MIN = 150  # px: the side panels at their narrowest when inline
CHAT_MIN = 280  # px: the chat column at its narrowest
BODY_MIN = (300, 240)  # px: the body's fixed minimum (the window's, with the top bar)
DRAWER_WIDTH = (260, 340)  # px: chat list drawer, Tool activity drawer
DRAWER_MIN_BESIDE = 240  # px: Tool activity narrower than this goes over the chat


class Drawer(QFrame):
    """A panel shown over the chat, against one edge of the body."""

    def __init__(self, name: str, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAutoFillBackground(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        shadow = QGraphicsDropShadowEffect(self)
        shadow.setBlurRadius(24)
        shadow.setOffset(0, 0)
        shadow.setColor(QColor(0, 0, 0, 90))
        self.setGraphicsEffect(shadow)
        self.hide()


class ResponsivePanels(QWidget):
    """The body: owns the splitter and moves the side panels in and out of it."""

    chatListShown = Signal(bool)  # the chat list drawer opened or closed

    def __init__(self, splitter_sizes: list[int], parent: QWidget | None = None) -> None:
        """The body, empty: the panes are made in :attr:`splitter` (built widgets moved
        into another parent are restyled again, whole: ~3 ms a pane), then
        :meth:`place` puts them in order."""
        super().__init__(parent)
        self.setMinimumSize(*BODY_MIN)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setChildrenCollapsible(False)
        self.wide_sizes = list(splitter_sizes)  # the user's widths, for when all fit
        self.tools_wanted = True  # the Tool activity switch (set by the window)
        self.chats_drawer = Drawer("chatListDrawer", self)
        self.tools_drawer = Drawer("toolsDrawer", self)
        self.chats_button = icons.icon_button(
            "panel-left", self.tr("Show the chat list (Ctrl+Shift+L)"), self.tr("Chat list"), self)
        self.chats_button.setObjectName("chatListToggle")
        self.chats_button.clicked.connect(self.toggle_chat_list)
        self.chats_button.hide()
        self._chats_inline = True
        self._tools_inline = True
        self._placed = False  # (no layout of the panes before they are all there)

    def place(self, sessions: QWidget, chat: QWidget, sidebar: QWidget) -> None:
        """Chat list | chat | Tool activity, in the splitter (made there, or moved in)."""
        self.sessions, self.chat, self.sidebar = sessions, chat, sidebar
        for widget in (sessions, chat, sidebar):
            self.splitter.addWidget(widget)
        sessions.setMinimumWidth(SIDE_PANEL_MIN)
        sidebar.setMinimumWidth(SIDE_PANEL_MIN)
        chat.setMinimumWidth(CHAT_MIN)
        self.splitter.setStretchFactor(1, 1)
        sizes = self.wide_sizes
        if len(sizes) == 3:
            # (at their own total width: a splitter not yet laid out would scale them
            # to its default 100 px; widening later goes to the chat, stretch 1)
            self.splitter.resize(sum(sizes), self.splitter.height())
            self.splitter.setSizes(sizes)
        sessions.installEventFilter(self)
        sidebar.installEventFilter(self)
        theme.notifier().changed.connect(self._relayout)
        self._placed = True  # (laid out at its next resize: when the window shows it)

    def set_tab_order(self, chat_list: QWidget, messages: QWidget, composer: QWidget) -> None:
        """Tab goes chat list → messages → composer (its buttons) → Tool activity."""
        messages.setFocusPolicy(messages.focusPolicy() | Qt.FocusPolicy.TabFocus)
        QWidget.setTabOrder(chat_list, messages)
        QWidget.setTabOrder(messages, composer)

    def focus_chain(self) -> list[QWidget]:
        """The window's widgets in Tab order (from the top of the window)."""
        start = self.window()
        chain: list[QWidget] = []
        widget = start.nextInFocusChain()
        while widget is not None and widget is not start and len(chain) < 10_000:
            chain.append(widget)
            widget = widget.nextInFocusChain()
        return chain

    # -- what the user switches ------------------------------------------------------------

    def set_tools_visible(self, visible: bool) -> None:
        """The Tool activity switch: inline it shows or hides the panel (and is remembered);
        when narrow any press opens or closes the drawer, which starts closed — a drawer
        open by default would cover half a small window."""
        if self._tools_inline:
            self.tools_wanted = visible
            self.sidebar.setVisible(visible)
        else:
            self.show_tools_drawer(not self.tools_drawer.isVisible())

    def show_tools_drawer(self, shown: bool) -> None:
        self.tools_drawer.setVisible(shown)
        self._relayout()  # (the chat narrows beside it, or widens again)
        if shown:
            self.tools_drawer.raise_()

    def tools_shown(self) -> bool:
        """Tool activity is on screen (beside the chat, or as a drawer)."""
        return self.tools_wanted if self._tools_inline else self.tools_drawer.isVisible()

    def tools_inline(self) -> bool:
        return self._tools_inline

    def chats_inline(self) -> bool:
        return self._chats_inline

    def toggle_chat_list(self) -> None:
        self.show_chat_list(not self.chats_drawer.isVisible())

    def show_chat_list(self, shown: bool) -> None:
        """Show (or hide) the chat list; inline it is always there and this focuses it."""
        if self._chats_inline:
            if shown:
                self.sessions.setFocus()
            return
        if shown == self.chats_drawer.isVisible():
            return
        focus = QApplication.focusWidget()
        had_focus = focus is not None and self.chats_drawer.isAncestorOf(focus)
        self.chats_drawer.setVisible(shown)
        if shown:
            self._place_drawers()
            self.chats_drawer.raise_()
            self.sessions.setFocus()
        elif had_focus:  # the drawer closed over a chosen chat: write in it
            self.chat.setFocus()
        self.chats_button.setChecked(shown)
        self.chatListShown.emit(shown)

    def make_room_for_tools(self, width: int = 320) -> None:
        """An approval waits: Tool activity wide enough to read its card."""
        if not self._tools_inline:
            self.show_tools_drawer(True)
            return
        self.set_tools_visible(True)
        sizes = self.splitter.sizes()
        if self._tools_inline and len(sizes) == 3 and sizes[2] < 200:
            self.splitter.setSizes([sizes[0], max(sizes[1] + sizes[2] - width, CHAT_MIN),
                                    width])

    def sizes_to_save(self) -> list[int]:
        """The splitter widths to remember: as the user left them when all fitted."""
        if self._chats_inline and self._tools_inline:
            self._remember_wide_sizes()
        return self.wide_sizes

    def _remember_wide_sizes(self) -> None:
        sizes = self.splitter.sizes()
        if len(sizes) == 3 and sizes[0] and sizes[1]:
            # (a hidden Tool activity is 0 wide: keep the width it had)
            hidden_tools = sizes[2] or (self.wide_sizes[2] if len(self.wide_sizes) == 3
                                        else 0)
            self.wide_sizes = [sizes[0], sizes[1], hidden_tools]

    # -- layout ------------------------------------------------------------------------------

    def resizeEvent(self, event: object) -> None:
        self._relayout()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Esc in a drawer closes it and gives the focus back to the chat."""
        if not (event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent)
                and event.key() == Qt.Key.Key_Escape):
            return False
        if watched is self.sessions and self.chats_drawer.isVisible():
            self.show_chat_list(False)
        elif watched is self.sidebar and self.tools_drawer.isVisible():
            self.show_tools_drawer(False)
        else:
            return False
        self.chat.setFocus()
        return True

    def _relayout(self) -> None:
        if not self._placed:
            return
        scale = theme.ui_scale()
        width = self.width()
        tools = width >= TOOLS_INLINE_MIN * scale
        # (Tool activity open beside the chat: the chat list leaves first, to its drawer)
        beside = self._tools_drawer_width() if not tools and self.tools_drawer.isVisible() else 0
        self._set_inline(chats=width - beside >= CHATS_INLINE_MIN * scale, tools=tools)
        self._place_drawers()

    def _tools_drawer_width(self) -> int:
        return min(round(DRAWER_WIDTH[1] * theme.ui_scale()), int(self.width() * 0.9))

    def _set_inline(self, *, chats: bool, tools: bool) -> None:
        if self._chats_inline and self._tools_inline and (not chats or not tools):
            self._remember_wide_sizes()
        if tools != self._tools_inline:
            self._tools_inline = tools
            self._move(self.sidebar, self.tools_drawer, 2, inline=tools)
            self.sidebar.setVisible(self.tools_wanted or not tools)
            self.tools_drawer.hide()
        if chats != self._chats_inline:
            self._chats_inline = chats
            self._move(self.sessions, self.chats_drawer, 0, inline=chats)
            self.sessions.show()
            self.chats_drawer.hide()
            self.chats_button.setVisible(not chats)
            self.chats_button.setCheckable(True)
            self.chats_button.setChecked(False)
        if chats and tools and len(self.wide_sizes) == 3:
            self.splitter.setSizes(self.wide_sizes)

    def _move(self, panel: QWidget, drawer: Drawer, index: int, *, inline: bool) -> None:
        if inline:
            self.splitter.insertWidget(index, panel)
            panel.setMinimumWidth(SIDE_PANEL_MIN)
            return
        layout = drawer.layout()
        if layout is not None:
            layout.addWidget(panel)
        panel.setMinimumWidth(0)

    def _place_drawers(self) -> None:
        scale = theme.ui_scale()
        rect = self.rect()
        chats_w = min(round(DRAWER_WIDTH[0] * scale), int(rect.width() * 0.85))
        tools_w = self._tools_drawer_width()
        # Beside the chat when the chat keeps its minimum width and the drawer a
        # readable one; else over the chat (a huge zoom in a small window)
        room = rect.width() - self.splitter.minimumSizeHint().width()
        beside = (not self._tools_inline and self.tools_drawer.isVisible()
                  and room >= round(DRAWER_MIN_BESIDE * scale))
        if beside:
            tools_w = min(tools_w, room)
        self.splitter.setGeometry(rect.adjusted(0, 0, -tools_w if beside else 0, 0))
        self.chats_drawer.setGeometry(QRect(0, 0, chats_w, rect.height()))
        self.tools_drawer.setGeometry(QRect(rect.width() - tools_w, 0, tools_w, rect.height()))
        margin = theme.scaled(6)
        self.chats_button.adjustSize()
        self.chats_button.move(margin, margin)
        self.chats_button.raise_()
        for drawer in (self.chats_drawer, self.tools_drawer):
            if drawer.isVisible():
                drawer.raise_()
