"""Showing text that comes from a model or a server as what it is: text.

A QLabel, a tooltip or a message box guesses whether its text is rich text
(``Qt.mightBeRichText``: a tag before the first line break is enough), so a tool
name, a path or an error message written as ``<b>✔ Safe: read-only</b>`` would be
drawn as markup, with styles, images and links of the model's choosing. Labels that
show such text are fixed to plain text here; tooltips cannot be told their format,
so their text is escaped inside a paragraph (always rich, showing every ``<``, ``&``
and line break literally).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget


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
    return f'<p style="white-space:pre-wrap">{html.escape(text)}</p>'


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
