"""The window's top bar: which provider, model and assistant the open chat uses, the
Providers… button, the chat's token usage and the Tool activity toggle.

It owns its widgets and what they show: it reads the controller and changes the
provider or model through it, and says what the window should do through signals
(``providersRequested``, ``assistantsRequested``, ``sidebarToggled``, ``statusChanged``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QWidget

from desktop import APP_NAME
from desktop.ui.conversations.assistant_picker import AssistantPicker
from desktop.ui.window.helpers import window_log

if TYPE_CHECKING:
    import asyncio

    from desktop.core.messages import Message
    from desktop.ui.window.controller import ChatController


class TopBar(QWidget):
    providersRequested = Signal()  # "Providers…" clicked
    assistantsRequested = Signal()  # "Manage assistants…" picked
    sidebarToggled = Signal(bool)  # Tool activity switched on or off
    statusChanged = Signal()  # provider, model or usage changed: see status_text()

    def __init__(self, controller: ChatController,
                 after_first_paint: Callable[[Callable[[], None]], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        # Asking a server for its models waits for the window's first frame.
        self._after_first_paint = after_first_paint
        self.model_task: asyncio.Task[None] | None = None  # the running model request
        self.setObjectName("topBar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)

        title = QLabel(APP_NAME)
        title.setObjectName("appTitle")
        self.provider_combo = QComboBox()
        self.provider_combo.setAccessibleName("Provider")
        self.provider_combo.setMinimumWidth(200)
        self.model_combo = QComboBox()
        self.model_combo.setAccessibleName("Model")
        self.model_combo.setEditable(True)  # any model id, not only the listed ones
        self.model_combo.setMinimumWidth(240)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.assistant_picker = AssistantPicker(controller)
        self.providers_button = QPushButton("Providers…")
        self.providers_button.setToolTip("Add or edit providers (Ctrl+,)")
        self.usage_label = QLabel("")
        self.usage_label.setObjectName("usageLabel")
        self.sidebar_button = QPushButton("Tool activity")
        self.sidebar_button.setCheckable(True)
        self.sidebar_button.setChecked(True)

        row = QHBoxLayout(self)
        row.setContentsMargins(14, 8, 14, 8)  # as the start-up skeleton's bar
        row.addWidget(title)
        row.addSpacing(16)
        row.addWidget(self.provider_combo)
        row.addWidget(self.model_combo)
        row.addWidget(self.assistant_picker)
        row.addWidget(self.providers_button)
        row.addStretch(1)
        row.addWidget(self.usage_label)
        row.addSpacing(8)
        row.addWidget(self.sidebar_button)

        self.providers_button.clicked.connect(self.providersRequested)
        self.sidebar_button.toggled.connect(self.sidebarToggled)
        self.provider_combo.activated.connect(self._provider_chosen)
        self.model_combo.activated.connect(self._model_chosen)
        model_edit = self.model_combo.lineEdit()
        if model_edit is not None:
            model_edit.editingFinished.connect(self._model_edited)
        # An assistant brings its own provider and model.
        self.assistant_picker.changed.connect(self.refresh_providers)
        self.assistant_picker.manageRequested.connect(self.assistantsRequested)

    # -- what the bar shows ------------------------------------------------------------------

    def status_text(self) -> str:
        """"provider · model · usage", for the window's status line."""
        active = self.controller.provider()
        name = active.name if active else "no provider"
        return f"{name} · {self.controller.model() or 'no model'} · {self.usage_label.text()}"

    def show_usage(self, messages: list[Message]) -> None:
        """Tokens (and cost, where the model has a price) of ``messages``."""
        from desktop.providers.pricing import Price
        from desktop.ui.chat.usage_text import format_usage, session_usage, usage_tooltip

        prices = {model: Price(p.input, p.output, p.cached_input)
                  for model, p in self.controller.settings.prices.items()}
        total = session_usage(messages, prices)
        self.usage_label.setText(format_usage(total))
        self.usage_label.setToolTip(usage_tooltip(total))
        self.statusChanged.emit()

    def refresh_assistants(self) -> None:
        self.assistant_picker.refresh()

    def sidebar_visible(self) -> bool:
        return self.sidebar_button.isChecked()

    def set_sidebar_visible(self, visible: bool) -> None:
        self.sidebar_button.setChecked(visible)

    def toggle_sidebar(self) -> None:
        self.sidebar_button.toggle()

    # -- providers and models ----------------------------------------------------------------

    def refresh_providers(self) -> None:
        """List the providers again and show the open chat's provider and model; the
        model list comes from the cache at once and from the server after the first
        frame."""
        ctx = self.controller.ctx
        active = self.controller.provider()
        self.provider_combo.clear()
        for config in ctx.all_providers():
            label = config.name + (" (environment)" if config.source == "environment" else "")
            label += " (detected)" if config.source == "detected" else ""
            self.provider_combo.addItem(label, config.id)
        if active is not None:
            self.provider_combo.setCurrentIndex(self.provider_combo.findData(active.id))
        self.model_combo.clear()
        model = self.controller.model()
        if model:
            self.model_combo.addItem(model)
        self.model_combo.setEditText(model)
        self.statusChanged.emit()
        if active is not None:
            self._fetch_models()

    def _provider_chosen(self, index: int) -> None:
        provider_id = self.provider_combo.itemData(index)
        if provider_id:
            self.controller.set_provider(provider_id)
            self.refresh_providers()

    def _model_chosen(self, index: int) -> None:
        self.controller.set_model(self.model_combo.itemText(index))
        self.statusChanged.emit()

    def _model_edited(self) -> None:
        text = self.model_combo.currentText().strip()
        if text and text != self.controller.model():
            self.controller.set_model(text)
            self.statusChanged.emit()

    def _fetch_models(self) -> None:
        self._cancel_model_task()
        config = self.controller.provider()
        if config is None:
            return
        cached = self.controller.ctx.cached_models(config)
        if cached:
            self._fill_models([m.id for m in cached])
        # Asking the server loads httpx, the adapter and the keyring and builds a TLS
        # context (~100 ms): at start-up that waits for the first frame.
        self._after_first_paint(self.request_models)

    def request_models(self) -> None:
        """Ask the open chat's provider for its models (in the background)."""
        self._cancel_model_task()
        config = self.controller.provider()
        if config is None:
            return

        async def fetch() -> None:
            try:
                models = await self.controller.ctx.refresh_models(config)
            except Exception as exc:
                window_log().info("could not list models for %s: %s", config.name, exc)
                return
            self._fill_models([m.id for m in models])

        import asyncio

        try:
            self.model_task = asyncio.ensure_future(fetch())
        except RuntimeError:  # no running loop (some tests)
            self.model_task = None

    def _cancel_model_task(self) -> None:
        # Only the newest request may fill the list (the provider may have changed).
        if self.model_task is not None and not self.model_task.done():
            self.model_task.cancel()

    def _fill_models(self, ids: list[str]) -> None:
        current = self.controller.model()
        self.model_combo.clear()
        self.model_combo.addItems(ids)
        self.model_combo.setEditText(current)
        if not current and ids:  # a provider without a default model: take the first
            self.controller.set_model(ids[0])
            self.model_combo.setEditText(ids[0])
            self.statusChanged.emit()
