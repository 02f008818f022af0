"""The "Knowledge" row of the chat-settings popover: a menu of the knowledge bases,
each checkable; checked bases are searched by the chat's ``search_knowledge`` tool.

A chat keeps its bases in ``extra["knowledge"]`` (desktop.knowledge.chat_link); a new
chat not saved yet keeps them until its first message saves it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QMenu, QPushButton, QWidget

from desktop.knowledge.store import KnowledgeBase


class ChatKnowledgeButton(QPushButton):
    """Shows the chat's bases; its menu switches each on or off."""

    def __init__(self, bases: Callable[[], list[KnowledgeBase]],
                 chosen: Callable[[], list[str]], choose: Callable[[list[str]], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._bases, self._chosen, self._choose = bases, chosen, choose
        self.setAccessibleName(self.tr("Knowledge bases of this chat"))
        self.setToolTip(self.tr("The model can search the checked knowledge bases"))
        self.menu_ = QMenu(self)
        self.menu_.aboutToShow.connect(self._fill)
        self.setMenu(self.menu_)

    def refresh(self) -> None:
        names = self._chosen()
        self.setText(", ".join(names) if names else self.tr("None"))

    def _fill(self) -> None:
        self.menu_.clear()
        chosen = set(self._chosen())
        bases = self._bases()
        if not bases:
            empty = self.menu_.addAction(self.tr("No knowledge bases yet (Knowledge…)"))
            empty.setEnabled(False)
        for base in bases:
            action = self.menu_.addAction(base.name)
            action.setCheckable(True)
            action.setChecked(base.name in chosen)
            action.toggled.connect(lambda on, name=base.name: self._toggle(name, on))

    def _toggle(self, name: str, on: bool) -> None:
        names = [n for n in self._chosen() if n != name]
        if on:
            names.append(name)
        self._choose(names)
        self.refresh()
