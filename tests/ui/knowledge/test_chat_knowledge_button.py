"""The popover's Knowledge row: each base checkable; the chat's choice follows."""

from __future__ import annotations

from typing import Any

from desktop.knowledge.store import KnowledgeBase
from desktop.ui.knowledge.chat_knowledge_button import ChatKnowledgeButton


def _base(n: int, name: str) -> KnowledgeBase:
    return KnowledgeBase(id=n, name=name, paths=(), embedding=None, indexed_at=None)


def test_checking_bases_sets_the_chats_knowledge(qtbot: Any) -> None:
    chosen: list[str] = []
    bases = [_base(1, "Handbook"), _base(2, "Papers")]

    def choose(names: list[str]) -> None:
        chosen[:] = names

    button = ChatKnowledgeButton(lambda: bases, lambda: list(chosen), choose)
    qtbot.addWidget(button)
    button.refresh()
    assert button.text() == "None"
    button.menu_.aboutToShow.emit()
    actions = {a.text(): a for a in button.menu_.actions()}
    actions["Papers"].setChecked(True)
    actions["Handbook"].setChecked(True)
    assert chosen == ["Papers", "Handbook"] and button.text() == "Papers, Handbook"
    actions["Papers"].setChecked(False)
    assert chosen == ["Handbook"]
    bases.clear()
    button.menu_.aboutToShow.emit()
    [empty] = button.menu_.actions()
    assert not empty.isEnabled() and "No knowledge bases yet" in empty.text()
