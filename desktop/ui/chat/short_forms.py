"""The composer's buttons in short forms when their row is too narrow for their text.

At 1024×700 with Tool activity open, a long workspace name and "Compare" do not fit
beside "tools: 8 on ▾" and Send: Qt would cut every label ("hoose works", "Compar").
Instead, as few buttons as it takes (of those that are enough, the first added: the
least needed text) drop to their short forms — the icon only, or the tools button's
icon with the count — for the row to fit on one line; the tooltip and accessible name
say the rest. If even the short forms do not fit, the row (a :class:`WrapRow`) wraps. The full
forms come back as soon as there is room again.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

import msgspec
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QAbstractButton, QToolButton

from desktop.ui.wrap_row import WrapRow


class ShortForm(msgspec.Struct):
    """A composer button with its full and short texts."""

    button: QAbstractButton
    text: str = ""  # the full form's text
    short: Callable[[], str] = str  # the short form's text ("": the icon alone)


class ShortForms:
    def __init__(self, row: WrapRow, available: Callable[[], int]) -> None:
        self._row = row
        self._available = available  # the row's width now
        self._forms: list[ShortForm] = []
        self.short: frozenset[int] = frozenset()  # indexes of the forms shown short
        self._refit = QTimer(row)
        self._refit.setSingleShot(True)
        self._refit.timeout.connect(self.fit)

    def add(self, button: QAbstractButton, text: str,
            short: Callable[[], str] = str) -> None:
        """``button`` may show ``short()`` instead of ``text`` (a tool button then shows
        its icon beside it; a push button keeps its icon in both forms). The buttons
        added first are shortened first."""
        self._forms.append(ShortForm(button, text, short))
        button.setText(text)

    def set_text(self, button: QAbstractButton, text: str) -> None:
        """The full text of ``button`` changed (a workspace was chosen, a tool switched)."""
        for form in self._forms:
            if form.button is button:
                form.text = text
        self.fit()

    def is_short(self, button: QAbstractButton) -> bool:
        return any(self._forms[index].button is button for index in self.short)

    def fit_soon(self) -> None:
        """Fit once the events under way are handled (a zoom changes the application's
        font, then its style sheet, then the widgets' own fonts)."""
        self._refit.start(0)

    def fit(self) -> None:
        """Shorten as few buttons as it takes for the row to fit on one line (of those
        that are enough, the ones added first)."""
        width = self._available()
        if width <= 0:  # (not laid out yet: keep the forms, with the new texts)
            self._apply(self.short)
            return
        everyone = frozenset(range(len(self._forms)))
        self._apply(everyone)
        short_widths = [form.button.sizeHint().width() for form in self._forms]
        self._apply(frozenset())
        full = self._row.one_line_width()
        saved = [form.button.sizeHint().width() - short_width
                 for form, short_width in zip(self._forms, short_widths, strict=True)]
        choices = sorted((subset for size in range(len(self._forms) + 1)
                          for subset in combinations(range(len(self._forms)), size)),
                         key=lambda subset: (len(subset), subset))
        chosen = next((frozenset(subset) for subset in choices
                       if full - sum(saved[index] for index in subset) <= width), everyone)
        self._apply(chosen)
        self.short = chosen

    def _apply(self, short: frozenset[int]) -> None:
        for index, form in enumerate(self._forms):
            shown_short = index in short
            # (the same text or style again changes nothing)
            form.button.setText(form.short() if shown_short else form.text)
            if isinstance(form.button, QToolButton):
                form.button.setToolButtonStyle(
                    Qt.ToolButtonStyle.ToolButtonTextBesideIcon if shown_short
                    else Qt.ToolButtonStyle.ToolButtonTextOnly)
