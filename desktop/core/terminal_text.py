"""Text from a model or a server, made safe to write to a terminal.

An escape sequence (``ESC [ 2 J``, an OSC 8 link, a title change, a cursor move), a
carriage return that draws over the line, a backspace or a bidirectional override
lets such text repaint the prompt it appears in: "Allow? (read-only, safe)" could
be drawn over the real question. Every control character is therefore shown as
its escape (``\\x1b``, ``\\r``, ``\\u202e``) instead of being sent. Tabs stay, and
line breaks stay in texts that have lines (a command, a diff, a message).
"""

from __future__ import annotations

import re

# C0 controls but tab and line feed, DEL, C1 controls, zero-width and bidi controls,
# line/paragraph separators and the byte-order mark.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e"
                       "\u2066-\u2069\ufeff]")


def _escape(match: re.Match[str]) -> str:
    if match.group() == "\r":
        return "\\r"
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, lines: bool = True) -> str:
    """``text`` with every control character written out; with ``lines=False`` line
    breaks too (a name, a title, anything meant to be one line)."""
    shown = _CONTROLS.sub(_escape, text)
    return shown if lines else shown.replace("\n", "\\n")
