"""A streamed paragraph changed in place: what of its document stays, what replaces
the rest (see :meth:`desktop.ui.markdown.segments.Segment.set_block`).

While an answer streams, its open paragraph's HTML changes on every frame, nearly
always only at its end (words added; a bold, code or link closed). Rebuilding its
document from the HTML and laying it out whole cost more than anything else per frame;
replacing only the end is what a text editor does, and the document ends up the same
as one built from the whole HTML. A list whose last item is being written is changed
the same way (:func:`list_growth`): only that item's end.
"""

from __future__ import annotations

import html
import re

import msgspec
from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextDocument

from desktop.ui.markdown.renderer import Block

__all__ = ["Growth", "ItemAdded", "ListGrowth", "code_growth", "common_prefix_length",
           "grow_in_place", "list_growth", "list_item_added", "paragraph_growth"]

#: The inline elements a streamed paragraph may be rewritten in place with.
_INLINE_TAG = re.compile(r"</?(strong|em|code|a|s)(?:\s[^<>]*)?>")
_TAG = re.compile(r"<[^<>]*>")
#: Anything else in a paragraph (a math image, a hard break, white space HTML does not
#: fold, a stray bracket) and it is rebuilt whole.
_UNUSUAL_TAG = re.compile(r"<(?!/?(?:strong|em|code|a|s)[\s>])")
#: White space but spaces, tabs and newlines (str.isspace; one class: a scan is ~4x
#: faster than ``[^\S \t\n]``).
_UNUSUAL_SPACE = re.compile("[\x0b\x0c\r\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029"
                            "\u202f\u205f\u3000]")
_FOLDED_SPACE = re.compile(r"[ \t\n]+")
#: HTML that is its own text: words with single spaces between them.
_PLAIN = re.compile(r"[^<>&\s]+(?: [^<>&\s]+)*")
#: The tags that close a list after its last item's text (nested lists too).
_LIST_END = re.compile(r"(?:</(?:li|p|ul|ol)>\n?)+\Z")
#: The tag that opens the last item's text.
_ITEM_START = re.compile(r"<(?:li|p)(?:\s[^<>]*)?>\n?")


def grow_in_place(doc: QTextDocument, old: Block, new: Block, *, drawn: bool) -> int | None:
    """Change ``doc``, which shows ``old``, to show ``new`` by replacing only its end,
    when that is all that changed (a paragraph, a list's last item, a code block's
    line being written); the position from which it changed, or None (then it must
    be rebuilt from the HTML). ``drawn``: the document shows a drawing, not code."""
    growth = paragraph_growth(old, new)
    if growth is not None and growth.position < doc.characterCount():
        cursor = _selection(doc, growth.position, doc.characterCount() - 1)
        _replace_end(cursor, growth.space, growth.fragment)
        return growth.position
    item = list_item_added(old, new)
    if item is not None:
        return _add_item(doc, old, item, drawn=drawn)
    grown = list_growth(old, new)
    if grown is not None:
        end = doc.characterCount() - 1
        position = end - grown.removed
        cursor = _selection(doc, max(0, position), end)
        if position >= cursor.block().position() and cursor.selectedText() == grown.removed_text:
            _replace_end(cursor, grown.space, grown.fragment)
            return position
        cursor.endEditBlock()
        return None  # (not what the document holds there)
    added = None if drawn else code_growth(old, new)
    if added is not None:
        cursor = QTextCursor(doc)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        position = cursor.position()
        cursor.insertText(added)
        return position
    lines = None if drawn else code_lines_growth(old, new)
    if lines is not None:
        end = doc.characterCount() - 1
        position = end - len(lines.removed_text)
        cursor = _selection(doc, max(0, position), end)
        if position >= cursor.block().position() and cursor.selectedText() == lines.removed_text:
            _replace_end(cursor, False, lines.fragment)
            return position
        cursor.endEditBlock()
    return None


def _selection(doc: QTextDocument, start: int, end: int) -> QTextCursor:
    """A cursor selecting ``start``–``end`` of ``doc``, in an edit block (ended by
    :func:`_replace_end`): placed outside one, a cursor works out its x position on
    its line, which lays out the paragraph's text up to there (~100 µs in a long
    paragraph, on every frame)."""
    cursor = QTextCursor(doc)
    cursor.beginEditBlock()
    cursor.setPosition(start)
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    return cursor


class Growth(msgspec.Struct, frozen=True):
    """How paragraph ``old`` becomes ``new`` in place: the document's text from
    ``position`` on is replaced by ``space`` (one folded space, or nothing) and the
    HTML ``fragment``."""

    position: int
    space: bool
    fragment: str


def paragraph_growth(old: Block, new: Block) -> Growth | None:
    """The in-place change from paragraph ``old`` to paragraph ``new``, when both are
    one paragraph of text and inline markup (what a streamed answer is on most
    frames): kept is their common start, cut back to outside any element and entity
    and before white space. None when anything else changed."""
    if new.kind != "text" or old.kind != "text":
        return None
    a, b = old.html.rstrip(), new.html.rstrip()
    if not (a.startswith("<p>") and b.startswith("<p>") and a.endswith("</p>")
            and b.endswith("</p>")):
        return None
    a, b = a[3:-4], b[3:-4]
    if "<p" in b or _unusual(b) or _unusual(a):
        return None
    cut = _safe_cut(b, common_prefix_length(a, b))
    kept, rest = b[:cut], b[cut:]
    stripped = rest.lstrip(" \t\n")
    return Growth(_kept_length(kept), len(stripped) < len(rest) and bool(kept), stripped)


