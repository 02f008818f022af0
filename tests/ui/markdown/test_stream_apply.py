"""What a streamed frame costs when it changes a segment's document in place
(desktop/ui/markdown/paragraph_growth.py)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QTextCursor

from desktop.ui.markdown import paragraph_growth
from desktop.ui.markdown.renderer import Block, renderer
from desktop.ui.markdown.segments import DocStyle, Segment


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
