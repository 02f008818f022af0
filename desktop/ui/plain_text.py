"""Showing text that comes from a model or a server as what it is: text.

A QLabel, a tooltip or a message box guesses whether its text is rich text
(``Qt.mightBeRichText``: a tag before the first line break is enough), so a tool
name, a path or an error message written as ``<b>✔ Safe: read-only</b>`` would be
drawn as markup, with styles, images and links of the model's choosing. Labels that
show such text are fixed to plain text here; tooltips cannot be told their format,
so their text is escaped inside a paragraph (always rich, showing every ``<``, ``&``
and line break literally).

Bidi controls and invisible characters (``\u202e``, a zero-width space) are made
visible as ``<U+202E>`` by :func:`shown` (plain text) and :func:`shown_html` (HTML,
styled): a path ``\u202etxt.exe`` must not read "exe.txt".
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from desktop.core.terminal_text import code_point, visible

# (the colour of a revealed character in HTML views: readable on light and dark)
REVEALED_STYLE = ("color:#c2410c; background-color:rgba(194,65,12,0.12); "
                  "font-family:monospace; font-size:small")


def shown(text: str, *, lines: bool = False) -> str:
    """``text`` with bidi controls and invisible characters written as ``<U+202E>``
    (line breaks too unless ``lines``): for a name, a path, a command, a host."""
    return visible(text, lines=lines, mark=code_point)


def _html_mark(char: str) -> str:
    return f'<span style="{REVEALED_STYLE}">&lt;U+{ord(char):04X}&gt;</span>'


def shown_html(escaped: str) -> str:
    """Already escaped HTML (``html.escape`` or a highlighter's output) with every bidi
    control and invisible character replaced by a styled ``<U+202E>``. (Tabs and line
    breaks stay: they are the text's layout.)"""
    return visible(escaped, mark=_html_mark)


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A QLabel that never interprets its text as markup."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


def make_plain(*labels: QLabel) -> None:
    """Fix existing labels to plain text (their future texts included)."""
    for label in labels:
        label.setTextFormat(Qt.TextFormat.PlainText)


def plain_tooltip(text: str) -> str:
    """``text`` as a tooltip that shows it literally (empty stays empty: no tooltip)."""
    if not text:
        return ""
    return f'<p style="white-space:pre-wrap">{shown_html(html.escape(text))}</p>'


def set_plain_tooltip(widget: QWidget, text: str) -> None:
    widget.setToolTip(plain_tooltip(text))


def notification_text(text: str) -> str:
    """Text for a desktop notification. Notification servers may read the body as
    markup (freedesktop ``body-markup``) while others show it raw, so escaping cannot
    be right for both: the three markup characters become look-alikes instead."""
    return text.replace("&", "＆").replace("<", "‹").replace(">", "›")


def button_text(text: str) -> str:
    """``text`` for a button's label: a single ``&`` would mark a keyboard shortcut
    (and vanish), so every ampersand is doubled."""
    return text.replace("&", "&&")


class StatusLabel(QLabel):
    """A label whose accessible name says what it is ("Answer status"): a screen reader
    then reads that name instead of the text, so the text goes in its description."""

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setAccessibleDescription(text)
