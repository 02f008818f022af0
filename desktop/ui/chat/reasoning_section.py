"""An answer's reasoning: "▾ Thinking…" over the model's thinking while it streams, then
"▸ Thought for 12 s", collapsed, dimmed. Built when an answer has some."""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QToolButton, QVBoxLayout

from desktop.ui import locale_format
from desktop.ui.markdown.view import MarkdownView


class ReasoningSection:
    def __init__(self, layout: QVBoxLayout, view: MarkdownView,
                 changed: Callable[[], None]) -> None:
        # (in the message widget's context: these texts were its own)
        translate = QCoreApplication.translate
        self.toggle = QToolButton()
        self.toggle.setObjectName("reasoningToggle")
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.toggle.setCursor(Qt.CursorShape.PointingHandCursor)
        self.toggle.setAccessibleName(translate("MessageWidget", "Show reasoning"))
        self.toggle.hide()
        self.view = view
        view.setObjectName("reasoningView")
        view.hide()
        layout.insertWidget(1, self.toggle)  # under the header
        layout.insertWidget(2, view)
        self.started: float | None = None  # when thinking began to stream
        self.label = translate("MessageWidget", "Reasoning")
        # (weakly: the message widget owns this section, and a cycle would keep it alive)
        self._changed = weakref.WeakMethod(changed)
        self.toggle.toggled.connect(self.set_open)

    def append(self, text: str) -> None:
        """Streamed thinking: shown open while it comes."""
        if self.started is None:
            self.started = time.monotonic()
            self.label = QCoreApplication.translate("MessageWidget", "Thinking…")
            self.toggle.show()
            self.toggle.setChecked(True)
            self.set_open(True)
        self.view.append(text)

    def answer_began(self) -> None:
        """The answer's text starts: the thinking folds, with how long it took."""
        if self.started is not None and not self.view.isHidden():
            self.view.flush()
            self.show_header(time.monotonic() - self.started, collapse=True)

    def show_header(self, seconds: float | None, *, collapse: bool) -> None:
        if not self.view.markdown():
            return
        translate = QCoreApplication.translate
        self.label = (translate("MessageWidget", "Thought for {seconds} s").format(
            seconds=locale_format.integer(round(seconds)))
            if seconds is not None else translate("MessageWidget", "Reasoning"))
        self.toggle.show()
        self.toggle.setChecked(not collapse)
        self.set_open(not collapse)

    def set_open(self, checked: bool) -> None:
        self.view.setVisible(checked)
        self.toggle.setText(("▾ " if checked else "▸ ") + self.label)
        changed = self._changed()
        if changed is not None:
            changed()
