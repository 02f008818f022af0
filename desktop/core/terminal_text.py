"""Text from a model or a server, made safe to write to a terminal.

An escape sequence (``ESC [ 2 J``, an OSC 8 link, a title change, a clipboard write, a
cursor move, hidden text), a carriage return that draws over the line, a backspace
or a bidirectional override lets such text repaint the prompt it appears in: "Allow?
(read-only, safe)" could be drawn over the real question. Every control character is
therefore shown as its escape (``\\x1b``, ``\\r``, ``\\u009b``, ``\\u202e``) instead of
being sent. Tabs stay, line breaks stay in texts that have lines (a command, a diff,
a message), and a CR LF line end is a line end.

:func:`visible` is the one function; :class:`SafeStream` applies it to everything a
subcommand writes to stdout and stderr (``assista ask --raw`` leaves stdout as
streamed). Characters from DEL up are written ``\\uXXXX``: the same escape JSON uses,
so a JSON document written through a :class:`SafeStream` stays the same document.
"""

from __future__ import annotations

import re
import threading
from typing import Any, TextIO

# C0 controls but tab and line feed, DEL, C1 controls, zero-width spaces and marks,
# bidi controls, line/paragraph separators and the byte-order mark. (The joiners
# U+200C/U+200D stay: emoji sequences and many scripts need them.)
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u200e\u200f\u2028-\u202e"
                       "\u2066-\u2069\ufeff]")


def _escape(match: re.Match[str]) -> str:
    if match.group() == "\r":
        return "\\r"
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x7f else f"\\u{code:04x}"


def visible(text: str, *, lines: bool = True) -> str:
    """``text`` with every control character written out; with ``lines=False`` line
    breaks too (a name, a title, anything meant to be one line)."""
    if lines:
        text = text.replace("\r\n", "\n")
    shown = _CONTROLS.sub(_escape, text)
    return shown if lines else shown.replace("\n", "\\n")


class SafeStream:
    """A text stream that writes :func:`visible` text to ``target``.

    A carriage return at the end of one write is held until the next: streamed text
    may split a CR LF line end between two pieces."""

    def __init__(self, target: TextIO) -> None:
        self.target = target
        self._held = ""
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            whole = self._held + text
            self._held = ""
            if whole.endswith("\r"):
                whole, self._held = whole[:-1], "\r"
            if whole:
                self.target.write(visible(whole))
        return len(text)

    def flush(self) -> None:
        self.target.flush()

    def close(self) -> None:
        """Write a held carriage return (spelled out) and flush; ``target`` stays open."""
        with self._lock:
            held, self._held = self._held, ""
        if held:
            self.target.write(visible(held))
        self.target.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, buffer...
        return getattr(self.target, name)


def own_stream(stream: TextIO) -> TextIO:
    """The stream under a :class:`SafeStream`: for the app's own control characters
    (a progress line that redraws itself with a carriage return), never for text it
    was given."""
    return stream.target if isinstance(stream, SafeStream) else stream
