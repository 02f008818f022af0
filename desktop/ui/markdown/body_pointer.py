"""What the mouse does on a message body: select text (a press, a drag that extends
the selection across messages, a double-click for a word), open a link on a click
that did not drag, copy a code block from its header button, and show where the
pointer can act. The view forwards its mouse events here."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QMouseEvent, QTextCursor
from PySide6.QtWidgets import QApplication

from desktop.ui.markdown.artifacts import button_tip
from desktop.ui.plain_text import plain_tooltip

if TYPE_CHECKING:
    from desktop.ui.markdown.view import MarkdownView


class BodyPointer:
    def __init__(self, view: MarkdownView) -> None:
        # weakly: the view owns this object, and a cycle would keep a released view
        # alive for good once the chat has frozen it out of the collector (gc.freeze)
        self.view: MarkdownView = weakref.proxy(view)
        self.hover_copy = -1  # the code block whose header button is under the pointer
        self.hover_action = ""  # which of its buttons (copy, save, source, preview)
        self._press: QPointF | None = None
        self._press_anchor = ""
        self._dragging = False

    def copy_hit(self, point: QPointF) -> int:
        """The code block whose Copy button is at ``point`` (-1: none)."""
        index, action = self.button_hit(point)
        return index if action == "copy" else -1

    def button_hit(self, point: QPointF) -> tuple[int, str]:
        """The code block and the action of its header button at ``point`` ((-1, "")
        for none)."""
        view = self.view
        index = view.segment_at(point.y())
        if index < 0:
            return -1, ""
        segment = view.segment(index)
        local = point - QPointF(0, segment.top)
        for action, _label, rect in segment.buttons(view.width()):
            if rect.contains(local):
                return index, action
        return -1, ""

    def press(self, event: QMouseEvent) -> bool:
        """False when the view should handle it (not the left button)."""
        if event.button() != Qt.MouseButton.LeftButton:
            return False
        view, point = self.view, event.position()
        hit, action = self.button_hit(point)
        if hit >= 0:
            view.code_action(hit, action)
            return True
        self._press = point
        self._press_anchor = view.anchor_at(point)
        self._dragging = False
        shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        view.selection.start(view.endpoint_at(point), extend=shift)
        return True

    def move(self, event: QMouseEvent) -> None:
        view, point = self.view, event.position()
        if self._press is not None and event.buttons() & Qt.MouseButton.LeftButton:
            distance = (point - self._press).manhattanLength()
            if distance >= QApplication.startDragDistance():
                self._dragging = True
            if self._dragging:
                view.selection.extend_to(event.globalPosition().toPoint())
            return
        hover, action = self.button_hit(point)
        if (hover, action) != (self.hover_copy, self.hover_action):
            self.hover_copy, self.hover_action = hover, action
            view.update()
        anchor = view.anchor_at(point)
        pointing = hover >= 0 or bool(anchor)
        view.setCursor(Qt.CursorShape.PointingHandCursor if pointing
                       else Qt.CursorShape.IBeamCursor)
        view.setToolTip(button_tip(action) if hover >= 0 else plain_tooltip(anchor))

    def release(self, event: QMouseEvent) -> None:
        view = self.view
        clicked = self._press is not None and not self._dragging and bool(self._press_anchor)
        if clicked and view.anchor_at(event.position()) == self._press_anchor:
            view.selection.clear()
            view.open_link(self._press_anchor)
        self._press = None
        self._dragging = False

    def double_click(self, event: QMouseEvent) -> None:
        view = self.view
        index = view.segment_at(event.position().y())
        if index < 0:
            return
        segment = view.segment(index)
        cursor = QTextCursor(segment.doc)
        cursor.setPosition(segment.cursor_at(event.position() - QPointF(0, segment.top)))
        cursor.select(QTextCursor.SelectionType.WordUnderCursor)
        view.selection.set_range((view.key, index, cursor.selectionStart()),
                                 (view.key, index, cursor.selectionEnd()))

    def leave(self) -> None:
        if self.hover_copy >= 0:
            self.hover_copy, self.hover_action = -1, ""
            self.view.update()
