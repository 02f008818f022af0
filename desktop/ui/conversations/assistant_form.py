"""The form of one assistant: name, description, system prompt, default provider and
model, temperature, tools and skills (a skill switched off here is offered to none of
the chats using the assistant: ``extra["disabled_skills"]``, read by the chat profile).
:class:`AssistantForm` shows an :class:`Assistant` and gives back the edited copy;
saving and the list around it are the dialog's
(:mod:`desktop.ui.conversations.assistants_dialog`)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)

from desktop.core.records import Assistant
from desktop.skills.catalog import DISABLED_SKILLS_KEY
from desktop.ui.form_rows import whole
from desktop.ui.reflow_grid import ReflowGrid

if TYPE_CHECKING:
    from desktop.chat.provider_service import ProviderService


def disabled_skills(assistant: Assistant) -> list[str]:
    """The skills the assistant switched off."""
    raw = assistant.extra.get(DISABLED_SKILLS_KEY)
    return [str(n) for n in raw] if isinstance(raw, list) else []


class AssistantForm(QWidget):
    """Fields of one assistant; ``changed`` fires on every edit by the user."""

    changed = Signal()

    def __init__(self, providers: ProviderService, tool_names: list[str],
                 skill_names: list[str] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.providers = providers
        self._loading = False
        form = QFormLayout(self)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText(self.tr("e.g. Code reviewer"))
        self.description_edit = QLineEdit()
        self.description_edit.setPlaceholderText(self.tr("Optional: what it is for"))
        self.prompt_edit = QPlainTextEdit()
        self.prompt_edit.setPlaceholderText(self.tr(
            "The system prompt of chats started from it (empty: the default system prompt)"))
        self.provider_combo = QComboBox()
        self.provider_combo.setAccessibleName(self.tr("Default provider"))
        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        self.model_combo.setAccessibleName(self.tr("Default model"))
        model_edit = self.model_combo.lineEdit()
        if model_edit is not None:
            model_edit.setPlaceholderText(self.tr("The provider's default model"))
        self.temperature_check = QCheckBox(self.tr("Set"))
        self.temperature_spin = QDoubleSpinBox()
        self.temperature_spin.setAccessibleName(self.tr("Temperature"))
        self.temperature_spin.setRange(0.0, 2.0)
        self.temperature_spin.setSingleStep(0.1)
        self.temperature_spin.setDecimals(2)
        self.temperature_spin.setValue(0.7)
        temperature = QHBoxLayout()
        temperature.addWidget(self.temperature_check)
        temperature.addWidget(self.temperature_spin)
        temperature.addStretch(1)
        # (short, to fit a narrow dialog; the whole sentence is its tooltip)
        self.tools_check = whole(QCheckBox(self.tr("Only these tools")))
        self.tools_check.setToolTip(self.tr("Only these tools (otherwise the app's tool "
                                            "settings)"))
        self.tools_box = QWidget()
        self.tools_box.setAccessibleName(self.tr("Enabled tools"))
        grid = ReflowGrid(self.tools_box, max_columns=3)  # fewer columns when narrow
        self.tool_checks: dict[str, QCheckBox] = {}
        for name in tool_names:
            box = QCheckBox(name)
            box.setChecked(True)
            box.toggled.connect(self._edited)
            grid.addWidget(box)
            self.tool_checks[name] = box
        form.addRow(self.tr("Name"), self.name_edit)
        form.addRow(self.tr("Description"), self.description_edit)
        form.addRow(self.tr("System prompt"), self.prompt_edit)
        form.addRow(self.tr("Provider"), self.provider_combo)
        form.addRow(self.tr("Model"), self.model_combo)
        form.addRow(self.tr("Temperature"), temperature)
        form.addRow(self.tr("Tools"), self.tools_check)
        form.addRow("", self.tools_box)
        self._add_skills(form, skill_names or [])
        for edit in (self.name_edit, self.description_edit):
            edit.textEdited.connect(self._edited)
        self.prompt_edit.textChanged.connect(self._edited)
        self.provider_combo.currentIndexChanged.connect(self._provider_changed)
        self.model_combo.currentTextChanged.connect(self._edited)
        self.temperature_check.toggled.connect(self._edited)
        self.temperature_check.toggled.connect(self.temperature_spin.setEnabled)
        self.temperature_spin.valueChanged.connect(self._edited)
        self.tools_check.toggled.connect(self._edited)
        self.tools_check.toggled.connect(self.tools_box.setEnabled)

    def show_assistant(self, a: Assistant) -> None:
        """Fill the fields from ``a`` (no ``changed`` while filling)."""
        self._loading = True
        self.name_edit.setText(a.name)
        self.description_edit.setText(a.description)
        self.prompt_edit.setPlainText(a.system_prompt)
        self.provider_combo.clear()
        self.provider_combo.addItem(self.tr("The provider chosen in the window"), None)
        for config in self.providers.all():
            self.provider_combo.addItem(config.name, config.id)
        index = self.provider_combo.findData(a.provider_id) if a.provider_id else 0
        if index < 0:  # a provider that was removed
            self.provider_combo.addItem(
                self.tr("(removed provider {id})").format(id=a.provider_id), a.provider_id)
            index = self.provider_combo.count() - 1
        self.provider_combo.setCurrentIndex(index)
        self._fill_models(a.model or "")
        self.temperature_check.setChecked(a.temperature is not None)
        self.temperature_spin.setEnabled(a.temperature is not None)
        if a.temperature is not None:
            self.temperature_spin.setValue(a.temperature)
        self.tools_check.setChecked(a.enabled_tools is not None)
        self.tools_box.setEnabled(a.enabled_tools is not None)
        for name, box in self.tool_checks.items():
            box.setChecked(a.enabled_tools is None or name in a.enabled_tools)
        off = disabled_skills(a)
        for name, box in self.skill_checks.items():
            box.setChecked(name not in off)
        self._loading = False

    def value(self, base: Assistant) -> Assistant:
        """``base`` with the fields as the form shows them."""
        tools: tuple[str, ...] | None = None
        if self.tools_check.isChecked():
            tools = tuple(name for name, box in self.tool_checks.items() if box.isChecked())
        return dataclasses.replace(
            base,
            name=self.name_edit.text(),
            description=self.description_edit.text().strip(),
            system_prompt=self.prompt_edit.toPlainText().strip(),
            provider_id=self.provider_combo.currentData(),
            model=self.model_combo.currentText().strip() or None,
            temperature=(round(self.temperature_spin.value(), 2)
                         if self.temperature_check.isChecked() else None),
            enabled_tools=tools,
            extra=self._extra(base),
        )

    def _add_skills(self, form: QFormLayout, names: list[str]) -> None:
        """A switch for each skill found (on: the assistant's chats are offered it)."""
        self.skills_box = QWidget()
        self.skills_box.setAccessibleName(self.tr("Skills"))
        self.skills_box.setToolTip(self.tr("Skills offered to the chats that use this "
                                           "assistant (Settings → Skills adds them)"))
        grid = ReflowGrid(self.skills_box, max_columns=3)
        self.skill_checks: dict[str, QCheckBox] = {}
        for name in names:
            box = QCheckBox(name)  # (a skill's name: letters, digits and hyphens)
            box.setChecked(True)
            box.toggled.connect(self._edited)
            grid.addWidget(box)
            self.skill_checks[name] = box
        self.no_skills = QLabel(self.tr("No skills found (Settings → Skills adds them)."))
        self.no_skills.setObjectName("emptyHint")
        self.no_skills.setWordWrap(True)
        self.no_skills.setVisible(not names)
        form.addRow(self.tr("Skills"), self.skills_box if names else self.no_skills)

    def _extra(self, base: Assistant) -> dict[str, Any]:
        """``base.extra`` with the skills switched off as the form shows them (a skill
        switched off that is not listed here, from another workspace, stays off)."""
        off = [n for n in disabled_skills(base) if n not in self.skill_checks]
        off += [n for n, box in self.skill_checks.items() if not box.isChecked()]
        extra = {k: v for k, v in base.extra.items() if k != DISABLED_SKILLS_KEY}
        if off:
            extra[DISABLED_SKILLS_KEY] = sorted(off)
        return extra

    def _fill_models(self, model: str) -> None:
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        provider_id = self.provider_combo.currentData()
        config = self.providers.get(provider_id)
        if config is not None:
            self.model_combo.addItems([m.id for m in self.providers.cached_models(config)])
        self.model_combo.setEditText(model)
        self.model_combo.blockSignals(False)

    def _provider_changed(self) -> None:
        if not self._loading:
            self._fill_models(self.model_combo.currentText())
            self._edited()

    def _edited(self) -> None:
        if not self._loading:
            self.changed.emit()
