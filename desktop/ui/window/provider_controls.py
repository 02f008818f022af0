"""The main window's provider and model controls: the top-bar pickers, the model list
(cached, refreshed after the first paint), and the Providers / Model prices dialogs.

A mixin of :class:`desktop.ui.window.main_window.MainWindow`, which owns the widgets."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from PySide6.QtWidgets import QComboBox, QDialog, QLabel, QStatusBar, QWidget

from desktop.ui.window.helpers import delete_on_close, window_log

if TYPE_CHECKING:
    import asyncio

    from desktop.core.messages import Message
    from desktop.core.settings import ModelPrice
    from desktop.ui.window.controller import ChatController


class ProviderControls:
    controller: ChatController
    provider_combo: QComboBox
    model_combo: QComboBox
    usage_label: QLabel
    _model_task: asyncio.Task[None] | None
    _provider_dialog: QDialog | None

    if TYPE_CHECKING:  # provided by MainWindow / QMainWindow; never defined here, as
        # a definition in this mixin would shadow QMainWindow's at run time
        def statusBar(self) -> QStatusBar: ...
        def show_error(self, text: str) -> None: ...
        def _show_usage(self, messages: list[Message]) -> None: ...
        def after_first_paint(self, callback: Callable[[], None]) -> None: ...

    def refresh_providers(self) -> None:
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
        self._update_status()
        if active is not None:
            self._fetch_models()

    def _update_status(self) -> None:
        active = self.controller.provider()
        name = active.name if active else "no provider"
        self.statusBar().showMessage(f"{name} · {self.controller.model() or 'no model'} · "
                                     f"{self.usage_label.text()}")

    def _provider_chosen(self, index: int) -> None:
        provider_id = self.provider_combo.itemData(index)
        if provider_id:
            self.controller.set_provider(provider_id)
            self.refresh_providers()

    def _model_chosen(self, index: int) -> None:
        self.controller.set_model(self.model_combo.itemText(index))
        self._update_status()

    def _model_edited(self) -> None:
        text = self.model_combo.currentText().strip()
        if text and text != self.controller.model():
            self.controller.set_model(text)
            self._update_status()

    def _fetch_models(self) -> None:
        if self._model_task is not None and not self._model_task.done():
            self._model_task.cancel()
        config = self.controller.provider()
        if config is None:
            return

        cached = self.controller.ctx.cached_models(config)
        if cached:
            self._fill_models([m.id for m in cached])
        # Asking the server loads httpx, the adapter and the keyring and builds a TLS
        # context (~100 ms): at start-up that waits for the first frame.
        self.after_first_paint(self._request_models)

    def _request_models(self) -> None:
        if self._model_task is not None and not self._model_task.done():
            self._model_task.cancel()
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
            self._model_task = asyncio.ensure_future(fetch())
        except RuntimeError:  # no running loop (some tests)
            self._model_task = None

    def _fill_models(self, ids: list[str]) -> None:
        current = self.controller.model()
        self.model_combo.clear()
        self.model_combo.addItems(ids)
        self.model_combo.setEditText(current)
        if not current and ids:
            self.controller.set_model(ids[0])
            self.model_combo.setEditText(ids[0])
            self._update_status()

    def open_providers(self) -> None:
        """Show the Providers dialog (window-modal, without a nested event loop, so
        asyncio tasks keep running while it is open)."""
        from desktop.ui.providers.provider_dialog import ProviderDialog

        if self._provider_dialog is not None and self._provider_dialog.isVisible():
            self._provider_dialog.raise_()
            self._provider_dialog.activateWindow()
            return
        dialog = ProviderDialog(self.controller.ctx, cast(QWidget, self))
        delete_on_close(dialog)
        dialog.providersChanged.connect(self._providers_changed)
        dialog.finished.connect(self._provider_dialog_closed)
        self._provider_dialog = dialog
        dialog.open()

    def _provider_dialog_closed(self) -> None:
        self._provider_dialog = None
        self._providers_changed()

    def open_prices(self) -> None:
        from desktop.ui.providers.prices_dialog import PricesDialog

        dialog = PricesDialog(dict(self.controller.settings.prices), cast(QWidget, self))
        delete_on_close(dialog)
        dialog.pricesChanged.connect(self._prices_changed)
        dialog.open()

    def _prices_changed(self, prices: dict[str, ModelPrice]) -> None:
        self.controller.update_settings(prices=prices)
        self._show_usage(self.controller.history)

    def _providers_changed(self) -> None:
        self.controller.reload_settings()
        self.refresh_providers()

    def _provider_missing(self) -> None:
        self.show_error("Add a provider to start chatting.")
        self.open_providers()

    # -- workspace, confirm, misc -----------------------------------------------------------
