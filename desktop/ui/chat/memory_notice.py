"""Under an answer's tool line: "Memory saved: … · Undo" for each fact the model's
``remember`` calls saved (read from the calls' results), and "Memory removed: …" once
undone. Undo asks whoever shows the chat to forget the memory (a signal)."""

from __future__ import annotations

import html
import json

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QTextDocumentFragment
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop.core.messages import ToolCallPart, ToolResultPart
from desktop.ui.plain_text import shown_html

REMEMBER = "remember"  # the tool's name (desktop.tools.builtins.remember)


def saved_memories(calls: list[ToolCallPart], results: dict[str, ToolResultPart]
                   ) -> list[tuple[str, str]]:
    """(memory id, text) of each memory these calls saved, in call order."""
    saved: list[tuple[str, str]] = []
    for call in calls:
        result = results.get(call.id)
        if call.name != REMEMBER or result is None or result.is_error:
            continue
        try:
            doc = json.loads(result.content)
        except ValueError:
            continue
        body = doc.get("result", doc) if isinstance(doc, dict) else None
        if isinstance(body, dict) and isinstance(body.get("memory_id"), str):
            saved.append((body["memory_id"], str(body.get("text", ""))))
    return saved


class MemoryNotices(QWidget):
    undoRequested = Signal(str)  # a memory's id: forget it

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(0, 0, 0, 0)
        self._column.setSpacing(2)
        self.undone: set[str] = set()
        self._saved: list[tuple[str, str]] = []
        self.labels: list[QLabel] = []
        self.hide()

    def show_results(self, calls: list[ToolCallPart],
                     results: dict[str, ToolResultPart]) -> None:
        saved = saved_memories(calls, results)
        if saved == self._saved and len(self.labels) == len(saved):
            return
        self._saved = saved
        self._fill()

    def _fill(self) -> None:
        for label in self.labels:
            label.deleteLater()
        self.labels = []
        for memory_id, text in self._saved:
            label = QLabel()
            label.setObjectName("memoryNotice")
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse
                                          | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
            fact = f"<i>{shown_html(html.escape(text))}</i>"
            said = self.tr("Memory removed: {fact}") if memory_id in self.undone \
                else self.tr("Memory saved: {fact}")
            if memory_id in self.undone:
                label.setText(said.format(fact=fact))
            else:
                undo = html.escape(self.tr("Undo"))
                label.setText(said.format(fact=fact)
                              + f" · <a href='undo:{html.escape(memory_id)}'>{undo}</a>")
            # (a screen reader says the notice whole, as plain text, not just the fact)
            label.setAccessibleName(said.format(fact=text))
            label.linkActivated.connect(self._on_link)
            self._column.addWidget(label)
            self.labels.append(label)
        self.setVisible(bool(self.labels))

    def _on_link(self, link: str) -> None:
        if link.startswith("undo:"):
            memory_id = link.removeprefix("undo:")
            self.undone.add(memory_id)
            self._fill()
            self.undoRequested.emit(memory_id)

    def text(self) -> str:
        """What the notices say, as plain text (for tests and screen readers)."""
        return "\n".join(QTextDocumentFragment.fromHtml(label.text()).toPlainText()
                         for label in self.labels)
