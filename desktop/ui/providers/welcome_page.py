"""The providers dialog's first-run page, shown while no provider exists yet."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from desktop.chat.provider_presets import all_presets
from desktop.ui.providers.provider_text import preset_title
from desktop.ui.reflow_grid import ReflowGrid


class WelcomePage(QWidget):
    """Shown when no provider exists yet: one button per preset, in a grid that reflows."""

    presetChosen = Signal(str)  # preset id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        heading = QLabel(self.tr("Connect a model provider"))
        heading.setObjectName("appTitle")
        hint = QLabel(
            self.tr("Assista talks to OpenAI-compatible services: a cloud provider with your API "
            "key, or a local server such as LM Studio. Pick one to start:")
        )
        hint.setObjectName("emptyHint")
        hint.setWordWrap(True)
        # as many columns as the width allows, down to one (no horizontal scrolling)
        grid = ReflowGrid(max_columns=3)
        for preset in all_presets().values():  # (with those new APIs bring)
            button = QPushButton(preset_title(preset))
            button.setAutoDefault(False)
            button.setAccessibleName(self.tr("Add {name}").format(name=preset_title(preset)))
            button.clicked.connect(lambda _=False, pid=preset.id: self.presetChosen.emit(pid))
            grid.addWidget(button)
        layout.addWidget(heading)
        layout.addWidget(hint)
        layout.addLayout(grid)
        layout.addStretch(1)
