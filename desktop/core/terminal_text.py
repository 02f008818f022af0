"""Text from a model or a server, made safe to write to a terminal or show in a window.

An escape sequence (``ESC [ 2 J``, an OSC 8 link, a title change, a cursor move), a
carriage return that draws over the line, a backspace or a bidirectional override
lets such text repaint the prompt it appears in: "Allow? (read-only, safe)" could
be drawn over the real question. A right-to-left override turns ``\\u202etxt.exe``
into what reads "exe.txt", and a zero-width space hides itself in a tool name. Every
such character is therefore written out instead of being sent: in a terminal as its
escape (``\\x1b``, ``\\r``, ``\\u202e``), in the window as ``<U+202E>`` (the same
function, another ``mark``). Tabs stay, and line breaks stay in texts that have lines
(a command, a diff, a message).
"""

from __future__ import annotations

import re
from collections.abc import Callable

# C0 controls but tab and line feed, DEL, C1 controls, the soft hyphen, invisible
# letters and joiners (combining grapheme joiner, Arabic letter mark, Hangul fillers,
# Khmer vowels, Mongolian separators), zero-width and bidi controls, line/paragraph
# separators, word joiner and invisible operators, the byte-order mark, interlinear
# annotations and tag characters.
INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u17b4\u17b5"
                       "\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff"
                       "\uffa0\ufff9-\ufffb\U000e0000-\U000e007f]")


def escape(char: str) -> str:
    """A character as a terminal shows it: ``\\r``, ``\\n``, ``\\x1b``, ``\\u202e``."""
    if char in "\r\n":
        return "\\r" if char == "\r" else "\\n"
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def code_point(char: str) -> str:
    """A character as the window shows it: ``<U+202E>``."""
    return f"<U+{ord(char):04X}>"


def visible(text: str, *, lines: bool = True, mark: Callable[[str], str] = escape) -> str:
    """``text`` with every control and invisible character written out by ``mark``;
    with ``lines=False`` line breaks too (a name, a title, anything meant to be one
    line)."""
    shown = INVISIBLE.sub(lambda m: mark(m.group()), text)
    return shown if lines else shown.replace("\n", mark("\n"))
