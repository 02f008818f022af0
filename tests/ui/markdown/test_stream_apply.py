"""What a streamed frame costs when it changes a segment's document in place
(desktop/ui/markdown/paragraph_growth.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtGui import QTextCursor

from desktop.ui.markdown import paragraph_growth
from desktop.ui.markdown.renderer import Block, renderer
from desktop.ui.markdown.segments import DocStyle, Segment


def grown_frame_by_frame(text: str, first: int, step: int, width: int,
                         before: Callable[[], object] | None = None) -> int:
    """A paragraph segment grown to ``text`` ``step`` characters a frame, its document
    equal to one built whole at every frame; how many frames. ``before``: called once
    the first frame is laid out."""
    md = renderer(False)
    style = DocStyle.current()
    segment = Segment(Block("text", md.render(text[:first])), style, {})
    segment.layout(width)
    if before is not None:
        before()
    frames = 0
    for end in range(first * 2, len(text) + 1, step):
        block = Block("text", md.render(text[:end]))
        segment.set_block(block)
        segment.layout(width)
        frames += 1
        assert segment.doc.toHtml() == Segment(block, style, {}).doc.toHtml(), end
    return frames


def test_a_grown_end_is_selected_without_laying_out_its_line(
        qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cursor that replaces a paragraph's, list item's or code line's end is
    placed inside its edit block: placed outside one, it works out its x position on
    its line (shaping the paragraph's text up to there, ~50-100 µs a frame in a long
    paragraph). Each document still equals one built from its block."""
    placed: list[float] = []
    real = paragraph_growth._replace_end

    def replace_end(cursor: QTextCursor, space: bool, fragment: str) -> None:
        placed.append(cursor.verticalMovementX())  # (-1: no x position worked out)
        real(cursor, space, fragment)

    monkeypatch.setattr(paragraph_growth, "_replace_end", replace_end)
    md = renderer(False)
    style = DocStyle.current()
    words = " ".join(f"word{i} **b{i}**" for i in range(120))
    for text in (words, "- one\n- " + words, "```python\n" + "x = 1\n" * 30 + "y ="):
        segment = Segment(Block("text", md.render(text[:30])), style, {})
        segment.layout(500)
        for end in range(60, len(text) + 1, 37):
            block = md.blocks(text[:end])[-1]
            if block.kind == "code":  # (the open block's last line as the view shows it)
                block = Block("code", md.code_html(text[10:end], "python"), text[10:end],
                              "python")
            segment.set_block(block)
            segment.layout(500)
            assert segment.doc.toHtml() == Segment(block, style, {}).doc.toHtml(), end
    assert placed
    assert set(placed) == {-1}


LISTS = [
    "- alpha **bold** words\n- beta `code()` and [a link](https://x.y/a_b) here\n"
    "- gamma *em\n- delta* snake_case more words\n",
    "1. one is the first\n2. two follows it\n3) a new list: another delimiter\n",
    "* star item\n- a dash item starts another list\n+ and a plus one\n",
    "- tight item\n\n- loose now, every item in a paragraph\n- and this\n",
    "- outer item\n  - nested item\n  - another nested\n- outer again\n",
    "- [ ] a task\n- [x] done task\n- plain item in a task list\n",
    "- item\ncontinued lazily on the next line\n- next\n    indented code? no\n",
    "- item\n-     five spaces: indented code\n- 1. nested ordered\n- # heading\n",
    "7. seven\n8. eight\n\nAfter the list, a paragraph.\n",
]


@pytest.mark.parametrize("text", LISTS)
def test_a_list_is_parsed_only_when_its_shape_may_change(text: str) -> None:
    """A list streamed in small pieces: at every frame it is what a parse of the text
    so far gives, and the blocks committed are one parse's; a tight list whose last
    item grows (or whose next item begins) is not parsed again on each frame."""
    from desktop.ui.markdown.streaming import IncrementalMarkdown

    md = renderer(False)
    inc = IncrementalMarkdown(md)
    parsed: list[str] = []
    parse = md.parse
    committed: list[Block] = []
    try:
        md.parse = lambda source: parsed.append(source) or parse(source)  # type: ignore[method-assign]
        for at in range(0, len(text), 3):
            inc.append(text[at:at + 3])
            committed.extend(inc.update().committed)
            assert inc.html() == renderer(False).render(text[:at + 3]), at
        committed.extend(inc.update(final=True).committed)
    finally:
        del md.parse
    assert inc.html() == md.render(text)
    assert committed == md.blocks(text)
    if text is LISTS[0]:  # (a tight list of four items, 60 frames: parsed where an
        # item begins, its marker still alone on its line, not as its text grows)
        assert len(parsed) <= 3 * 4, parsed


