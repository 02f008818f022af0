"""Markdown as the words a reader sees: marks, link targets, fences and tags dropped.

Cheap and Qt-free (regular expressions, line by line), for what has to read many
messages without rendering them: search snippets and the count of matches in a chat.
It follows what the chat shows closely enough to count words in it; it is not a
renderer (nested constructs keep a stray mark now and then).
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
_QUOTE = re.compile(r"^\s{0,3}(?:>\s?)+")
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?")
_RULE = re.compile(r"^\s{0,3}(?:[-*_]\s*){3,}$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]+)>")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?!\*)"
                       r"|(?<![\w_])_(?=\S)([^_]+?)(?<=\S)_(?!\w)")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_HELD = re.compile("[\U000f0000-\U000f007f]")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~])")


def markdown_plain(text: str) -> str:
    """``text`` without its markdown: what the chat shows, line for line."""
    out: list[str] = []
    fence: str | None = None
    for raw in text.split("\n"):
        opening = _FENCE.match(raw)
        if fence is not None:  # inside a code block: as written, until its fence
            if opening and opening.group(1)[0] == fence[0] and \
                    len(opening.group(1)) >= len(fence) and not raw.strip(" `~"):
                fence = None
                continue
            out.append(raw)
            continue
        if opening:
            fence = opening.group(1)
            continue
        if _RULE.match(raw) or (_TABLE_RULE.match(raw) and "-" in raw):
            continue
        line = _QUOTE.sub("", raw)
        line = _HEADING.sub("", line)
        line = _BULLET.sub(r"\1", line)
        if line.lstrip().startswith("|"):
            line = " ".join(cell.strip() for cell in line.strip().strip("|").split("|"))
        out.append(inline_plain(line))
    return "\n".join(out)


def inline_plain(line: str) -> str:
    """One line's inline marks dropped (code spans keep their text as written)."""
    pieces: list[str] = []
    last = 0
    for span in _CODE_SPAN.finditer(line):
        pieces.append(_inline(line[last:span.start()]))
        pieces.append(span.group(2).strip() if span.group(2).strip() else span.group(2))
        last = span.end()
    pieces.append(_inline(line[last:]))
    return "".join(pieces)


def _inline(text: str) -> str:
    # an escaped mark is held aside (a private-use character) while the marks go
    text = _ESCAPE.sub(lambda m: chr(0xF0000 + ord(m.group(1))), text)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _AUTOLINK.sub(r"\1", text)
    text = _TAG.sub("", text)
    text = _STRONG.sub(r"\2", text)
    text = _EMPHASIS.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = _STRIKE.sub(r"\1", text)
    return _HELD.sub(lambda m: chr(ord(m.group(0)) - 0xF0000), text)
