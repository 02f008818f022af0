"""Text from a model or a server, made safe to write to a terminal or show in a window.

An escape sequence (``ESC [ 2 J``, an OSC 8 link, a title change, a clipboard write, a
cursor move, hidden text), a carriage return that draws over the line, a backspace or a
bidirectional override lets such text repaint the prompt it appears in: "Allow?
(read-only, safe)" could be drawn over the real question. A right-to-left override
turns ``\\u202etxt.exe`` into what reads "exe.txt", and a zero-width space hides itself
in a tool name. Every such character is therefore written out instead of being sent: in
a terminal as its escape (``\\x1b``, ``\\r``, ``\\u009b``, ``\\u202e``), in the window as
``<U+202E>`` (the same function, another ``mark``). Tabs stay, line breaks stay in texts
that have lines (a command, a diff, a message), and a CR LF line end is a line end.

:func:`visible` is the one function. Names, paths, commands and arguments get every
invisible character written out; whole texts (an answer streamed to stdout) only the
controls that can repaint a terminal, so that joiners in emoji sequences and scripts
stay (``controls_only``). :class:`SafeStream` applies it to everything a subcommand
writes to stdout and stderr (``assista ask --raw`` leaves stdout as streamed).
Characters from DEL up are written ``\\uXXXX`` (astral ones as a surrogate pair): the
escapes JSON uses, so a JSON document written through a :class:`SafeStream` stays the
same document.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any, TextIO

# What can repaint a terminal: C0 controls but tab and line feed, DEL, C1 controls,
# zero-width space and the direction marks, bidi controls, line/paragraph separators
# and the byte-order mark.
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u200e\u200f\u2028-\u202e"
                      "\u2066-\u2069\ufeff]")
# ...and, for names, paths and commands, every invisible character: the soft hyphen,
# invisible letters and joiners (combining grapheme joiner, Arabic letter mark, Hangul
# fillers, Khmer vowels, Mongolian separators), zero-width joiners, word joiner and
# invisible operators, interlinear annotations and tag characters.
INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u17b4\u17b5"
                       "\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff"
                       "\uffa0\ufff9-\ufffb\U000e0000-\U000e007f]")


def escape(char: str) -> str:
    """A character as a terminal shows it: ``\\r``, ``\\n``, ``\\x1b``, ``\\u202e``."""
    if char in "\r\n":
        return "\\r" if char == "\r" else "\\n"
    code = ord(char)
    if code < 0x7f:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)
    return f"\\u{0xd800 + high:04x}\\u{0xdc00 + low:04x}"


def code_point(char: str) -> str:
    """A character as the window shows it: ``<U+202E>``."""
    return f"<U+{ord(char):04X}>"


def visible(text: str, *, lines: bool = True, mark: Callable[[str], str] = escape,
            controls_only: bool = False) -> str:
    """``text`` with every control and invisible character written out by ``mark``;
    with ``lines=False`` line breaks too (a name, a title, anything meant to be one
    line). ``controls_only``: only what can repaint a terminal (for whole texts)."""
    if lines:
        text = text.replace("\r\n", "\n")
    pattern = CONTROLS if controls_only else INVISIBLE
    shown = pattern.sub(lambda m: mark(m.group()), text)
    return shown if lines else shown.replace("\n", mark("\n"))


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
                self.target.write(visible(whole, controls_only=True))
        return len(text)

    def flush(self) -> None:
        self.target.flush()

    def close(self) -> None:
        """Write a held carriage return (spelled out) and flush; ``target`` stays open."""
        with self._lock:
            held, self._held = self._held, ""
        if held:
            self.target.write(visible(held, controls_only=True))
        self.target.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, buffer...
        return getattr(self.target, name)


def own_stream(stream: TextIO) -> TextIO:
    """The stream under a :class:`SafeStream`: for the app's own control characters
    (a progress line that redraws itself with a carriage return), never for text it
    was given."""
    return stream.target if isinstance(stream, SafeStream) else stream
