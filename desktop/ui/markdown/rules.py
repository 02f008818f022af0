"""markdown-it rules for TeX delimiters the stock plugins do not cover well.

- ``math_fence_block``: ``$$ ... $$`` and ``\\[ ... \\]`` on their own lines. Like a
  code fence, an unclosed block runs to the end of the document, so a later line can
  never turn already-finished blocks into math (what incremental rendering relies on).
- ``math_bracket_inline``: ``\\( ... \\)`` (inline) and ``\\[ ... \\]`` inside a paragraph.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_inline import StateInline

_PAIRS = {"$$": "$$", "\\[": "\\]"}


def math_fence_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    if state.sCount[start] - state.blkIndent >= 4:
        return False
    pos = state.bMarks[start] + state.tShift[start]
    line = state.src[pos:state.eMarks[start]]
    opener = line[:2]
    closer = _PAIRS.get(opener)
    if closer is None:
        return False
    rest = line[2:]
    close_at = rest.find(closer)
    if close_at >= 0:
        if rest[close_at + 2:].strip() or not rest[:close_at].strip():
            return False  # text after the closing delimiter: inline math in a paragraph
        content = rest[:close_at]
        next_line = start + 1
    else:
        lines = [rest]
        next_line = start + 1
        while next_line < end:
            begin = state.bMarks[next_line] + state.tShift[next_line]
            finish = state.eMarks[next_line]
            if begin < finish and state.sCount[next_line] < state.blkIndent:
                break
            text = state.src[begin:finish].rstrip()
            next_line += 1
            if text.endswith(closer):
                lines.append(text[:-2])
                break
            lines.append(text)
        content = "\n".join(lines)
    if silent:
        return True
    state.line = next_line
    token = state.push("math_block", "math", 0)
    token.block = True
    token.content = content
    token.markup = opener
    token.map = [start, next_line]
    return True


def math_bracket_inline(state: StateInline, silent: bool) -> bool:
    src = state.src
    pos = state.pos
    if src[pos] != "\\" or pos + 1 >= len(src) or src[pos + 1] not in "([":
        return False
    display = src[pos + 1] == "["
    closer = "\\]" if display else "\\)"
    close_at = src.find(closer, pos + 2)
    if close_at < 0 or not src[pos + 2:close_at].strip():
        return False
    if not silent:
        token = state.push("math_inline_double" if display else "math_inline", "math", 0)
        token.content = src[pos + 2:close_at]
        token.markup = src[pos:pos + 2]
    state.pos = close_at + 2
    return True
