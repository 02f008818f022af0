"""The composer's tools menu → Skills: switch the open chat's skills on or off.

Lists the skills the chat could offer (those not switched off in Settings → Skills or
by its assistant); unchecking one keeps it out of this chat's system prompt and its
load_skill tool. Gets two callables (the chat's skills, and the switch), not the app.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMenu, QWidget


class SkillSwitches(QObject):
    def __init__(self, states: Callable[[], list[tuple[str, bool]]],
                 switch: Callable[[str, bool], None], parent: QWidget) -> None:
        super().__init__(parent)
        self.states = states
        self.switch = switch
        self.menu = QMenu(self.tr("Skills"), parent)
        self.menu.setObjectName("skillsMenu")

    def refresh(self) -> None:
        menu = self.menu
        menu.clear()
        try:
            states = self.states()
        except OSError:
            states = []  # a skills folder that cannot be read: none offered
        for name, on in states:
            action = menu.addAction(name)
            action.setCheckable(True)
            action.setChecked(on)
            action.toggled.connect(lambda checked, n=name: self.switch(n, checked))
        if not states:
            menu.addAction(self.tr("No skills (add some in Preferences → Skills)")
                           ).setEnabled(False)
