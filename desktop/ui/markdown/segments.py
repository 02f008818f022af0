"""One rendered markdown block as a small QTextDocument with its decoration: code blocks
get a tinted box with a language label and a Copy button, quotes a bar on the left.

A message body is a stack of segments; a segment is laid out and painted on its own,
so a streaming answer only re-lays out its last segment.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec
from PySide6.QtCore import QCoreApplication, QPointF, QRectF, Qt, QUrl
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QFontInfo,
    QFontMetricsF,
    QGuiApplication,
    QImage,
    QPainter,
    QPalette,
    QPen,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)

from desktop.ui import theme
from desktop.ui.markdown import artifacts, math_tex
from desktop.ui.markdown.paragraph_growth import common_prefix_length, grow_in_place
from desktop.ui.markdown.renderer import Block

CSS = (
    "p, ul, ol, h1, h2, h3, h4, h5, h6, pre, table { margin-top: 0px; margin-bottom: 0px; }"
    "p, li { line-height: 135%; } li { margin-bottom: 2px; }"
    "h1, h2, h3, h4 { margin-top: 4px; } hr { margin: 0px; }"
)
CODE_PAD = 10
QUOTE_INDENT = 16


class DocStyle(msgspec.Struct, frozen=True):
    """Everything a segment's look depends on."""

    font: QFont
    text: QColor
    link: QColor
    muted: QColor
    code_bg: QColor
    border: QColor
    accent: QColor
    selection: QColor
    selection_text: QColor
    dark: bool
    dpr: float

    @classmethod
    def current(cls, *, dim: bool = False) -> DocStyle:
        c = theme.colors()
        font = theme.chat_font()
        if dim:
            font.setPointSizeF(font.pointSizeF() * 0.93)
        screen = QGuiApplication.primaryScreen()
        dpr = screen.devicePixelRatio() if screen is not None else 1.0
        return cls(font, QColor(c["muted" if dim else "text"]), QColor(c["accent"]),
                   QColor(c["muted"]), QColor(c["code_bg"]), QColor(c["border"]),
                   QColor(c["accent"]), QColor(c["accent"]), QColor(c["accent_text"]),
                   theme.is_dark(), max(1.0, dpr))


class SegmentDocument(QTextDocument):
    """A text document that resolves ``math:`` and ``attachment:`` images locally and
    never loads anything else (no network, no files)."""

    def __init__(self, style: DocStyle, attachments: Mapping[str, QImage]) -> None:
        super().__init__()
        self.style = style
        self.attachments = attachments
        self.setDocumentMargin(0)
        self.setUndoRedoEnabled(False)
        self.setDefaultFont(style.font)
        self.setDefaultStyleSheet(CSS)
        self._font_px = float(QFontInfo(style.font).pixelSize()) * 1.12  # STIX runs small

    def loadResource(self, kind: int, url: QUrl | str) -> object:
        url = QUrl(url)
        if url.scheme() == "math":
            from desktop.ui.markdown.math_render import math_image  # QtSvg only when needed

            return math_image(url.path(), self._font_px, self.style.text, self.style.dpr)
        if url.scheme() == "attachment":
            return self.attachments.get(url.path())
        return None


