"""The numbered sources under an answer: one row per source, its title as plain text
and its address elided; clicking a web source opens the browser, a file source opens
the file with the desktop's application for it.

Only http and https addresses are opened (a model or a server chose them); a file
source opens its local path, at its page or line when the default application takes
one on its command line (:mod:`desktop.ui.chat.open_at`), else just the file; page
and line are in the tooltip either way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from PySide6.QtCore import QCoreApplication, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QResizeEvent
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from desktop.core.messages import Message, Source, ToolResultPart
from desktop.core.sources import part_sources, unique_sources
from desktop.ui import theme
from desktop.ui.chat.open_at import open_at

ADDRESS_CHARS = 60  # a longer address is elided in the middle
TITLE_CHARS = 90


def elide(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    half = (limit - 1) // 2
    return f"{text[:half]}…{text[len(text) - (limit - 1 - half):]}"


def _address(source: Source) -> str:
    if source.path is not None:
        return source.path
    return source.url or ""


def source_target(source: Source) -> QUrl | None:
    """What clicking ``source`` opens (None: nothing that can be opened safely)."""
    if source.path is not None:
        return QUrl.fromLocalFile(source.path)
    if source.url and urlsplit(source.url).scheme.lower() in ("http", "https"):
        return QUrl(source.url)
    return None


def block_sources(block: Sequence[tuple[Message, Mapping[str, ToolResultPart]]]) -> list[Source]:
    """The sources of an answer shown as one block: each message's own (citations)
    and those of the results of its tool calls, in order."""
    return unique_sources(s for message, results in block
                          for s in part_sources([*message.parts, *results.values()]))


def _location(source: Source) -> str:
    if source.page is not None and source.line is not None:
        # (QCoreApplication.translate written out: lupdate finds no other spelling)
        return QCoreApplication.translate("SourcesView", "page %1, line %2").replace(
            "%1", str(source.page)).replace("%2", str(source.line))
    if source.page is not None:
        return QCoreApplication.translate("SourcesView", "page %1").replace(
            "%1", str(source.page))
    if source.line is not None:
        return QCoreApplication.translate("SourcesView", "line %1").replace(
            "%1", str(source.line))
    return ""


class SourcesView(QWidget):
    """Numbered, clickable sources; hidden while there are none."""

    opened = Signal(QUrl)  # after a source was handed to the desktop

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sourcesView")
        self.sources: list[Source] = []
        self.rows: list[QPushButton] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(0)
        self.heading = QLabel(self.tr("Sources"))
        self.heading.setObjectName("sourcesHeading")
        layout.addWidget(self.heading)
        self._layout = layout
        self._texts: list[str] = []  # each row's whole text, elided to the width
        self.restyle()
        self.hide()

    def restyle(self) -> None:
        """Rows read as links: left-aligned accent text, no button frame."""
        c = theme.colors()
        self.setStyleSheet(
            f"QLabel#sourcesHeading {{ color: {c['muted']}; font-weight: 600; }}"
            f"QPushButton#sourceLink {{ text-align: left; border: none; background: "
            f"transparent; padding: 1px 2px; color: {c['accent']}; }}"
            f"QPushButton#sourceLink:hover {{ text-decoration: underline; }}"
            f"QPushButton#sourceLink:disabled {{ color: {c['muted']}; }}")

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        room = max(80, self.width() - 12)
        for row, text in zip(self.rows, self._texts, strict=True):
            row.setText(row.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, room))

    def show_sources(self, sources: list[Source]) -> None:
        if sources == self.sources:
            return
        self.sources = list(sources)
        for row in self.rows:
            row.deleteLater()
        self.rows = [self._row(number, source) for number, source in enumerate(sources, 1)]
        self._texts = [row.text() for row in self.rows]
        for row in self.rows:
            self._layout.addWidget(row)
        self.setVisible(bool(self.rows))
        self._elide()

    def _row(self, number: int, source: Source) -> QPushButton:
        address = _address(source)
        title = source.title.strip() or (Path(address).name if source.path else address)
        text = f"{number}. {elide(title, TITLE_CHARS)}"
        if address and address != title:
            text += f"  ·  {elide(address, ADDRESS_CHARS)}"
        row = QPushButton(text)  # a button's text is never rich text
        row.setObjectName("sourceLink")
        row.setFlat(True)
        row.setCursor(Qt.CursorShape.PointingHandCursor)
        target = source_target(source)
        where = _location(source)
        tip = "\n".join(t for t in (title, address, where, (source.snippet or "")[:200]) if t)
        row.setToolTip(tip)
        row.setAccessibleName(self.tr("Source %1: %2").replace("%1", str(number))
                              .replace("%2", title))
        row.setEnabled(target is not None)
        row.clicked.connect(lambda _checked=False, s=source: self.open_source(s))
        return row

    def open_source(self, source: Source) -> bool:
        target = source_target(source)
        if target is None:
            return False
        if source.path is not None and open_at(source.path, source.page, source.line):
            self.opened.emit(target)
            return True
        opened = QDesktopServices.openUrl(target)
        if opened:
            self.opened.emit(target)
        return bool(opened)
