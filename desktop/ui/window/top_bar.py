"""The window's top bar: which provider, model and assistant the open chat uses (the
model picker and the chat-settings popover open from here), the Providers… button,
the chat's token usage and the Tool activity toggle. Its controls shrink with their
text elided; below :data:`COMPACT_WIDTH` buttons show icons only.

It owns its widgets and what they show: it reads the controller and changes the
provider or model through it, and says what the window should do through signals
(``providersRequested``, ``assistantsRequested``, ``sidebarToggled``, ``statusChanged``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QIcon, QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from desktop import APP_NAME
from desktop.core.pricing import Price
from desktop.ui.chat.usage_text import format_usage, session_usage, usage_tooltip
from desktop.ui.conversations.assistant_picker import AssistantPicker
from desktop.ui.icons import icon, icon_button
from desktop.ui.window.chat_settings_popover import ChatSettingsPopover
from desktop.ui.window.elided import ElidedButton, ElidingComboBox
from desktop.ui.window.helpers import window_log
from desktop.ui.window.model_picker import ModelPicker

if TYPE_CHECKING:
    import asyncio

    from desktop.core.messages import Message
    from desktop.ui.window.controller import ChatController


#: Below these widths the bar drops the words on its buttons and the usage label,
#: then the app's name (it is in the window's title).
COMPACT_WIDTH = 900
TITLE_WIDTH = 1000


class TopBar(QWidget):
    providersRequested = Signal()  # "Providers…" clicked
    assistantsRequested = Signal()  # "Manage assistants…" picked
    sidebarToggled = Signal(bool)  # Tool activity switched on or off
    sidebarChosen = Signal()  # ... by the user (a click, Ctrl+B): a choice to remember
    statusChanged = Signal()  # provider, model or usage changed: see status_text()
    choiceMade = Signal()  # a provider, model or assistant was picked: back to the composer

    def __init__(self, controller: ChatController,
                 after_first_paint: Callable[[Callable[[], None]], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        # Asking a server for its models waits for the window's first frame.
        self._after_first_paint = after_first_paint
        self.model_task: asyncio.Task[None] | None = None  # the running model request
        self.models: list[str] = []  # the open chat's provider's models, as last listed
        self.setObjectName("topBar")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)

        self.title_label = QLabel(APP_NAME)
        self.title_label.setObjectName("appTitle")
        self.provider_combo = ElidingComboBox(max_width=220)
        self.provider_combo.setAccessibleName(self.tr("Provider"))
        self.provider_combo.setToolTip(self.tr("The provider of this chat"))
        self.provider_combo.setPlaceholderText(self.tr("No provider"))
        self.model_button = ElidedButton(max_width=320)
        self.model_button.setAccessibleName(self.tr("Model"))
        self.model_button.setIcon(icon("chevron-down", "muted"))
        # The arrow after the text, as on a combo box.
        self.model_button.setLayoutDirection(Qt.LayoutDirection.RightToLeft)
        self.settings_button = icon_button("sliders-horizontal",
                                           self.tr("Chat settings: model, temperature, max tokens, "
                                           "reasoning"), self.tr("Chat settings"))
        self.assistant_picker = AssistantPicker(controller)
        # A click leaves the keyboard where it was (the composer): a button that kept it
        # reopened the picker at the next space typed, a box took the letters as a
        # search of its items (and switched). Tab still reaches them.
        for chooser in (self.provider_combo, self.model_button, self.assistant_picker):
            chooser.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.providers_button = QPushButton(self.tr("Providers…"))
        self.providers_button.setToolTip(self.tr("Add or edit providers"))
        self.providers_button.setAccessibleName(self.tr("Providers"))
        self.usage_label = QLabel("")
        self.usage_label.setObjectName("usageLabel")
        self.sidebar_button = QPushButton(self.tr("Tool activity"))
        self.sidebar_button.setAccessibleName(self.tr("Tool activity"))
        self.sidebar_button.setToolTip(self.tr("Show or hide the tool activity panel (Ctrl+B)"))
        self.sidebar_button.setCheckable(True)
        self.sidebar_button.setChecked(False)  # (closed until a tool runs, or chosen)
        self.catalog = controller.services.model_catalog()
        self.picker = ModelPicker(self.catalog, self)
        self.chat_settings = ChatSettingsPopover(controller, self)
        self.compact = False  # narrow: icons instead of words, no title or usage

        row = QHBoxLayout(self)
        row.setContentsMargins(14, 8, 14, 8)  # as the start-up skeleton's bar
        row.addWidget(self.title_label)
        row.addSpacing(16)
        # When narrow, the model gets the larger share: its id is what tells models apart.
        for widget, share in ((self.provider_combo, 2), (self.model_button, 3),
                              (self.settings_button, 0), (self.assistant_picker, 2),
                              (self.providers_button, 0)):
            row.addWidget(widget, share)
        row.addStretch(1)
        row.addWidget(self.usage_label)
        row.addSpacing(8)
        row.addWidget(self.sidebar_button)

        self.providers_button.clicked.connect(self.providersRequested)
        self.sidebar_button.toggled.connect(self.sidebarToggled)
        self.sidebar_button.clicked.connect(self.sidebarChosen)
        self.provider_combo.activated.connect(self._provider_chosen)
        self.model_button.clicked.connect(self.open_model_picker)
        self.settings_button.clicked.connect(self.open_chat_settings)
        self.picker.picked.connect(self._model_picked)
        self.chat_settings.modelRequested.connect(self.open_model_picker)
        # An assistant brings its own provider and model.
        self.assistant_picker.changed.connect(self.refresh_providers)
        self.assistant_picker.changed.connect(self.choiceMade)
        self.assistant_picker.manageRequested.connect(self.assistantsRequested)
        self._listed_for: str | None = None  # the provider whose models were asked for
        # Another chat, a compare's new chat, a kept answer: the box, the button and the
        # status line all follow the chat's provider and model.
        controller.selectionChanged.connect(self._show_selection)

    # -- narrow windows ------------------------------------------------------------------------

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        width = event.size().width()
        wide_title = width >= TITLE_WIDTH
        if self.set_compact(width < COMPACT_WIDTH) or wide_title != self.title_label.isVisibleTo(
                self):
            self.title_label.setVisible(wide_title)
            # The layout placed the controls with the old sizes before this handler ran:
            # place them again now rather than one frame later.
            layout = self.layout()
            if layout is not None:
                layout.invalidate()
                layout.activate()

    def set_compact(self, compact: bool) -> bool:
        """Icon-only Providers and Tool activity, no usage label (the status line has
        it): what a half-screen window needs to fit every control unclipped. True when
        that changed."""
        if compact == self.compact:
            return False
        self.compact = compact
        for button, name, text in ((self.providers_button, "server", self.tr("Providers…")),
                                   (self.sidebar_button, "panel-right", self.tr("Tool activity"))):
            button.setText("" if compact else text)
            button.setIcon(icon(name) if compact else QIcon())
        self.usage_label.setVisible(not compact)
        return True

    # -- the model -------------------------------------------------------------------------

    def open_model_picker(self) -> None:
        config = self.controller.provider()
        self.picker.popup(self.model_button, config.id if config is not None else None)

    def open_chat_settings(self) -> None:
        self.chat_settings.popup(self.settings_button)

    def _model_picked(self, provider_id: str, model: str) -> None:
        config = self.controller.provider()
        if config is None or config.id != provider_id:
            self.controller.set_provider(provider_id)
        self.controller.set_model(model)
        self.refresh_providers()
        self.choiceMade.emit()

    def _show_selection(self) -> None:
        active = self.controller.provider()
        index = self.provider_combo.findData(active.id) if active is not None else -1
        if index != self.provider_combo.currentIndex():
            self.provider_combo.setCurrentIndex(index)
        self._show_model()
        self.statusChanged.emit()
        if active is not None and active.id != self._listed_for:
            self._fetch_models()

    def _show_model(self) -> None:
        model = self.controller.model()
        config = self.controller.provider()
        own = self.controller.service.chats.options(self.controller.chat)
        tip = (self.tr("{model} on {provider}").format(model=model, provider=config.name)
               if model and config else self.tr("Choose a model"))
        self.model_button.set_full_text(model or self.tr("Choose a model…"),
                                        tip + "\n" + self.tr("Click to search and switch models"))
        self.settings_button.setToolTip(
            self.tr("Chat settings: model, temperature, max tokens, reasoning")
            + ("" if own.is_default() else self.tr(" (this chat sets its own)")))

    # -- what the bar shows ------------------------------------------------------------------

    def status_text(self) -> str:
        """"provider · model · usage", for the window's status line."""
        active = self.controller.provider()
        name = active.name if active else self.tr("no provider")
        model = self.controller.model() or self.tr("no model")
        return f"{name} · {model} · {self.usage_label.text()}"

    def show_usage(self, messages: list[Message]) -> None:
        """Tokens (and cost, where the model has a price) of ``messages``."""
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
        self.sidebarChosen.emit()

    # -- providers and models ----------------------------------------------------------------

    def refresh_providers(self) -> None:
        """List the providers again and show the open chat's provider and model; the
        model list comes from the cache at once and from the server after the first
        frame."""
        active = self.controller.provider()
        self.provider_combo.clear()
        for config in self.controller.services.providers.all():
            label = config.name + (" (environment)" if config.source == "environment" else "")
            label += " (detected)" if config.source == "detected" else ""
            self.provider_combo.addItem(label, config.id)
        if active is not None:
            self.provider_combo.setCurrentIndex(self.provider_combo.findData(active.id))
        self._show_model()
        self.statusChanged.emit()
        if active is not None:
            self._fetch_models()

    def _provider_chosen(self, index: int) -> None:
        provider_id = self.provider_combo.itemData(index)
        if provider_id:
            self.controller.set_provider(provider_id)
            self.refresh_providers()
        self.choiceMade.emit()

    def _fetch_models(self) -> None:
        self._cancel_model_task()
        config = self.controller.provider()
        if config is None:
            return
        self._listed_for = config.id
        cached = self.controller.services.providers.cached_models(config)
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
                models = await self.controller.services.providers.refresh_models(config)
            except Exception as exc:
                window_log().info("could not list models for %s: %s", config.name, exc)
                return
            self._fill_models([m.id for m in models])

        try:
            self.model_task = asyncio.ensure_future(fetch())
        except RuntimeError:  # no running loop (some tests)
            self.model_task = None

    def _cancel_model_task(self) -> None:
        # Only the newest request may fill the list (the provider may have changed).
        if self.model_task is not None and not self.model_task.done():
            self.model_task.cancel()

    def _fill_models(self, ids: list[str]) -> None:
        self.models = ids
        if self.picker.isVisible():
            self.picker.refresh()
        if not self.controller.model() and ids:  # a provider without a default model
            self.controller.set_model(ids[0])
            self._show_model()
            self.statusChanged.emit()