class Segment:
    def __init__(self, block: Block, style: DocStyle,
                 attachments: Mapping[str, QImage]) -> None:
        self.block = block
        self.style = style
        self.doc = SegmentDocument(style, attachments)
        self.show_source = False  # an SVG block: its code instead of the drawing
        self.drawn = False  # an SVG block shows its drawing
        self.doc.setHtml(self._html())
        self.top = 0
        self.height = 0
        self._width = -1.0
        self.changed_from = 0  # text position of the last change (see changed_top)
        self._grown = False  # text was appended since the last layout (see set_block)

    @property
    def artifact(self) -> str | None:
        """``svg``, ``mermaid``, ``html`` or None (see :mod:`artifacts`)."""
        block = self.block
        if block.kind != "code" or block.joins_prev or block.joins_next:
            return None
        return artifacts.artifact_kind(block.lang, block.code)

    def _html(self) -> str:
        self.drawn = False
        if self.artifact == "svg" and not self.show_source:
            image = artifacts.svg_image(self.block.code, self.style.dpr)
            if image is not None:
                self.doc.addResource(QTextDocument.ResourceType.ImageResource,
                                     QUrl("svg:drawing"), image)
                self.drawn = True
                return '<img src="svg:drawing" />'
        return self._content_html(self.block)

    def toggle_source(self) -> None:
        """An SVG block: show its code instead of its drawing, or back."""
        self.show_source = not self.show_source
        self.doc.setHtml(self._html())
        self._width = -1.0
        self.changed_from = 0

    @staticmethod
    def _content_html(block: Block) -> str:
        if block.kind == "quote":
            inner = block.html.removeprefix("<blockquote>\n")
            return inner.removesuffix("</blockquote>\n").rstrip()
        return block.html.rstrip()  # a trailing newline would become a trailing space

    def set_block(self, block: Block) -> bool:
        """Show ``block`` instead; False when nothing visible changed.

        A paragraph, list or code block that changed only at its end (what a streamed
        answer does on most frames) has only that end replaced in its document, and
        only its last lines are laid out again; anything else is rebuilt from the HTML."""
        if block.html == self.block.html and block.kind == self.block.kind:
            joins = (block.joins_prev, block.joins_next)
            rejoined = joins != (self.block.joins_prev, self.block.joins_next)
            self.block = block
            if rejoined:  # (a code piece that now continues below: its box ends, or not)
                self.changed_from = 0
                self._grown = True  # its height is measured again
            return rejoined
        grown_from = grow_in_place(self.doc, self.block, block, drawn=self.drawn)
        if grown_from is not None:
            self.block = block
            self.changed_from = grown_from
            self._grown = True  # the same width: only the height is measured again
            return True
        before = self.doc.toPlainText()
        self.block = block
        self.doc.setHtml(self._html())
        self._width = -1.0
        self.changed_from = common_prefix_length(before, self.doc.toPlainText())
        return True

    def changed_top(self) -> int:
        """Where the last :meth:`set_block` changed what is drawn (segment coordinates,
        after :meth:`layout`): the top of the line above the one holding the first
        changed character — a word that grew past the line's end moved to the next
        line and left the line above it changed too (its start was drawn there). Lines
        further up cannot change (text flows down), except in tables, whose columns
        widen for new content: there, the segment's top."""
        if self.changed_from <= 0 or "<table" in self.block.html:
            return 0
        block = self.doc.findBlock(self.changed_from)
        if not block.isValid():
            return 0
        rect = self.doc.documentLayout().blockBoundingRect(block)
        layout = block.layout()
        line = layout.lineForTextPosition(self.changed_from - block.position())
        if line.isValid() and line.lineNumber() > 0:
            line = layout.lineAt(line.lineNumber() - 1)
        top = rect.top() + (line.y() if line.isValid() else 0.0)
        return max(0, int(top + self.content_origin().y()) - 1)

    # -- geometry ---------------------------------------------------------------------

    def header_height(self) -> float:
        return QFontMetricsF(self.style.font).height() * 0.85 + 10

    def content_origin(self) -> QPointF:
        kind = self.block.kind
        if kind == "code":
            return QPointF(CODE_PAD, 0 if self.block.joins_prev else self.header_height())
        if kind == "quote":
            return QPointF(QUOTE_INDENT, 0)
        return QPointF(0, 0)

    def layout(self, width: float) -> int:
        if self._grown and width == self._width:
            extra = CODE_PAD if self.block.kind == "code" and not self.block.joins_next else 0
            self.height = int(self.doc.size().height() + self.content_origin().y() + extra
                              + 0.999)
        self._grown = False
        if width != self._width:
            origin = self.content_origin()
            inner = width - origin.x() - (CODE_PAD if self.block.kind == "code" else 0)
            self.doc.setTextWidth(max(40.0, inner))
            self._width = width
            extra = CODE_PAD if self.block.kind == "code" and not self.block.joins_next else 0
            self.height = int(self.doc.size().height() + origin.y() + extra + 0.999)
        return self.height

    def copy_rect(self, width: float) -> QRectF | None:
        buttons = self.buttons(width)
        return buttons[0][2] if buttons else None

    def buttons(self, width: float) -> list[tuple[str, str, QRectF]]:
        """``(action, label, rect)`` of the header's buttons, right to left: Copy, then
        for a drawing, diagram or page Save… and Source (an SVG) or Preview."""
        if self.block.kind != "code" or self.block.joins_prev:
            return []
        fm = QFontMetricsF(self._small_font())
        out = []
        right = width - 4
        for action, label in artifacts.button_labels(self.artifact, self.show_source):
            w = fm.horizontalAdvance(label) + 16
            if action == "copy":
                w = max(w, fm.horizontalAdvance(
                    QCoreApplication.translate("Segment", "Copied")) + 16)
            out.append((action, label, QRectF(right - w, 3, w, self.header_height() - 6)))
            right -= w + 4
        return out

    def _small_font(self) -> QFont:
        font = QFont(self.style.font)
        font.setPointSizeF(font.pointSizeF() * 0.85)
        return font

    # -- hit testing ------------------------------------------------------------------

    def cursor_at(self, point: QPointF) -> int:
        """The text position nearest ``point`` (segment coordinates)."""
        local = point - self.content_origin()
        pos = self.doc.documentLayout().hitTest(local, Qt.HitTestAccuracy.FuzzyHit)
        return max(0, pos)

    def anchor_at(self, point: QPointF) -> str:
        return str(self.doc.documentLayout().anchorAt(point - self.content_origin()))

    def end_position(self) -> int:
        return max(0, self.doc.characterCount() - 1)

    # -- painting ---------------------------------------------------------------------

    def paint(self, painter: QPainter, width: float, selection: tuple[int, int] | None, *,
              copy_hover: bool | str = False, copied: bool = False,
              clip: QRectF | None = None,
              marks: list[QAbstractTextDocumentLayout.Selection] | None = None) -> None:
        """``clip``: the part to draw, in segment coordinates (the text layout then
        skips the lines outside it: a streamed frame repaints a line or two);
        ``marks``: found words, painted under the selection."""
        kind = self.block.kind
        s = self.style
        if kind == "code":
            self._paint_code_box(painter, width, copy_hover, copied)
        elif kind == "quote":
            painter.fillRect(QRectF(2, 2, 3, max(0, self.height - 4)), s.border)
        painter.save()
        origin = self.content_origin()
        painter.translate(origin)
        ctx = QAbstractTextDocumentLayout.PaintContext()
        if clip is not None:
            ctx.clip = clip.translated(-origin)
        palette = QPalette(ctx.palette)
        palette.setColor(QPalette.ColorRole.Text, s.muted if kind == "quote" else s.text)
        palette.setColor(QPalette.ColorRole.Link, s.link)
        ctx.palette = palette
        ctx.selections = list(marks or [])
        if selection is not None and selection[0] != selection[1]:
            chosen = QAbstractTextDocumentLayout.Selection()
            cursor = QTextCursor(self.doc)
            cursor.setPosition(selection[0])
            cursor.setPosition(selection[1], QTextCursor.MoveMode.KeepAnchor)
            chosen.cursor = cursor
            fmt = QTextCharFormat()
            fmt.setBackground(s.selection)
            fmt.setForeground(s.selection_text)
            chosen.format = fmt
            ctx.selections = [*ctx.selections, chosen]
        self.doc.documentLayout().draw(painter, ctx)
        painter.restore()

    def _paint_code_box(self, painter: QPainter, width: float, hover: bool | str,
                        copied: bool) -> None:
        """``hover``: the action of the button under the pointer (True: Copy)."""
        s = self.style
        painter.save()
        painter.setPen(QPen(s.border, 1))
        painter.setBrush(s.code_bg)
        if self.block.joins_prev or self.block.joins_next:
            # one piece of a box drawn across several segments: no edge where they meet
            painter.fillRect(QRectF(0, 0, width, self.height), s.code_bg)
            bottom = self.height - (0 if self.block.joins_next else 1)
            painter.drawLine(QPointF(0.5, 0), QPointF(0.5, bottom))
            painter.drawLine(QPointF(width - 0.5, 0), QPointF(width - 0.5, bottom))
            if not self.block.joins_next:
                painter.drawLine(QPointF(0, bottom - 0.5), QPointF(width, bottom - 0.5))
            if self.block.joins_prev:
                painter.restore()
                return
            painter.drawLine(QPointF(0, 0.5), QPointF(width, 0.5))
        else:
            painter.drawRect(QRectF(0, 0, width - 1, self.height - 1))
        header = self.header_height()
        painter.setPen(QPen(s.border, 1))
        painter.drawLine(QPointF(1, header - 4), QPointF(width - 1, header - 4))
        painter.setFont(self._small_font())
        painter.setPen(s.muted)
        painter.drawText(QRectF(CODE_PAD, 3, width / 2, header - 6),
                         Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                         self.block.lang or "code")
        hovered = "copy" if hover is True else hover
        for action, label, rect in self.buttons(width):
            if action == hovered:
                painter.fillRect(rect, s.border)
            painter.setPen(s.accent if action == hovered else s.muted)
            shown = (QCoreApplication.translate("Segment", "Copied")
                     if action == "copy" and copied else label)
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, shown)
        painter.restore()

    # -- text -------------------------------------------------------------------------

    def plain_text(self, start: int = 0, end: int | None = None) -> str:
        """The text between two positions; math images become their TeX."""
        if self.block.kind == "math" and start == 0 and (end is None or
                                                          end >= self.end_position()):
            return f"$${self.block.code}$$"
        if self.block.kind == "code" and start == 0 and (end is None or
                                                          end >= self.end_position()):
            return self.block.code.removesuffix("\n")
        stop = self.end_position() if end is None else end
        return _text_between(self.doc, start, stop)


def _text_between(doc: QTextDocument, start: int, end: int) -> str:
    lines: list[str] = []
    block = doc.findBlock(start)
    while block.isValid() and block.position() <= end:
        parts: list[str] = []
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            first, last = frag.position(), frag.position() + frag.length()
            lo, hi = max(first, start), min(last, end)
            if lo < hi:
                fmt = frag.charFormat()
                if fmt.isImageFormat():
                    parts.append(_image_text(fmt.toImageFormat().name()) * (hi - lo))
                else:
                    parts.append(frag.text()[lo - first:hi - first])
            it += 1
        lines.append("".join(parts))
        block = block.next()
    return "\n".join(lines).replace("\u2028", "\n").replace("\xa0", " ")


def _image_text(name: str) -> str:
    if name.startswith("math:"):
        entry = math_tex.entry(name[5:])
        if entry is not None:
            return f"$${entry.tex}$$" if entry.display else f"${entry.tex}$"
    return f"[{name.removeprefix('attachment:')}]"
