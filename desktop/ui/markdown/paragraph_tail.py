"""The paragraph being written, rendered without parsing all of it again.

While an answer streams, the open tail is most of the time one paragraph on one line,
and it only grows. Parsing it whole on every frame costs more the longer it gets;
instead it is cut, at a space, into a *settled* start and the words after it, and
only those words are parsed (as inline markdown) on each frame.

Why the HTML is exactly a parse's: the paragraph's HTML is ``<p>`` + the inline
rendering of its text (stripped) + ``</p>``. A start ``A`` is settled when nothing in
it is left open: its rendering shows no literal ``*``, ``~``, ``[`` or backtick
(each would be a delimiter, bracket or code span still waiting for its closer) nor a
literal ``_`` that could open (one between two letters cannot), and its markdown
has no backslash or ``$`` (escapes and math, which the check above does not see;
an autolink holds no space and raw HTML is off: a ``<`` cannot reach past the cut).
Text after ``A`` that starts with a space can then neither close anything in ``A``
nor change how ``A``'s own delimiters are read (they see the space, as at the end
of the text), so the inline rendering of ``A + rest`` is that of ``A`` followed by
that of ``rest``. The paragraph must also stay one: one line that starts with a
letter (nothing but a paragraph starts so, and without a line break nothing can
turn it into something else).

Words without any character an inline rule acts on (:data:`_PLAIN`) are not parsed
at all: their HTML is their text escaped.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from markdown_it.common.utils import escapeHtml

__all__ = ["ParagraphTail"]

#: Worth settling once the unsettled words are this long (a parse of them each frame).
SETTLE_AFTER = 16
#: Text no inline rule acts on: its HTML is the text escaped, no parse needed.
_PLAIN = re.compile(r"[^\\`*_~\[\]!<&$\n\r\0]*")

_CODE_SPAN = re.compile(r"<code[^>]*>.*?</code>", re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_OPEN = re.compile(r"[*~\[`]")
_UNDERSCORES = re.compile(r"_+")


class ParagraphTail:
    """One streamed one-line paragraph: its settled start and that start's HTML."""

    __slots__ = ("_inline", "_retry_at", "_settled", "_settled_html")

    def __init__(self, inline: Callable[[str], str]) -> None:
        self._inline = inline  # inline markdown → HTML (MarkdownRenderer.render_inline)
        self._settled = ""
        self._settled_html = ""
        self._retry_at = 0  # after words that were not closed: try again this far on

    @staticmethod
    def fits(source: str) -> bool:
        """Whether ``source`` (the open tail's markdown) is such a paragraph."""
        return source[:1].isalpha() and "\n" not in source

    def html(self, source: str) -> str | None:
        """The paragraph's HTML for ``source``, which continues what was shown before
        (None when it does not: a line break, or other text)."""
        if not source.startswith(self._settled):
            return None
        rest = source[len(self._settled):]
        if "\n" in rest:
            return None
        shown = rest.rstrip()
        if len(shown) > SETTLE_AFTER:
            shown = shown[self._settle(shown):]  # (settled now: not parsed again below)
        return f"<p>{self._settled_html}{self._render(shown)}</p>\n"

    def _settle(self, shown: str) -> int:
        """Settle the words of ``shown`` before its last space, if they are closed;
        how many of its characters were settled (what follows them starts with a
        space: its rendering follows theirs, see above)."""
        cut = shown.rfind(" ")
        while cut > 0 and shown[cut - 1] == " ":
            cut -= 1
        words = shown[:cut]
        if not words or words[-1].isspace() or cut < self._retry_at:
            return 0
        plain = _PLAIN.fullmatch(words) is not None
        words_html = escapeHtml(words) if plain else self._inline(words)
        if plain or _closed(words, words_html):
            self._settled += words
            self._settled_html += words_html
            self._retry_at = 0
            return cut
        # (an opener left open for long is not parsed again on every word)
        self._retry_at = cut + max(SETTLE_AFTER, cut // 2)
        return 0

    def _render(self, markdown: str) -> str:
        return escapeHtml(markdown) if _PLAIN.fullmatch(markdown) else self._inline(markdown)


def _closed(markdown: str, rendered: str) -> bool:
    """Whether nothing in ``markdown`` (rendered as ``rendered``) waits for a closer."""
    if "\\" in markdown or "$" in markdown:
        return False
    text = _TAG.sub("", _CODE_SPAN.sub("", rendered))
    if _OPEN.search(text):
        return False
    if "_" in text:
        for run in _UNDERSCORES.finditer(markdown):
            before = markdown[run.start() - 1:run.start()]
            after = markdown[run.end():run.end() + 1]
            if not (before.isalnum() and after.isalnum()):
                return False  # (one that could open, maybe left open)
    return True
