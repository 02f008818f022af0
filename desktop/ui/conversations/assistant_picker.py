"""The top bar's "Assistant ▾": the current chat's assistant, or none; and a way
to the Assistants dialog."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from desktop.ui.window.elided import ElidingComboBox

if TYPE_CHECKING:
    from desktop.ui.window.controller import ChatController

MANAGE = "__manage__"


class AssistantPicker(ElidingComboBox):
    """"Assistant ▾" in the top bar: the current chat's assistant (or none); shrinks
    with its name elided in a narrow window."""

    changed = Signal()  # an assistant was picked (provider/model may have changed)
    manageRequested = Signal()

    def __init__(self, controller: ChatController, parent: QWidget | None = None) -> None:
        super().__init__(parent, max_width=220)
        self.controller = controller
        self.setAccessibleName(self.tr("Assistant"))
        self.setToolTip(self.tr("The assistant of this chat: its system prompt, model, temperature "
                        "and tools"))
        self.activated.connect(self._activated)
        controller.sessionOpened.connect(lambda *_: self.refresh())
        controller.selectionChanged.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        current = self.controller.profile.assistant()
        self.blockSignals(True)
        self.clear()
        self.addItem(self.tr("No assistant"), None)
        for assistant in self.controller.services.assistants.list_assistants():
            self.addItem(assistant.name, assistant.id)
        self.insertSeparator(self.count())
        self.addItem(self.tr("Manage assistants…"), MANAGE)
        index = self.findData(current.id) if current is not None else 0
        self.setCurrentIndex(max(index, 0))
        self.blockSignals(False)

    def pick(self, assistant_id: str | None) -> None:
        self.controller.profile.set_assistant(assistant_id)
        self.refresh()
        self.changed.emit()

    def _activated(self, index: int) -> None:
        data = self.itemData(index)
        if data == MANAGE:
            self.refresh()
            self.manageRequested.emit()
            return
        self.pick(data if isinstance(data, str) else None)
