"""A message body given its text before it has a size is laid out once, at the width
its layout gives it (not first at a default width), and reads the same as one that
had its size first."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF

from desktop.ui.markdown.view import MarkdownView

TEXT = "\n\n".join(f"Paragraph {i}: " + "words that wrap the line " * 8 for i in range(6)) \
    + "\n\n```python\nx = 1\n```\n"


def test_text_before_a_size_is_laid_out_at_the_real_width(qtbot: Any) -> None:
    sized = MarkdownView()
    qtbot.addWidget(sized)
    sized.resize(420, 100)
    sized.set_markdown(TEXT)
    fresh = MarkdownView()
    qtbot.addWidget(fresh)
    fresh.set_markdown(TEXT)
    assert fresh.segment_count() == sized.segment_count() > 1
    assert fresh._width == -1  # nothing laid out yet
    assert fresh.heightForWidth(420) == sized.heightForWidth(420) > 0
    assert fresh.toPlainText() == sized.toPlainText()


def test_positions_are_known_before_the_first_size(qtbot: Any) -> None:
    view = MarkdownView()
    qtbot.addWidget(view)
    view.set_markdown(TEXT)
    last = view.segment_count() - 1
    assert view.segment_at(10**6) == last
    assert view.endpoint_at(QPointF(5, 10**6))[1] == last
    view.resize(300, 100)
    view.set_markdown(TEXT + "\nOne more paragraph.\n")
    assert view.heightForWidth(300) == view._height > 0
