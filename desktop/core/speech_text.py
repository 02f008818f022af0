"""What reading an answer aloud says: its words, without markdown marks, code blocks,
display math, tables' rules or link targets (a listener cannot use them)."""

from __future__ import annotations

import re

from desktop.core.markdown_text import markdown_plain

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_MATH_BLOCK = re.compile(r"\$\$.+?\$\$", re.DOTALL)
_URL = re.compile(r"https?://\S+")
_BLANKS = re.compile(r"\n{3,}")


def speech_text(markdown: str) -> str:
    """``markdown`` as the text to say: code blocks and display math left out."""
    kept: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and \
                    len(opening.group(1)) >= len(fence) and not line.strip(" `~"):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        kept.append(line)
    text = _MATH_BLOCK.sub("", "\n".join(kept))
    plain = _URL.sub("", markdown_plain(text))
    return _BLANKS.sub("\n\n", "\n".join(line.rstrip() for line in plain.split("\n"))).strip()
