"""The tool calls of an answer, inline: one line ("2 tool calls · Read file · done")
that expands to each call's arguments and result, pretty-printed, long values cut
short with "Show all" to see them whole.

The details are built only while expanded (a long chat has many folded lines and
no reason to lay out their results), and rebuilt when a result arrives.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QToolButton, QVBoxLayout, QWidget

from desktop.core.messages import ToolCallPart, ToolResultPart
from desktop.ui.chat.memory_notice import MemoryNotices
from desktop.ui.icons import icon_size, set_icon
from desktop.ui.plain_text import button_text, shown_html
from desktop.ui.tools.approval_card import CodeView
from desktop.ui.tools.json_text import shorten_json
from desktop.ui.tools.tool_names import display_name, names_text

if TYPE_CHECKING:
    from desktop.ui.tools.approval_card import CodeView

VALUE_CHARS = 240  # a longer string value is cut short until "Show all" (other text: 5×)
FULL_CHARS = 100_000  # "Show all" shows this much at most
DETAILS_HEIGHT = 420  # px: taller details scroll


def summary(calls_text: str, calls: list[ToolCallPart],
            results: dict[str, ToolResultPart], waiting: int = 0) -> str:
    """``calls_text``: "2 tool calls" (a plural form, which only tr() can give);
    ``waiting``: how many of the calls wait for the user's approval."""
    names = names_text([c.name for c in calls])
    done = [results[c.id] for c in calls if c.id in results]
    if waiting and len(done) < len(calls):
        state = QCoreApplication.translate("ToolCallsInline", "waiting for your approval")
    elif len(done) < len(calls):
        state = QCoreApplication.translate("ToolCallsInline", "running…")
    elif any(r.is_error for r in done):
        state = (QCoreApplication.translate("ToolCallsInline", "failed")
                 if all(r.is_error for r in done)
                 else QCoreApplication.translate("ToolCallsInline", "some failed"))
    else:
        state = QCoreApplication.translate("ToolCallsInline", "done")
    return f"{calls_text} · {names} · {state}"


def pretty(text: str, *, full: bool = False) -> tuple[str, bool]:
    """JSON ``text`` indented, long values cut short unless ``full`` (other text as it
    is, cut short too); whether anything was cut."""
    return shorten_json(text, FULL_CHARS if full else VALUE_CHARS, indent=2)


def _code(text: str) -> str:
    return ('<p style="margin:0; white-space:pre-wrap; font-family:monospace">'
            f"{shown_html(html.escape(text))}</p>")


def details_html(calls: list[ToolCallPart], results: dict[str, ToolResultPart],
                 full: set[str] | None = None) -> str:
    """Each call: its name, status, arguments and result; ``full``: the calls shown
    whole (the others have a "Show all" link, ``full:<index>``, when cut short)."""
    full = full or set()
    rows: list[str] = []
    for index, call in enumerate(calls):
        whole = call.id in full
        result = results.get(call.id)
        status = (result.status if result is not None
                  else QCoreApplication.translate("ToolCallsInline", "running"))
        arguments, cut = pretty(call.arguments, full=whole)
        rows.append(f"<p style='margin-top:6px'><b>{html.escape(display_name(call.name))}</b> "
                    f"<i>({html.escape(status)})</i></p>{_code(arguments)}")
        if result is not None:
            content, result_cut = pretty(result.content, full=whole)
            cut = cut or result_cut
            rows.append(f"<p style='margin:4px 0 0 0'>→</p>{_code(content)}")
        if cut or whole:
            link = (QCoreApplication.translate("ToolCallsInline", "Show less") if whole
                    else QCoreApplication.translate("ToolCallsInline", "Show all"))
            rows.append(f"<p style='margin:2px 0 0 0'><a href='full:{index}'>"
                        f"{html.escape(link)}</a></p>")
    return "".join(rows)


class ToolCallsInline(QWidget):
    toggled = Signal()  # expanded or folded: the block's height changed
    memoryUndoRequested = Signal(str)  # "Memory saved: … · Undo" (a memory's id)

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
        self.memories = MemoryNotices()  # what remember calls saved
        self.memories.undoRequested.connect(self.memoryUndoRequested)
        self.memories.undoRequested.connect(lambda _id: self._resized())
        column.addWidget(self.memories)
        self.details: CodeView | None = None
        self._calls: list[ToolCallPart] = []
        self._results: dict[str, ToolResultPart] = {}
        self.waiting: set[str] = set()  # call ids waiting for the user's approval
        self.full: set[str] = set()  # call ids whose details show whole
        self.hide()

    def show_calls(self, calls: list[ToolCallPart], results: dict[str, ToolResultPart]) -> None:
        self._calls, self._results = calls, results
        if not calls:
            return
        waiting = len(self.waiting & {c.id for c in calls})
        self.toggle.setText(button_text(("▾ " if self.toggle.isChecked() else "▸ ") + summary(
            self.tr("%n tool calls", "", len(calls)), calls, results, waiting)))
        if self.details is not None and self.details.isVisible():
            self.details.setHtml(details_html(calls, results, self.full))
        was = self.memories.isVisibleTo(self), len(self.memories.labels)
        self.memories.show_results(calls, results)
        self.show()
        if (self.memories.isVisibleTo(self), len(self.memories.labels)) != was:
            self._resized()

    def set_waiting(self, call_id: str, waiting: bool) -> None:
        """A call started or stopped waiting for approval (the line says so)."""
        if waiting == (call_id in self.waiting):
            return
        if waiting:
            self.waiting.add(call_id)
        else:
            self.waiting.discard(call_id)
        self.show_calls(self._calls, self._results)

    def text(self) -> str:
        return self.toggle.text()

    def _on_link(self, link: str) -> None:
        if not link.startswith("full:"):
            return
        index = int(link.removeprefix("full:"))
        if 0 <= index < len(self._calls):
            self.full ^= {self._calls[index].id}
            self.show_calls(self._calls, self._results)
            self._resized()

    def _on_toggled(self, expanded: bool) -> None:
        if expanded and self.details is None:
            # (a text view, not a label: a long value without spaces wraps anywhere
            # instead of running off the edge; taller than DETAILS_HEIGHT, it scrolls)
            self.details = CodeView(DETAILS_HEIGHT)
            self.details.setObjectName("toolDetails")
            self.details.setAccessibleName(self.tr("Tool call details"))
            self.details.anchorClicked.connect(lambda url: self._on_link(url.toString()))
            layout = self.details.document().documentLayout()
            layout.documentSizeChanged.connect(self._resized)  # (after the view's own fit)
            self._column.addWidget(self.details)
        if self.details is not None:
            self.details.setVisible(expanded)
        self.show_calls(self._calls, self._results)
        self._resized()

    def _resized(self, *_args: object) -> None:
        """Taller or shorter: measured again now (the chat asks at once)."""
        self._column.invalidate()
        self.toggled.emit()
