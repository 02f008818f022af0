"""The chat-settings popover: the open chat's model, temperature, max tokens and
reasoning effort.

Each setting shows what the chat would use without it ("Default: 0.2, from the
assistant"); setting it applies to this chat only, at once, and is saved with the
chat (:meth:`desktop.chat.chat_settings.ChatSettings.set_options`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QWidget,
)

from desktop.chat.chat_options import EFFORTS, ChatOptions
from desktop.core.provider_options import MAX_TOKENS_LIMIT
from desktop.ui.knowledge.chat_knowledge_button import ChatKnowledgeButton
from desktop.ui.plain_text import plain_label
from desktop.ui.providers.provider_options import effort_name

if TYPE_CHECKING:
    from desktop.ui.window.controller import ChatController


class ChatSettingsPopover(QFrame):
    modelRequested = Signal()  # "Change…" next to the model: open the model picker

    def __init__(self, controller: ChatController, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.controller = controller
        self.setObjectName("chatSettings")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._loading = False
        title = QLabel(self.tr("This chat"))
        title.setObjectName("panelTitle")
        self.model_label = plain_label()
        self.model_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.model_button = QPushButton(self.tr("Change…"))
        self.model_button.clicked.connect(self._change_model)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model_label, 1)
        model_row.addWidget(self.model_button)

        self.temperature_check = QCheckBox(self.tr("Set"))
        self.temperature_check.setAccessibleName(self.tr("Set the temperature"))
        self.temperature_spin = QDoubleSpinBox()
        self.temperature_spin.setAccessibleName(self.tr("Temperature"))
        self.temperature_spin.setRange(0.0, 2.0)
        self.temperature_spin.setSingleStep(0.1)
        self.temperature_spin.setDecimals(2)
        temperature_row = QHBoxLayout()
        temperature_row.addWidget(self.temperature_check)
        temperature_row.addWidget(self.temperature_spin, 1)
        self.max_tokens_spin = QSpinBox()
        self.max_tokens_spin.setAccessibleName(self.tr("Max tokens"))
        self.max_tokens_spin.setRange(0, MAX_TOKENS_LIMIT)
        self.max_tokens_spin.setSingleStep(256)
        self.effort_combo = QComboBox()
        self.effort_combo.setAccessibleName(self.tr("Reasoning effort"))
        self.defaults_label = QLabel()
        self.defaults_label.setObjectName("emptyHint")
        self.defaults_label.setWordWrap(True)
        self.web_check = QCheckBox(self.tr("Search the web"))
        self.web_check.setAccessibleName(self.tr("Search the web in this chat"))
        self.knowledge_button = ChatKnowledgeButton(
            controller.services.knowledge.list,
            lambda: controller.service.chats.knowledge(controller.chat),
            lambda names: controller.service.chats.set_knowledge(controller.chat, names))
        self.reset_button = QPushButton(self.tr("Use the defaults"))
        self.reset_button.clicked.connect(self.reset)

        form = QFormLayout(self)
        form.addRow(title)
        form.addRow(self.tr("Model"), model_row)
        form.addRow(self.tr("Temperature"), temperature_row)
        form.addRow(self.tr("Max tokens"), self.max_tokens_spin)
        form.addRow(self.tr("Reasoning"), self.effort_combo)
        form.addRow(self.tr("Web"), self.web_check)
        form.addRow(self.tr("Knowledge"), self.knowledge_button)
        form.addRow(self.defaults_label)
        form.addRow("", self.reset_button)

        self.temperature_check.toggled.connect(self._apply)
        self.temperature_spin.valueChanged.connect(self._apply)
        self.max_tokens_spin.valueChanged.connect(self._apply)
        self.effort_combo.activated.connect(self._apply)
        self.web_check.toggled.connect(self._apply)

    def popup(self, below: QWidget) -> None:
        self.load()
        self.adjustSize()
        screen = below.window().geometry()
        spot = below.mapToGlobal(QPoint(0, below.height() + 2))
        width = max(self.sizeHint().width(), 320)
        x = max(screen.left() + 8, min(spot.x(), screen.right() - width - 8))
        self.setGeometry(x, spot.y(), width, self.sizeHint().height())
        self.show()
        self.temperature_spin.setFocus()

    def load(self) -> None:
        """Show the open chat's settings and what it would use without them."""
        c = self.controller
        chats = c.service.chats
        own = chats.options(c.chat)
        defaults = chats.request_defaults(c.chat)
        config = c.provider()
        self._loading = True
        self.model_label.setText(
            self.tr("{model} — {provider}").format(model=c.model() or self.tr("no model"),
                                                   provider=config.name) if config
            else self.tr("No provider yet"))
        default_temperature = defaults.temperature if defaults is not None else None
        self.temperature_check.setChecked(own.temperature is not None)
        self.temperature_spin.setEnabled(own.temperature is not None)
        self.temperature_spin.setValue(own.temperature if own.temperature is not None
                                       else default_temperature if default_temperature
                                       is not None else 1.0)
        default_max = defaults.max_tokens if defaults is not None else None
        self.max_tokens_spin.setSpecialValueText(
            self.tr("Default ({value})").format(value=default_max) if default_max
            else self.tr("Default (the model's)"))
        self.max_tokens_spin.setValue(own.max_tokens or 0)
        self.effort_combo.clear()
        default_effort = (self.tr("off") if defaults is None or not defaults.reasoning
                          else effort_name(defaults.reasoning_effort) if defaults.reasoning_effort
                          else self.tr("on"))
        self.effort_combo.addItem(self.tr("Default ({value})").format(value=default_effort), None)
        for effort in EFFORTS:
            self.effort_combo.addItem(effort_name(effort), effort)
        self.effort_combo.setCurrentIndex(max(0, self.effort_combo.findData(own.reasoning_effort)))
        model = c.model()
        can_reason = bool(config and model and
                          c.services.providers.capabilities(config, model).reasoning)
        self.effort_combo.setToolTip("" if can_reason else
                                     self.tr("This model does not say it can reason; the setting "
                                     "is sent anyway."))
        assistant = chats.assistant(c.chat)
        source = (self.tr("the assistant {name}").format(name=assistant.name)
                  if assistant is not None and assistant.temperature is not None
                  else self.tr("the provider"))
        self.defaults_label.setText(
            self.tr("Unset values come from {source}. These apply to this chat only.").format(
                source=source))
        self.web_check.setChecked(bool(own.web_search))
        self.web_check.setToolTip(self.tr(
            "The provider's own search where it has one (OpenAI Responses, Anthropic, "
            "Gemini, OpenRouter), else the search service chosen in Preferences"))
        self.knowledge_button.refresh()
        self.reset_button.setEnabled(not own.is_default())
        self._loading = False

    def options(self) -> ChatOptions:
        """The options as the form shows them."""
        return ChatOptions(
            temperature=round(self.temperature_spin.value(), 2)
            if self.temperature_check.isChecked() else None,
            max_tokens=self.max_tokens_spin.value() or None,
            reasoning_effort=self.effort_combo.currentData(),
            web_search=True if self.web_check.isChecked() else None)

    def _apply(self) -> None:
        if self._loading:
            return
        self.temperature_spin.setEnabled(self.temperature_check.isChecked())
        c = self.controller
        options = self.options()
        c.service.chats.set_options(c.chat, options)
        self.reset_button.setEnabled(not options.is_default())
        c.selectionChanged.emit()

    def reset(self) -> None:
        c = self.controller
        c.service.chats.set_options(c.chat, ChatOptions())
        self.load()
        c.selectionChanged.emit()

    def _change_model(self) -> None:
        self.hide()
        self.modelRequested.emit()
