"""Per-provider behaviour: thinking, Responses API mode, capability overrides.

Reads and writes ``ProviderConfig.options`` (the kind's model in
:mod:`desktop.core.provider_options`): ``reasoning`` / ``reasoning_budget`` /
``reasoning_effort`` are request defaults (applied by the agent loop),
``responses_mode`` is read by the Responses adapter, ``capabilities`` by
:func:`desktop.providers.capabilities.resolve_capabilities`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QSpinBox,
    QWidget,
)

from desktop.core.provider_options import (
    CapabilityOverrides,
    CommonOptions,
    OpenAIChatOptions,
    ResponsesOptions,
)
from desktop.core.settings import ProviderConfig
from desktop.ui.wrap_row import WrapRow

EFFORTS = ["low", "medium", "high"]
# (translated where the check boxes are made)
CAPABILITY_FLAGS = [
    ("tools", str(QT_TRANSLATE_NOOP("ProviderOptionsBox", "Tools")),
     str(QT_TRANSLATE_NOOP("ProviderOptionsBox", "Tools capability"))),
    ("vision", str(QT_TRANSLATE_NOOP("ProviderOptionsBox", "Images")),
     str(QT_TRANSLATE_NOOP("ProviderOptionsBox", "Images capability"))),
    ("reasoning", str(QT_TRANSLATE_NOOP("ProviderOptionsBox", "Reasoning")),
     str(QT_TRANSLATE_NOOP("ProviderOptionsBox", "Reasoning capability")))]
EFFORT_NAMES = {"minimal": str(QT_TRANSLATE_NOOP("ProviderOptionsBox", "minimal")),
                "low": str(QT_TRANSLATE_NOOP("ProviderOptionsBox", "low")),
                "medium": str(QT_TRANSLATE_NOOP("ProviderOptionsBox", "medium")),
                "high": str(QT_TRANSLATE_NOOP("ProviderOptionsBox", "high"))}


def effort_name(effort: str) -> str:
    """A reasoning effort ("low") as the interface names it."""
    name = EFFORT_NAMES.get(effort)
    return QCoreApplication.translate("ProviderOptionsBox", name) if name else effort


class ProviderOptionsBox(QGroupBox):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Model behaviour"))
        form = QFormLayout(self)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.thinking_check = QCheckBox(self.tr("Ask the model to think before answering"))
        self.thinking_check.setAccessibleName(self.tr("Extended thinking"))
        self.budget_spin = QSpinBox()
        self.budget_spin.setRange(1024, 128000)
        self.budget_spin.setSingleStep(1024)
        self.budget_spin.setSuffix(self.tr(" tokens"))
        self.budget_spin.setAccessibleName(self.tr("Thinking budget"))
        self.effort_combo = QComboBox()
        for effort in EFFORTS:
            self.effort_combo.addItem(self.tr(EFFORT_NAMES[effort]), effort)
        self.effort_combo.setAccessibleName(self.tr("Reasoning effort"))
        thinking_row = WrapRow()  # (wraps in a narrow dialog)
        thinking_row.addWidget(self.thinking_check)
        thinking_row.addWidget(self.budget_spin)
        thinking_row.addWidget(self.effort_combo)
        self.thinking_label = QLabel(self.tr("Thinking"))
        form.addRow(self.thinking_label, thinking_row)

        self.mode_combo = QComboBox()
        self.mode_combo.addItem(
                self.tr("Chain responses on the server (previous_response_id)"), "chain")
        self.mode_combo.addItem(self.tr("Stateless replay (store: false)"), "replay")
        self.mode_combo.setAccessibleName(self.tr("Responses API mode"))
        # (narrower than its longest entry when the dialog is: the list shows it whole)
        self.mode_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.mode_combo.setMinimumContentsLength(16)
        self.mode_label = QLabel(self.tr("Conversation state"))
        form.addRow(self.mode_label, self.mode_combo)

        caps_row = WrapRow()
        self.capability_checks: dict[str, QCheckBox] = {}
        for key, label, accessible in CAPABILITY_FLAGS:
            check = QCheckBox(self.tr(label))
            check.setTristate(True)
            check.setToolTip(self.tr("Checked: the model can · Unchecked: it cannot · "
                             "Partly checked: decide from the model name"))
            check.setAccessibleName(self.tr(accessible))
            self.capability_checks[key] = check
            caps_row.addWidget(check)
            check.stateChanged.connect(self._emit)
        form.addRow(self.tr("Capabilities"), caps_row)

        self.thinking_check.toggled.connect(self._sync_enabled)
        self.thinking_check.toggled.connect(self._emit)
        self.budget_spin.valueChanged.connect(self._emit)
        self.effort_combo.currentIndexChanged.connect(self._emit)
        self.mode_combo.currentIndexChanged.connect(self._emit)
        self._loading = False
        # The kind's options model: its fields, and which thinking controls it has.
        self._model: type[CommonOptions] = OpenAIChatOptions

    def _emit(self, *_args: object) -> None:
        if not self._loading:
            self.changed.emit()

    def _sync_enabled(self) -> None:
        on = self.thinking_check.isChecked()
        self.budget_spin.setEnabled(on)
        self.effort_combo.setEnabled(on)

    def load(self, config: ProviderConfig, *, read_only: bool = False) -> None:
        self._loading = True
        try:
            options = config.options
            self._model = model = type(options)
            self.thinking_label.setVisible(model.shows_thinking)
            self.thinking_check.setVisible(model.shows_thinking)
            self.budget_spin.setVisible(model.shows_budget)
            self.effort_combo.setVisible(model.shows_effort)
            self.thinking_check.setChecked(options.reasoning)
            self.budget_spin.setValue(options.reasoning_budget or 8192)
            effort = options.reasoning_effort or "medium"
            self.effort_combo.setCurrentIndex(max(0, EFFORTS.index(effort)
                                                  if effort in EFFORTS else 1))
            modes = "responses_mode" in model.model_fields
            self.mode_label.setVisible(modes)
            self.mode_combo.setVisible(modes)
            mode = options.responses_mode if isinstance(options, ResponsesOptions) else "chain"
            self.mode_combo.setCurrentIndex(max(0, self.mode_combo.findData(mode)))
            caps = options.capabilities or CapabilityOverrides()
            for key, check in self.capability_checks.items():
                value = getattr(caps, key)
                check.setCheckState(Qt.CheckState.PartiallyChecked if value is None else
                                    Qt.CheckState.Checked if value else
                                    Qt.CheckState.Unchecked)
            editable: list[QWidget] = [self.thinking_check, self.budget_spin,
                                       self.effort_combo, self.mode_combo,
                                       *self.capability_checks.values()]
            for widget in editable:
                widget.setEnabled(not read_only)
            if not read_only:
                self._sync_enabled()
        finally:
            self._loading = False

    def options(self, base: CommonOptions) -> CommonOptions:
        """``base`` options with this box's values applied (the box edits only some
        fields: the others are kept as they are)."""
        options: dict[str, Any] = base.model_dump()
        model = self._model
        if model.shows_thinking:
            options["reasoning"] = self.thinking_check.isChecked()
            if model.shows_budget:
                options["reasoning_budget"] = self.budget_spin.value()
            if model.shows_effort:
                options["reasoning_effort"] = self.effort_combo.currentData()
        if "responses_mode" in model.model_fields:
            options["responses_mode"] = self.mode_combo.currentData()
        # Overrides the box does not show (limits, per-model flags) are kept.
        previous = base.capabilities.model_dump() if base.capabilities is not None else {}
        caps: dict[str, Any] = {key: value for key, value in previous.items()
                                if key not in self.capability_checks and value}
        caps.update((key, check.checkState() == Qt.CheckState.Checked)
                    for key, check in self.capability_checks.items()
                    if check.checkState() != Qt.CheckState.PartiallyChecked)
        options["capabilities"] = caps or None
        return type(base).model_validate(options)
