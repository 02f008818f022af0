"""The "Providers" dialog: add, edit, test and remove model providers.

Left: a :class:`ProviderList` of every provider the :class:`ProviderService` lists
(user-configured ones are editable; ones from the environment are read-only; a detected
LM Studio can be added). Right: a :class:`ProviderForm`. Saving and removing go through
the service (keys to the secret store, never to the settings). Network work (fetch
models, test connection) runs as an asyncio task on the qasync loop
(see :meth:`ProviderForm.start_check`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.provider_presets import get_preset
from desktop.chat.secret_text import redact
from desktop.core.errors import AssistaError
from desktop.core.settings import ProviderConfig
from desktop.ui import theme
from desktop.ui.error_text import exception_text
from desktop.ui.providers.provider_form import ProviderForm
from desktop.ui.providers.provider_list import ProviderList
from desktop.ui.providers.provider_text import key_note, source_text
from desktop.ui.providers.welcome_page import WelcomePage
from desktop.ui.scrolling import narrow_side, scrolling, sized_by_current

if TYPE_CHECKING:
    from desktop.chat.provider_service import ProviderService
    from desktop.ui.window.dialog_registry import DialogServices

CHECK_TIMEOUT_S = 20.0  # fetch/test should fail fast, not wait for a 120 s chat timeout


class ProviderDialog(QDialog):
    """Manage providers. Emits :attr:`providersChanged` after every save or removal."""

    providersChanged = Signal()

    @classmethod
    def for_window(cls, services: DialogServices, parent: QWidget) -> ProviderDialog:
        """Built by the window's dialog launcher (dialog_registry)."""
        return cls(services.app.providers, parent)

    def __init__(self, providers: ProviderService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.providers = providers
        self.setWindowTitle(self.tr("Providers"))
        self.resize(820, 520)
        self._configs: dict[str, ProviderConfig] = {}
        self._draft: ProviderConfig | None = None  # a new provider not saved yet
        self._current: ProviderConfig | None = None
        self._dirty = False
        self._build()
        self.reload()

    # -- construction ----------------------------------------------------------------

    def _build(self) -> None:
        root = QHBoxLayout(self)
        self.provider_list = ProviderList()
        self.provider_list.currentChanged.connect(self._on_current_changed)
        self.provider_list.presetChosen.connect(self.open_for_new)
        self.provider_list.remove_button.clicked.connect(self._remove)
        # The dialog's own names for the list's parts: callers and tests reach them here.
        self.list = self.provider_list.list
        self.add_button = self.provider_list.add_button
        self.remove_button = self.provider_list.remove_button
        root.addWidget(self.provider_list)
        root.addLayout(self._build_right(), 1)
        narrow_side(self.list, self, widest=280)

    def _build_right(self) -> QVBoxLayout:
        right = QVBoxLayout()
        self.stack = QStackedWidget()
        self.welcome = WelcomePage()
        self.welcome.presetChosen.connect(self.open_for_new)
        self.editor = QWidget()
        editor = QVBoxLayout(self.editor)
        editor.setContentsMargins(8, 0, 0, 0)
        self.title_label = QLabel()
        self.title_label.setObjectName("appTitle")
        editor.addWidget(self.title_label)
        banner = QHBoxLayout()
        self.source_label = QLabel()
        self.source_label.setObjectName("emptyHint")
        self.source_label.setWordWrap(True)
        self.adopt_button = QPushButton(self.tr("Add to my providers"))
        self.adopt_button.setAccessibleName(self.tr("Add detected provider to my providers"))
        self.adopt_button.clicked.connect(self._adopt_detected)
        banner.addWidget(self.source_label, 1)
        banner.addWidget(self.adopt_button)
        editor.addLayout(banner)
        self.form = ProviderForm()
        self.form.changed.connect(self._on_form_changed)
        self.form.fetch_button.clicked.connect(lambda: self._start_check(test=False))
        self.form.test_button.clicked.connect(lambda: self._start_check(test=True))
        editor.addWidget(self.form)
        editor.addStretch(1)
        self.stack.addWidget(self.welcome)
        self.stack.addWidget(self.editor)
        sized_by_current(self.stack)  # the presets are not held as wide as the form
        right.addWidget(scrolling(self.stack), 1)  # a small screen scrolls it

        bottom = QHBoxLayout()
        self.validation_label = QLabel()
        self.validation_label.setWordWrap(True)
        self.validation_label.setStyleSheet(f"color: {theme.colors()['error']};")
        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setObjectName("primaryButton")
        self.save_button.setDefault(True)
        self.save_button.clicked.connect(self._save)
        self.close_button = QPushButton(self.tr("Close"))
        self.close_button.setAutoDefault(False)
        self.close_button.clicked.connect(self.reject)
        bottom.addWidget(self.validation_label, 1)
        bottom.addWidget(self.save_button)
        bottom.addWidget(self.close_button)
        right.addLayout(bottom)
        return right

    # -- public API ------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """True while a fetch or test is running."""
        return self.form.busy

    def current_provider(self) -> ProviderConfig | None:
        return self._current

    def reload(self, select_id: str | None = None) -> None:
        """Re-read the providers and show ``select_id`` (default: keep the selection).

        Unsaved edits in the form are dropped (a new, unsaved provider is kept)."""
        configs = self.providers.all()
        if self._draft is not None:
            configs.append(self._draft)
        self._configs = {config.id: config for config in configs}
        self.provider_list.fill(configs, self._draft.id if self._draft is not None else None)
        wanted = select_id or (self._current.id if self._current is not None else None)
        if wanted not in self._configs:
            wanted = configs[0].id if configs else None
        self._show(wanted)

    def select_provider(self, provider_id: str) -> bool:
        """Select a provider by id; False if unknown or the user kept unsaved changes."""
        if provider_id not in self._configs:
            self.reload()
        self.provider_list.choose(provider_id)
        return self._current is not None and self._current.id == provider_id

    def open_for_new(self, preset_id: str) -> None:
        """Start adding a provider of this preset (ConfigError for an unknown preset)."""
        preset = get_preset(preset_id)
        if not self._confirm_leave():
            return
        names = {config.name for config in self._configs.values()}
        name, number = preset.name, 2
        while name in names:
            name, number = f"{preset.name} {number}", number + 1  # (a name: not translated)
        self._draft = ProviderConfig(
            name=name,
            kind=preset.kind,
            preset=preset.id,
            base_url=preset.base_url or "",
            model=preset.default_model or "",
            headers=dict(preset.headers),
        )
        self.reload(select_id=self._draft.id)
        if not preset.base_url:
            self.form.base_url_edit.setFocus()
        elif preset.requires_key:
            self.form.key_edit.setFocus()
        else:
            self.form.name_edit.setFocus()

    # -- showing a provider ------------------------------------------------------------

    def _is_draft(self, config: ProviderConfig | None) -> bool:
        return config is not None and self._draft is not None and config.id == self._draft.id

    def _show(self, provider_id: str | None) -> None:
        self.form.cancel_check()
        config = self._configs.get(provider_id) if provider_id else None
        self._current = config
        self._dirty = False
        self.provider_list.show_current_quietly(provider_id)
        if config is None:
            self.stack.setCurrentWidget(self.welcome)
            self._update_buttons()
            return
        self.stack.setCurrentWidget(self.editor)
        self.title_label.setText(config.name)
        key: str | None = None
        key_error = ""
        if config.source == "user" and not self._is_draft(config):
            try:
                key = self.providers.saved_key(config.id)
            except AssistaError as exc:
                key_error = exception_text(exc)
        self.form.load(config, key, read_only=config.source != "user")
        self.form.set_key_note(key_note(config, self.providers.key_store()))
        if key_error:
            self.form.set_status(key_error, "error")
        self.source_label.setText(source_text(config))
        self.source_label.setVisible(config.source != "user")
        self.adopt_button.setVisible(config.source == "detected")
        self._update_buttons()

    def _update_buttons(self) -> None:
        config = self._current
        editable = config is not None and config.source == "user"
        error = self.form.validation_error() if editable else None
        pending = self._dirty or self._is_draft(config)
        self.save_button.setEnabled(editable and error is None and pending)
        self.save_button.setVisible(config is not None)
        self.remove_button.setEnabled(editable)
        self.validation_label.setText(error if error and pending else "")

    # -- user actions ------------------------------------------------------------------

    def _on_current_changed(self, target: str | None) -> None:
        if self._current is not None and target == self._current.id:
            return
        if not self._confirm_leave():
            self.provider_list.show_current_quietly(
                self._current.id if self._current is not None else None)
            return
        self._drop_draft(keep=target)
        self._show(target)

    def _on_form_changed(self) -> None:
        self._dirty = True
        if self._current is not None and self._is_draft(self._current):
            self.title_label.setText(self.form.name_edit.text().strip() or self.tr("New provider"))
        self._update_buttons()

    def _confirm_leave(self) -> bool:
        """True when there are no unsaved edits or the user agrees to discard them."""
        if self._current is None or not self._dirty:
            return True
        text = self.tr("Discard your changes to “{name}”?").format(name=self._current.name)
        if not self._ask(self.tr("Unsaved changes"), text, QMessageBox.StandardButton.Discard):
            return False
        self._dirty = False
        return True

    def _ask(self, title: str, text: str, button: QMessageBox.StandardButton) -> bool:
        cancel = QMessageBox.StandardButton.Cancel
        return QMessageBox.question(self, title, text, button | cancel, cancel) == button

    def _drop_draft(self, keep: str | None) -> None:
        if self._draft is None or self._draft.id == keep:
            return
        draft_id, self._draft = self._draft.id, None
        self._configs.pop(draft_id, None)
        self.provider_list.drop_quietly(draft_id)

    def _save(self) -> None:
        current = self._current
        if current is None or current.source != "user" or self.form.validation_error():
            return
        config = self.form.to_config(current)
        key = self.form.api_key()
        try:
            self.providers.save(config, key)
        except AssistaError as exc:
            self.form.set_status(redact(exception_text(exc), [key]), "error")
            return
        if self._is_draft(config):
            self._draft = None
        self._dirty = False
        self.reload(select_id=config.id)
        self.form.set_status(self.tr("Saved."), "ok")
        self.providersChanged.emit()

    def _remove(self) -> None:
        current = self._current
        if current is None or current.source != "user":
            return
        if self._is_draft(current):
            self._draft, self._dirty, self._current = None, False, None
            self.reload()
            return
        text = self.tr("Remove “{name}”? Its saved API key is deleted too.").format(
            name=current.name)
        if not self._ask(self.tr("Remove provider"), text, QMessageBox.StandardButton.Yes):
            return
        try:
            self.providers.remove(current.id)
        except AssistaError as exc:
            self.form.set_status(exception_text(exc), "error")
            return
        self._dirty, self._current = False, None
        self.reload()
        self.providersChanged.emit()

    def _adopt_detected(self) -> None:
        current = self._current
        if current is None or current.source != "detected":
            return
        try:
            config = self.providers.adopt(current)
        except AssistaError as exc:
            self.form.set_status(exception_text(exc), "error")
            return
        self.reload(select_id=config.id)
        self.form.set_status(self.tr("Added to your providers."), "ok")
        self.providersChanged.emit()

    # -- fetch models / test connection --------------------------------------------------

    def _start_check(self, *, test: bool) -> None:
        current = self._current
        if current is None or self.form.busy:
            return
        key: str | None = None
        try:
            if current.source == "user":
                error = self.form.validation_error()
                if error:
                    raise AssistaError(error)
                config, key = self.form.to_config(current), self.form.api_key() or None
            else:
                config, key = current, self.providers.api_key(current)
            provider = self.providers.checker(config, key, timeout_s=CHECK_TIMEOUT_S)
        except AssistaError as exc:
            self.form.set_status(f"✗ {redact(exception_text(exc), [key])}", "error")
            return
        self.form.start_check(provider, key, test=test)

    # -- closing -----------------------------------------------------------------------

    def reject(self) -> None:
        if self._confirm_leave():
            super().reject()

    def done(self, result: int) -> None:
        self.form.cancel_check()
        super().done(result)
