"""The tool calls of an answer, inline: one line ("2 tool calls · read_file · done")
that expands to each call's arguments and result.

The details are built only while expanded (a long chat has many folded lines and
no reason to lay out their results), and rebuilt when a result arrives.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QLabel, QToolButton, QVBoxLayout, QWidget

from desktop.core.messages import ToolCallPart, ToolResultPart
from desktop.ui.icons import icon_size, set_icon
from desktop.ui.plain_text import button_text

PREVIEW_CHARS = 600


def summary(calls_text: str, calls: list[ToolCallPart],
            results: dict[str, ToolResultPart]) -> str:
    """``calls_text``: "2 tool calls" (a plural form, which only tr() can give)."""
    names = ", ".join(dict.fromkeys(c.name for c in calls))
    done = [results[c.id] for c in calls if c.id in results]
    if len(done) < len(calls):
        state = QCoreApplication.translate("ToolCallsInline", "running…")
    elif any(r.is_error for r in done):
        state = (QCoreApplication.translate("ToolCallsInline", "failed")
                 if all(r.is_error for r in done)
                 else QCoreApplication.translate("ToolCallsInline", "some failed"))
    else:
        state = QCoreApplication.translate("ToolCallsInline", "done")
    return f"{calls_text} · {names} · {state}"


def _clip(text: str) -> str:
    text = text.strip()
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + " …"


def details_html(calls: list[ToolCallPart], results: dict[str, ToolResultPart]) -> str:
    rows: list[str] = []
    for call in calls:
        result = results.get(call.id)
        status = result.status if result is not None else "running"
        rows.append(f"<p><b>{html.escape(call.name)}</b> <i>({status})</i><br>"
                    f"<code>{html.escape(_clip(call.arguments or '{}'))}</code>")
        if result is not None:
            rows.append(f"<br>→ <code>{html.escape(_clip(result.content))}</code>")
        rows.append("</p>")
    return "".join(rows)


class ToolCallsInline(QWidget):
    toggled = Signal()  # expanded or folded: the block's height changed

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._column = column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        self.toggle = QToolButton()
        self.toggle.setObjectName("toolLine")
        self.toggle.setCheckable(True)
        self.toggle.setAutoRaise(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        set_icon(self.toggle, "wrench", self.tr("Show the tool calls of this answer"), role="muted")
        self.toggle.setIconSize(icon_size())
        self.toggle.setCursor(Qt.CursorShape.PointingHandCursor)
        self.toggle.toggled.connect(self._on_toggled)
        column.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignLeft)
        self.details: QLabel | None = None
        self._calls: list[ToolCallPart] = []
        self._results: dict[str, ToolResultPart] = {}
        self.hide()

    def show_calls(self, calls: list[ToolCallPart], results: dict[str, ToolResultPart]) -> None:
        self._calls, self._results = calls, results
        if not calls:
            return
        self.toggle.setText(button_text(("▾ " if self.toggle.isChecked() else "▸ ") + summary(
            self.tr("%n tool calls", "", len(calls)), calls, results)))  # (tool names: & is &)
        if self.details is not None and self.details.isVisible():
            self.details.setText(details_html(calls, results))
        self.show()

    def text(self) -> str:
        return self.toggle.text()

    def _on_toggled(self, expanded: bool) -> None:
        if expanded and self.details is None:
            self.details = QLabel()
            self.details.setObjectName("toolDetails")
            self.details.setWordWrap(True)
            self.details.setTextFormat(Qt.TextFormat.RichText)
            self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self._column.addWidget(self.details)
        if self.details is not None:
            self.details.setVisible(expanded)
        self.show_calls(self._calls, self._results)
        self.toggled.emit()