class ItemAdded(msgspec.Struct, frozen=True):
    """How tight, flat list ``old`` becomes ``new`` by an item added at its end: its
    last item grown to what ``before`` shows (the list without the new item), then
    the new item's HTML ``item``."""

    before: Block
    item: str


def list_item_added(old: Block, new: Block) -> ItemAdded | None:
    """The item added to list ``old`` to make list ``new``, when both are one tight
    list without nested lists and ``new`` is ``old`` (its last item maybe grown) and
    one item more; None otherwise."""
    if new.kind != "text" or old.kind != "text":
        return None
    a, b = old.html, new.html
    opening = b[:b.find(">") + 1]
    if not (opening.startswith(("<ul", "<ol")) and a.startswith(opening)):
        return None
    close = "</ul>\n" if opening.startswith("<ul") else "</ol>\n"
    at = b.rfind("<li>")
    if (at < 0 or not b.endswith("</li>\n" + close) or b.count("<ul") + b.count("<ol") != 1
            or "<p" in b or not b[:at].endswith("</li>\n") or a.count("<li") >= b.count("<li")):
        return None
    item = b[at + 4:-len("</li>\n" + close)]
    if "<li" in item or not item.strip():
        return None  # (Qt's reader makes an empty item a paragraph of its own)
    return ItemAdded(Block("text", b[:at] + close), item)


def _add_item(doc: QTextDocument, old: Block, added: ItemAdded, *, drawn: bool) -> int | None:
    """Make ``doc`` show its list with ``added``: its last item grown (as a frame that
    only grew it would), then a block of the list after it, holding the new item."""
    cursor = QTextCursor(doc)
    cursor.beginEditBlock()  # (one edit: the list is laid out once)
    position = None
    if added.before.html != old.html:
        position = grow_in_place(doc, old, added.before, drawn=drawn)
        if position is None:
            cursor.endEditBlock()
            return None
    cursor.movePosition(QTextCursor.MoveOperation.End)
    start = cursor.position()
    cursor.insertBlock(cursor.blockFormat(), QTextCharFormat())
    if _PLAIN.fullmatch(added.item):
        cursor.insertText(added.item, QTextCharFormat())
    elif added.item:
        cursor.insertHtml(added.item)
    cursor.endEditBlock()
    return start if position is None else position


class ListGrowth(msgspec.Struct, frozen=True):
    """How list ``old`` becomes ``new`` in place: its last item's text loses its last
    ``removed`` positions, then gets ``space`` and the HTML ``fragment`` (the rest of
    the document, the items above, is the same)."""

    removed: int
    space: bool
    fragment: str
    removed_text: str  # what those positions hold (checked against the document)


def list_growth(old: Block, new: Block) -> ListGrowth | None:
    """The in-place change from list ``old`` to list ``new`` when only the text of
    its last item changed, at its end (a streamed list on most frames); None when
    anything else did (an item added, the list loosened, a nested list begun)."""
    if new.kind != "text" or old.kind != "text":
        return None
    a, b = old.html, new.html
    if not (a.startswith(("<ul", "<ol")) and b[:3] == a[:3]):
        return None
    end_a, end_b = _LIST_END.search(a), _LIST_END.search(b)
    if end_a is None or end_b is None or end_a.group(0) != end_b.group(0):
        return None
    body_a, body_b = a[:end_a.start()], b[:end_b.start()]
    starts = [m.end() for m in _ITEM_START.finditer(body_b)]
    if not starts:
        return None
    start = starts[-1]
    if body_a[:start] != body_b[:start]:
        return None
    text_a, text_b = body_a[start:], body_b[start:]
    if (_unusual(text_a) or _unusual(text_b) or "<li" in text_a
            or "<p" in text_a or "<ul" in text_a or "<ol" in text_a):
        return None
    cut = _safe_cut(text_b, common_prefix_length(text_a, text_b))
    if cut == 0 or _safe_cut(text_a, cut) != cut:
        return None  # (an item's first words: rebuilt, its formats begin there)
    gone = _FOLDED_SPACE.sub(" ", html.unescape(_TAG.sub("", text_a[cut:])))
    rest = text_b[cut:]
    stripped = rest.lstrip(" \t\n")
    return ListGrowth(len(gone.encode("utf-16-le")) // 2, len(stripped) < len(rest),
                      stripped, gone)


