"""The last item of a list being written, rendered without parsing the list again.

While a list streams, the open tail is most of the time one tight list whose last
item is one line that only grows. Parsing the whole list on every frame cost more the
longer it got; instead, once a parse has shown the list, its HTML is kept around the
last item's text and only that text is rendered, as the paragraph being written is
(:class:`~desktop.ui.markdown.paragraph_tail.ParagraphTail`: from where it is settled).

Why the HTML is exactly a parse's: the last line is a list item of that list (its
marker at the start of the line, then one to four spaces and a letter: no task box,
no indented code, no nested block), and words added to that line, with no line break,
cannot make it anything else, nor change the items above (a tight list stays tight
without a blank line). A tight list's item holds its paragraph's inline HTML without
``<p>``. The kept HTML is checked when the tail is set up: the parse's HTML must be
the kept head, the item's text rendered so and the kept end.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from desktop.ui.markdown.paragraph_tail import ParagraphTail

__all__ = ["ListItemTail"]

#: A list item's start on its own line: marker, one to four spaces, a letter.
_ITEM = re.compile(r"(?:[-*+]|\d{1,9}[.)]) {1,4}(?=[^\W\d_])")
#: The end of a list whose last item is its last: that item's end, the list's.
_END = re.compile(r"</li>\n</(?:ul|ol)>\n\Z")


class ListItemTail:
    """One streamed list: its HTML around its last item's text, and that text."""

    __slots__ = ("_end", "_head", "_inline", "_item", "_marker", "_prefix")

    def __init__(self, prefix: str, head: str, end: str, marker: str,
                 inline: Callable[[str], str]) -> None:
        self._prefix = prefix  # the markdown before the last item's text
        self._head = head  # the HTML before it
        self._end = end  # and after it
        self._marker = marker  # the list's bullet, or an ordered list's delimiter
        self._inline = inline
        self._item = ParagraphTail(inline)

    @classmethod
    def of(cls, source: str, html: str, inline: Callable[[str], str]) -> ListItemTail | None:
        """The tail for ``source`` (the open tail's markdown), parsed as ``html`` (one
        block), when that is such a list (None otherwise)."""
        if not html.startswith(("<ul", "<ol")):
            return None
        item = _ITEM.match(source, source.rfind("\n") + 1)
        end = _END.search(html)
        at = html.rfind("<li>")
        if item is None or end is None or at < 0:
            return None
        text = source[item.end():]
        if not ParagraphTail.fits(text):
            return None
        tail = cls(source[:item.end()], html[:at + 4], html[end.start():],
                   _marker(item.group(0)), inline)
        return tail if tail.html(source) == html else None

    def html(self, source: str) -> str | None:
        """The list's HTML for ``source``, which continues what was shown before (None
        when it does not: a line break, or other text)."""
        if not source.startswith(self._prefix):
            return None
        text = source[len(self._prefix):]
        line_end = text.find("\n")
        if line_end >= 0 and not self._next_item(source, line_end):
            return None
        return self._item_html(source[len(self._prefix):])

    def _next_item(self, source: str, line_end: int) -> bool:
        """Whether the item's line ended and the next line, all that follows, is
        nothing yet or the start of the list's next item (its text begun); then that
        item is the one written from now on."""
        start = len(self._prefix) + line_end + 1
        if start == len(source):
            return True  # (an item that ended: the same HTML, whatever comes next)
        item = _ITEM.match(source, start)
        if (item is None or _marker(item.group(0)) != self._marker
                or not ParagraphTail.fits(source[item.end():])):
            return False
        done = self._item_html(source[len(self._prefix):start - 1])
        if done is None:
            return False
        self._head = f"{done.removesuffix(self._end)}</li>\n<li>"
        self._prefix = source[:item.end()]
        self._item = ParagraphTail(self._inline)
        return True

    def _item_html(self, text: str) -> str | None:
        paragraph = self._item.html(text.removesuffix("\n"))
        if paragraph is None:
            return None
        return f"{self._head}{paragraph[3:-5]}{self._end}"  # (without <p> and </p>\n)


def _marker(item: str) -> str:
    """What a list item's marker must share with its list's: the bullet, or the
    delimiter after an ordered item's number."""
    marker = item.strip()
    return marker[-1] if marker[0].isdigit() else marker
