"""What screen readers (Orca, NVDA, VoiceOver) get from a message body.

:class:`MarkdownView` paints its text itself, so Qt's stock accessibility knows
nothing of it. Through an accessibility factory the view gets its own interface: a
read-only document whose name says whose message it is, whose value and text
interface hold the whole plain text, and whose children are the blocks as they read
(paragraphs, headings, code blocks, tables, quotes, equations), each with its text;
a block's links are its children (role Link, the address as description).

PySide6 cannot derive one Python class from both QAccessibleWidget and
QAccessibleTextInterface (shiboken makes two C++ objects), so the text interface is
a separate object that ``interface_cast`` hands out by address.

Ownership: Qt's accessibility cache deletes the view's interface with the view.
Block and link interfaces have no QObject, so the cache would keep them forever once
an assistive tool has seen them: they are released explicitly when the content
changes or the view goes away (:func:`_release`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QPoint, QRect
from PySide6.QtGui import (
    QAccessible,
    QAccessibleAnnouncementEvent,
    QAccessibleEvent,
    QAccessibleInterface,
    QAccessibleTextInterface,
    QWindow,
)
from PySide6.QtWidgets import QAccessibleWidget, QWidget

from desktop.ui.markdown.accessible_blocks import BlockNode, Link, describe_blocks

if TYPE_CHECKING:
    from desktop.ui.markdown.view import MarkdownView

log = logging.getLogger(__name__)

ANNOUNCE_LIMIT = 4000  # characters of an answer read out when it finishes
Role = QAccessible.Role


def null_pointer() -> shiboken6.VoidPtr:
    """What ``interface_cast`` returns for "no such interface": a null VoidPtr. (Returning
    None to Qt's C++ caller, as the AT-SPI bridge makes it, crashes the app.)"""
    return shiboken6.VoidPtr(0)


class PlainTextInterface(QAccessibleTextInterface):
    """A read-only text interface over a function returning the text."""

    def __init__(self, text: Callable[[], str]) -> None:
        super().__init__()
        self._text = text

    def text(self, start: int, end: int) -> str:
        return self._text()[max(0, start):max(0, end)]

    def characterCount(self) -> int:
        return len(self._text())

    def cursorPosition(self) -> int:
        return 0

    def setCursorPosition(self, position: int) -> None:
        pass  # read-only text without a caret

    def selectionCount(self) -> int:
        return 0

    def selection(self, index: int) -> tuple[int, int]:
        return (0, 0)

    def addSelection(self, start: int, end: int) -> None:
        pass

    def removeSelection(self, index: int) -> None:
        pass

    def setSelection(self, index: int, start: int, end: int) -> None:
        pass

    def characterRect(self, offset: int) -> QRect:
        return QRect()

    def offsetAtPoint(self, point: QPoint) -> int:
        return -1

    def scrollToSubstring(self, start: int, end: int) -> None:
        pass

    def attributes(self, offset: int) -> tuple[str, int, int]:
        return ("", offset, offset)

    def address(self) -> shiboken6.VoidPtr:
        return shiboken6.VoidPtr(shiboken6.getCppPointer(self)[0])


class _Node(QAccessibleInterface):
    """A part of a message without a QObject of its own (a block or a link)."""

    def __init__(self, owner: AnswerAccessible, parent: QAccessibleInterface) -> None:
        super().__init__()
        self._owner = owner
        self._parent = parent
        self._text_iface = PlainTextInterface(self.plain)
        self.children: list[_Node] = []

    def plain(self) -> str:
        return ""

    def isValid(self) -> bool:
        return self._owner.alive

    def object(self) -> QObject | None:  # type: ignore[override]
        return None

    def window(self) -> QWindow | None:  # type: ignore[override]
        return self._owner.window()

    def relations(self, match: QAccessible.RelationFlag = QAccessible.RelationFlag.AllRelations,
                  ) -> list[tuple[QAccessibleInterface, QAccessible.RelationFlag]]:
        return []

    def focusChild(self) -> QAccessibleInterface | None:  # type: ignore[override]
        return None

    def childAt(self, x: int, y: int) -> QAccessibleInterface | None:  # type: ignore[override]
        return None

    def parent(self) -> QAccessibleInterface:
        return self._parent

    def child(self, index: int) -> QAccessibleInterface | None:  # type: ignore[override]
        return self.children[index] if 0 <= index < len(self.children) else None

    def childCount(self) -> int:
        return len(self.children)

    def indexOfChild(self, child: QAccessibleInterface) -> int:
        return next((i for i, c in enumerate(self.children) if c is child), -1)

    def setText(self, kind: QAccessible.Text, text: str) -> None:
        pass  # read-only

    def interface_cast(  # type: ignore[override]
            self, kind: QAccessible.InterfaceType) -> shiboken6.VoidPtr:
        if kind == QAccessible.InterfaceType.TextInterface and self._owner.alive:
            return self._text_iface.address()
        return null_pointer()


class BlockAccessible(_Node):
    def __init__(self, owner: AnswerAccessible, node: BlockNode) -> None:
        super().__init__(owner, owner)
        self.node = node
        self.children = [LinkAccessible(owner, self, link) for link in node.links]

    def plain(self) -> str:
        return self.node.text

    def text(self, kind: QAccessible.Text) -> str:
        if kind == QAccessible.Text.Name:
            return self.node.name or self.node.text[:200]
        if kind == QAccessible.Text.Value:
            return self.node.text
        return ""

    def rect(self) -> QRect:
        return self._owner.area(self.node.top, self.node.height)

    def role(self) -> QAccessible.Role:
        return self.node.role

    def state(self) -> QAccessible.State:
        state = QAccessible.State()
        state.readOnly = True
        state.selectableText = True
        return state


class LinkAccessible(_Node):
    def __init__(self, owner: AnswerAccessible, parent: BlockAccessible, link: Link) -> None:
        super().__init__(owner, parent)
        self.link = link

    def plain(self) -> str:
        return self.link.text

    def text(self, kind: QAccessible.Text) -> str:
        if kind == QAccessible.Text.Name:
            return self.link.text
        if kind in (QAccessible.Text.Description, QAccessible.Text.Value):
            return self.link.href
        return ""

    def rect(self) -> QRect:
        return self._parent.rect()

    def role(self) -> QAccessible.Role:
        return Role.Link

    def state(self) -> QAccessible.State:
        state = QAccessible.State()
        state.linked = True
        state.readOnly = True
        return state


class AnswerAccessible(QAccessibleWidget):
    """The interface of one :class:`MarkdownView` (made by :func:`_factory`)."""

    def __init__(self, view: MarkdownView) -> None:
        super().__init__(view, Role.Document)
        self.view = view
        self.alive = True
        self._text_iface = PlainTextInterface(self.plain)
        self._version = -1
        self._blocks: list[BlockAccessible] = []
        bin_ = _Released()
        self._bin = bin_
        # The view's destructor: the cache drops this interface; the block and link
        # interfaces it handed out are released here (they have no QObject).
        view.destroyed.connect(bin_.release_all)

    def plain(self) -> str:
        """The blocks' texts as read (a table row by row, "a | b"), not cell by cell."""
        return "\n\n".join(b.node.text for b in self.blocks()) if self.alive else ""

    def blocks(self) -> list[BlockAccessible]:
        version = self.view.content_version
        if version != self._version:
            self._bin.release(self._blocks)
            self._blocks = [BlockAccessible(self, node) for node in describe_blocks(self.view)]
            self._bin.keep(self._blocks)
            self._version = version
        return self._blocks

    def area(self, top: int, height: int) -> QRect:
        origin = self.view.mapToGlobal(QPoint(0, top))
        return QRect(origin.x(), origin.y(), self.view.width(), height)

    def text(self, kind: QAccessible.Text) -> str:
        if kind == QAccessible.Text.Name:
            return self.view.accessibleName() or self._default_name()
        if kind == QAccessible.Text.Value:
            return self.plain()
        if kind == QAccessible.Text.Description:
            if self.view.accessibleDescription() or not self.view.is_streaming():
                return self.view.accessibleDescription()
            return QCoreApplication.translate("MessageAccessibility", "Being written")
        return str(super().text(kind))

    def _default_name(self) -> str:
        """Whose words these are, from the message around the body."""
        role = getattr(self.view.parentWidget(), "role", None)
        if self.view.dim:
            return QCoreApplication.translate("MessageAccessibility", "Reasoning")
        if role == "user":
            return QCoreApplication.translate("MessageAccessibility", "Your message")
        if role == "assistant":
            return QCoreApplication.translate("MessageAccessibility", "Answer")
        return QCoreApplication.translate("MessageAccessibility", "Message")

    def state(self) -> QAccessible.State:
        state = super().state()
        state.readOnly = True
        state.selectableText = True
        state.multiLine = True
        state.busy = self.view.is_streaming()
        return state

    def childCount(self) -> int:
        return len(self.blocks())

    def child(self, index: int) -> QAccessibleInterface | None:  # type: ignore[override]
        blocks = self.blocks()
        return blocks[index] if 0 <= index < len(blocks) else None

    def indexOfChild(self, child: QAccessibleInterface) -> int:
        return next((i for i, b in enumerate(self.blocks()) if b is child), -1)

    def interface_cast(  # type: ignore[override]
            self, kind: QAccessible.InterfaceType) -> shiboken6.VoidPtr:
        if kind == QAccessible.InterfaceType.TextInterface:
            return self._text_iface.address()
        other = super().interface_cast(kind)  # a VoidPtr, or None for "not implemented"
        return other if other is not None else null_pointer()  # type: ignore[return-value]


class _Released:
    """Holds the block and link interfaces handed out; releases them from Qt's cache."""

    def __init__(self) -> None:
        self.held: list[_Node] = []

    def keep(self, blocks: list[BlockAccessible]) -> None:
        for block in blocks:
            self.held.append(block)
            self.held.extend(block.children)

    def release(self, blocks: list[BlockAccessible]) -> None:
        gone = {id(b) for b in blocks} | {id(c) for b in blocks for c in b.children}
        for node in [n for n in self.held if id(n) in gone]:
            _forget(node)
        self.held = [n for n in self.held if id(n) not in gone]

    def release_all(self, *_args: object) -> None:
        for node in self.held:
            node._owner.alive = False
            _forget(node)
        self.held = []


def _forget(node: _Node) -> None:
    """Take ``node`` out of Qt's accessibility cache (an assistive tool may have
    registered it); Qt deletes it there, so Python must not as well."""
    if not shiboken6.isValid(node):
        return
    try:
        QAccessible.deleteAccessibleInterface(QAccessible.uniqueId(node))
    except RuntimeError:
        log.debug("accessible node already gone")


#: The view class the factory makes interfaces for (set by :func:`install`: this module
#: is imported by the view, so it is handed the class rather than importing it).
_view_class: type[MarkdownView] | None = None


def _factory(class_name: str, obj: QObject) -> QAccessibleInterface | None:
    if _view_class is not None and isinstance(obj, _view_class):
        return AnswerAccessible(obj)
    return None


def install(view_class: type[MarkdownView]) -> None:
    """Register the factory for ``view_class`` (:class:`MarkdownView`) once per process
    (Qt keeps one list of factories per process; called by the first view)."""
    global _view_class
    if _view_class is None:
        _view_class = view_class
        QAccessible.installFactory(_factory)


def content_changed(view: QWidget) -> None:
    """Tell assistive tools the view's text changed (when any are listening)."""
    if QAccessible.isActive():
        QAccessible.updateAccessibility(QAccessibleEvent(view, QAccessible.Event.ObjectReorder))


class Announcer:
    """Says finished answers out loud, politely (after what is being read)."""

    def __init__(self) -> None:
        self.said: list[str] = []  # what was announced (the log, tests)

    def announce(self, widget: QWidget, text: str) -> None:
        text = text.strip()
        if not text:
            return
        if len(text) > ANNOUNCE_LIMIT:
            text = text[:ANNOUNCE_LIMIT].rstrip() + "…"
        self.said.append(text)
        event = QAccessibleAnnouncementEvent(widget, text)
        event.setPoliteness(QAccessible.AnnouncementPoliteness.Polite)
        QAccessible.updateAccessibility(event)