def code_growth(old: Block, new: Block) -> str | None:
    """The text to add at the end of code block ``old`` to make it ``new``, when only
    the line being written grew (an open block's last line is plain text until it
    is complete: see desktop.ui.markdown.streaming); None otherwise."""
    if (old.kind != "code" or new.kind != "code" or old.lang != new.lang
            or (old.joins_prev, old.joins_next) != (new.joins_prev, new.joins_next)):
        return None
    head = old.html.removesuffix("</pre>\n")
    if head == old.html or not new.html.endswith("</pre>\n") or not new.html.startswith(head):
        return None
    added = new.html[len(head):-len("</pre>\n")]
    if not added or "<" in added or "\n" in added or "\r" in added:
        return None
    return html.unescape(added)


class CodeLines(msgspec.Struct, frozen=True):
    """How open code block ``old`` becomes ``new`` when lines were completed: the
    line that was being written (``removed_text``, plain) is replaced by the HTML
    ``fragment`` (that line highlighted, the lines after it, the new line being
    written)."""

    removed_text: str
    fragment: str


def code_lines_growth(old: Block, new: Block) -> CodeLines | None:
    """The in-place change from open code block ``old`` to ``new`` when its highlighted
    lines are those of ``old`` and more after them (a line completed: highlighted now,
    see desktop.ui.markdown.streaming); None otherwise. A fragment that begins with an
    empty line is left to a rebuild (Qt's HTML reader gives that line the character
    format of the line before it, where one built whole has none)."""
    if (old.kind != "code" or new.kind != "code" or old.lang != new.lang
            or (old.joins_prev, old.joins_next) != (new.joins_prev, new.joins_next)):
        return None
    body = old.html.removesuffix("</pre>\n")
    opened = body.find(">") + 1
    if body == old.html or not opened or not new.html.endswith("</pre>\n"):
        return None
    kept = max(body.rfind("\n") + 1, opened)
    partial = body[kept:]
    if "<" in partial or not new.html.startswith(body[:kept]):
        return None
    added = new.html[kept:-len("</pre>\n")]
    if "\n" not in added or added.startswith("\n") or "\r" in added:
        return None
    # (a newline right after <pre> is dropped by the HTML reader: one is put first)
    return CodeLines(html.unescape(partial), f"{body[:opened]}\n{added}</pre>")


def _safe_cut(text: str, cut: int) -> int:
    """``cut`` moved back to where no tag, entity or inline element is open in
    ``text[:cut]`` and no white space ends it."""
    tag = text.rfind("<", 0, cut)
    if tag >= 0 and text.find(">", tag, cut) < 0:
        cut = tag
    entity = text.rfind("&", 0, cut)
    if entity >= 0 and text.find(";", entity, cut) < 0:
        cut = entity
    open_at: list[int] = []
    for match in _INLINE_TAG.finditer(text, 0, cut):
        if match.group(0).startswith("</"):
            if open_at:
                open_at.pop()
        else:
            open_at.append(match.start())
    if open_at:
        cut = open_at[0]
    while cut and text[cut - 1] in " \t\n":
        cut -= 1
    return cut


def _unusual(fragment: str) -> bool:
    return bool(_UNUSUAL_TAG.search(fragment) or _UNUSUAL_SPACE.search(fragment))


#: The last kept start measured: its HTML, its length, whether its text ends with white
#: space (a streamed paragraph's kept start grows: only what was added is measured).
_last_kept = ("", 0, False)


def _kept_length(kept: str) -> int:
    """:func:`_plain_length` of ``kept`` (a paragraph's start, cut where no tag or
    entity is open), measured from the last one measured when it begins so: the
    lengths add up unless white space on both sides of the join folds into one."""
    global _last_kept  # (one streamed paragraph at a time, on the main thread)
    last, length, spaced = _last_kept
    text = html.unescape(_TAG.sub("", kept[len(last):])) if kept.startswith(last) else None
    if text is None or not last or (spaced and text[:1] in " \t\n"):
        length, spaced, text = 0, False, html.unescape(_TAG.sub("", kept))
    if text:
        folded = _FOLDED_SPACE.sub(" ", text)
        length += len(folded.encode("utf-16-le")) // 2
        spaced = folded.endswith(" ")
    _last_kept = (kept, length, spaced)
    return length


def _plain_length(fragment: str) -> int:
    """How many positions the document holds for paragraph HTML ``fragment`` (UTF-16
    code units, as Qt counts: a character beyond the BMP, an emoji, is two)."""
    text = _FOLDED_SPACE.sub(" ", html.unescape(_TAG.sub("", fragment)))
    return len(text.encode("utf-16-le")) // 2


def common_prefix_length(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share (slices compare in C: a
    binary search is far faster than a loop over characters)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _replace_end(cursor: QTextCursor, space: bool, fragment: str) -> None:
    """Replace ``cursor``'s selection (the end that changed) by a plain space, if
    ``space``, and HTML ``fragment``, and end the cursor's edit block (begun by
    :func:`_selection`): one edit, so the paragraph is laid out once, not once per
    step."""
    cursor.removeSelectedText()
    if space:
        cursor.setCharFormat(QTextCharFormat())
        cursor.insertText(" ")
    if _PLAIN.fullmatch(fragment):  # (words alone: no HTML to read, the same text)
        cursor.insertText(fragment, QTextCharFormat())
    elif fragment:
        cursor.insertHtml(fragment)
    cursor.endEditBlock()

