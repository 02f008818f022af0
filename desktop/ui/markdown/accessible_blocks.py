"""A message body's blocks as a screen reader gets them: role, name, text, place, links.

Read from the rendered segments of a :class:`MarkdownView` (see accessible.py, which
turns them into accessibility interfaces). Code blocks streamed in pieces are joined;
a table reads row by row ("name | size").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAccessible, QTextCursor, QTextDocument, QTextTable

if TYPE_CHECKING:
    from desktop.ui.markdown.view import MarkdownView

Role = QAccessible.Role
_HEADINGS = tuple(f"<h{level}" for level in range(1, 7))


class Link(msgspec.Struct):
    """A link in a message block, for a screen reader: its text and target."""

    text: str
    href: str


class BlockNode(msgspec.Struct):
    """One block of a message as a screen reader gets it."""

    role: QAccessible.Role
    name: str
    text: str
    top: int
    height: int
    links: list[Link] = msgspec.field(default_factory=list)


def describe_blocks(view: MarkdownView) -> list[BlockNode]:
    """The blocks of ``view`` in reading order (the pieces of a streamed code block
    joined into one)."""
    nodes: list[BlockNode] = []
    for index in range(view.segment_count()):
        segment = view.segment(index)
        block = segment.block
        if block.joins_prev and nodes:
            nodes[-1].height = segment.top + segment.height - nodes[-1].top
            continue
        text = segment.plain_text()
        if block.kind == "code":
            role = Role.Section
            name = QCoreApplication.translate("MessageAccessibility", "Code block, {language}") \
                .format(language=block.lang or QCoreApplication.translate(
                    "MessageAccessibility", "plain text"))
            text = view.code_text(index)
        elif block.kind == "math":
            role = Role.Equation
            name = QCoreApplication.translate("MessageAccessibility", "Equation")
        elif block.kind == "quote":
            role = Role.BlockQuote
            name = QCoreApplication.translate("MessageAccessibility", "Quote")
        elif "<table" in block.html:
            rows = table_rows(segment.doc)
            role, text = Role.Table, "\n".join(" | ".join(row) for row in rows)
            name = QCoreApplication.translate(
                "MessageAccessibility", "Table, {rows} rows, {columns} columns").format(
                rows=len(rows), columns=max((len(row) for row in rows), default=0))
        elif block.html.lstrip().startswith(_HEADINGS):
            role, name = Role.Heading, text
        else:
            role, name = Role.Paragraph, ""
        nodes.append(BlockNode(role, name, text, segment.top, segment.height,
                               links_in(segment.doc)))
    return nodes


def table_rows(doc: QTextDocument) -> list[list[str]]:
    """The cells of the first table in ``doc``, row by row."""
    for frame in doc.rootFrame().childFrames():
        if isinstance(frame, QTextTable):
            rows = []
            for row in range(frame.rows()):
                cells = []
                for column in range(frame.columns()):
                    cell = frame.cellAt(row, column)
                    cursor = QTextCursor(doc)
                    cursor.setPosition(cell.firstPosition())
                    cursor.setPosition(cell.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
                    cells.append(cursor.selectedText().replace("\u2029", " ").strip())
                rows.append(cells)
            return rows
    return []


def links_in(doc: QTextDocument) -> list[Link]:
    """The links of a rendered block: text and address, in order (fragments of one
    link with different formatting joined)."""
    links: list[Link] = []
    link_end = -1  # where the last link ends in the document
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            fmt = fragment.charFormat()
            href = fmt.anchorHref() if fmt.isAnchor() else ""
            if href:
                if links and links[-1].href == href and fragment.position() == link_end:
                    links[-1].text += fragment.text()
                else:
                    links.append(Link(fragment.text(), href))
                link_end = fragment.position() + fragment.length()
            it += 1
        block = block.next()
    return links