def test_plain_words_added_to_a_paragraph_are_inserted_as_text(
        qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Words without markup added to a streamed paragraph are inserted as text, not
    read as HTML (Qt's HTML reader cost ~40-100 µs a frame); words with markup still
    are, and the document equals one built from the block at every frame."""
    read: list[str] = []
    real = QTextCursor.insertHtml
    monkeypatch.setattr(QTextCursor, "insertHtml",
                        lambda cursor, html: read.append(html) or real(cursor, html))
    text = " ".join(["plain words here", "and **bold** then", "more plain words",
                     "a [link](https://x.y) and", "café naïve 👩‍👩‍👧 done"] * 8)
    frames = grown_frame_by_frame(text, 10, 9, 400)
    assert all("<" in html or "&" in html for html in read), read
    assert len(read) < frames // 2


def test_a_grown_paragraph_is_measured_from_where_it_changed(
        qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a grown paragraph's end is replaced (its kept start's length in the
    document) is measured from the start kept on the frame before: over a 3,000-
    character paragraph the HTML read is about the paragraph's, not the paragraph's
    once per frame; and the length is the whole measure's, white space folded across
    the join too."""
    measured: list[int] = []
    real_sub = paragraph_growth._TAG.sub

    class CountingTag:
        @staticmethod
        def sub(repl: str, text: str) -> str:
            measured.append(len(text))
            return real_sub(repl, text)

        finditer = paragraph_growth._TAG.finditer

    md = renderer(False)
    text = " ".join(f"word{i} **bold{i}** `c{i}` [l](https://x.y/{i}) x&amp;y"
                    for i in range(70))
    frames = grown_frame_by_frame(text, 20, 64, 600,
                                  lambda: monkeypatch.setattr(paragraph_growth, "_TAG",
                                                              CountingTag))
    html_length = len(md.render(text))
    assert frames > 40
    assert sum(measured) < 3 * html_length, (sum(measured), html_length)
    monkeypatch.undo()
    for kept in ["a", "a <em>b</em> ", "a <em>b</em> \n c", "x&amp;  y", " lead", ""]:
        for more in ["", " ", "  z", "<code> q </code>", "\t&lt;w"]:
            paragraph_growth._kept_length(kept)
            assert paragraph_growth._kept_length(kept + more) == \
                paragraph_growth._plain_length(kept + more), (kept, more)


def test_the_white_space_a_paragraph_is_rebuilt_for_is_all_but_spaces_tabs_newlines() -> None:
    """The one class of white space that makes a paragraph be rebuilt (Qt's HTML reader
    keeps it, the length measure folds it) is every character Python calls white
    space but space, tab and newline."""
    import sys

    found = {chr(c) for c in range(sys.maxunicode + 1)
             if paragraph_growth._UNUSUAL_SPACE.match(chr(c))}
    assert found == {chr(c) for c in range(sys.maxunicode + 1)
                     if chr(c).isspace() and chr(c) not in " \t\n"}


def test_an_item_added_to_a_list_is_added_in_place(
        qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tight list that gains an item (with its last item's end, or alone) has a list
    block added to its document, not the list rebuilt from its HTML; at every frame the
    document equals one built from the block. (Frames end after a letter here: an item
    still empty, its marker alone, is rebuilt, as Qt's reader makes it a paragraph.)"""
    from PySide6.QtGui import QTextDocument

    from desktop.ui.markdown.streaming import IncrementalMarkdown

    built: list[str] = []
    real = QTextDocument.setHtml
    monkeypatch.setattr(QTextDocument, "setHtml",
                        lambda doc, html: built.append(html) or real(doc, html))
    style = DocStyle.current()
    for text in ("- one **bold** item\n- two `code` and [a link](https://x.y)\n"
                 "- three plain words\n- four *em* here\n- five\n- six done\n",
                 "1. first\n2. second **b**\n3. third\n4. fourth\n"):
        inc = IncrementalMarkdown(renderer(False))
        segment: Segment | None = None
        done = 0
        for cut in [c for c in range(2, len(text)) if c % 5 == 0 and text[c - 1].isalpha()]:
            inc.append(text[done:cut])
            done = cut
            block = inc.update().tail[-1]
            if segment is None:
                segment = Segment(block, style, {})
                built.clear()
            else:
                segment.set_block(block)
            segment.layout(500)
            assert segment.doc.toHtml() == Segment(block, style, {}).doc.toHtml(), cut
            del built[-1:]  # (the fresh document just built to compare)
        assert built == []  # (before: rebuilt for each item added)
