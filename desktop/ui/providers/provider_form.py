"""The provider dialog's editing form.

The form knows nothing about storage: :class:`ProviderDialog` loads a
:class:`ProviderConfig` into it, reads the edited config back with :meth:`to_config`,
and hands it a built provider to check (:meth:`ProviderForm.start_check`), which runs
as an asyncio task on the qasync loop and reports in the status line.
"""

from __future__ import annotations

import asyncio
import html
import logging
from collections.abc import Iterable

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.provider_presets import ProviderPreset
from desktop.chat.secret_text import SENSITIVE_HEADERS, redact
from desktop.core.errors import AssistaError
from desktop.core.provider import ModelInfo, Provider
from desktop.core.settings import ProviderConfig
from desktop.ui import theme
from desktop.ui.error_text import exception_text
from desktop.ui.plain_text import plain_label
from desktop.ui.providers.header_lines import format_headers, parse_headers
from desktop.ui.providers.provider_options import ProviderOptionsBox
from desktop.ui.providers.provider_text import preset_of, preset_title

log = logging.getLogger(__name__)

STATUS_COLORS = {"ok": "ok", "error": "error", "busy": "muted", "info": "muted"}


def _buddy_label(text: str, buddy: QWidget) -> QLabel:
    """A form label whose mnemonic (``&``) focuses ``buddy``."""
    label = QLabel(text)
    label.setBuddy(buddy)
    return label


class ProviderForm(QWidget):
    """Name, preset, base URL, API key, model, extra headers, and a status line."""

    changed = Signal()  # any edit by the user

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._loading = False
        self._read_only = False
        self._task: asyncio.Future[None] | None = None
        self._build()

    # -- construction ----------------------------------------------------------------

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        layout.addLayout(form)

        self.name_edit = QLineEdit()
        self.name_edit.setAccessibleName(self.tr("Provider name"))
        self.name_edit.setPlaceholderText(self.tr("A name you will recognize"))
        form.addRow(self.tr("&Name"), self.name_edit)

        self.preset_label = QLabel()
        self.preset_label.setAccessibleName(self.tr("Preset"))
        form.addRow(self.tr("Preset"), self.preset_label)

        self.base_url_edit = QLineEdit()
        self.base_url_edit.setAccessibleName(self.tr("Base URL"))
        self.base_url_edit.setPlaceholderText(self.tr("https://example.com/v1"))
        form.addRow(self.tr("Base &URL"), self.base_url_edit)
        self._build_key_rows(form)
        self._build_model_rows(form)
        self.options_box = ProviderOptionsBox()
        layout.addWidget(self.options_box)
        layout.addLayout(self._build_test_row())

        for edit in (self.name_edit, self.base_url_edit, self.key_edit):
            edit.textEdited.connect(self._emit_changed)
        self.model_combo.editTextChanged.connect(self._emit_changed)
        self.headers_edit.textChanged.connect(self._emit_changed)
        self.options_box.changed.connect(self._emit_changed)

    def _build_key_rows(self, form: QFormLayout) -> None:
        self.key_edit = QLineEdit()
        self.key_edit.setAccessibleName(self.tr("API key"))
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_toggle = QToolButton()
        self.key_toggle.setText(self.tr("Show"))
        self.key_toggle.setCheckable(True)
        self.key_toggle.setAccessibleName(self.tr("Show API key"))
        self.key_toggle.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.key_toggle.toggled.connect(self._toggle_key)
        self.key_link = QLabel()
        self.key_link.setOpenExternalLinks(True)
        self.key_link.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.key_link.setAccessibleName(self.tr("Get a key"))
        key_row = QHBoxLayout()
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.key_toggle)
        key_row.addWidget(self.key_link)
        self.key_note = plain_label()
        self.key_note.setObjectName("emptyHint")
        self.key_note.setWordWrap(True)
        self.key_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        key_column = QVBoxLayout()
        key_column.setSpacing(2)
        key_column.addLayout(key_row)
        key_column.addWidget(self.key_note)
        form.addRow(_buddy_label(self.tr("API &key"), self.key_edit), key_column)

    def _build_model_rows(self, form: QFormLayout) -> None:
        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model_combo.setAccessibleName(self.tr("Model"))
        self.model_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.model_combo.setMinimumContentsLength(16)
        self.fetch_button = QPushButton(self.tr("Fetch models"))
        self.fetch_button.setAccessibleName(self.tr("Fetch models"))
        self.fetch_button.setToolTip(self.tr("Ask the provider which models it offers"))
        model_row = QHBoxLayout()
        model_row.addWidget(self.model_combo, 1)
        model_row.addWidget(self.fetch_button)
        form.addRow(_buddy_label(self.tr("&Model"), self.model_combo), model_row)

        self.headers_edit = QPlainTextEdit()
        self.headers_edit.setAccessibleName(self.tr("Extra headers"))
        self.headers_edit.setPlaceholderText(self.tr("Optional, one per line — Name: value"))
        self.headers_edit.setTabChangesFocus(True)
        self.headers_edit.setFixedHeight(64)
        form.addRow(self.tr("Extra &headers"), self.headers_edit)

    def _build_test_row(self) -> QHBoxLayout:
        self.test_button = QPushButton(self.tr("Test connection"))
        self.test_button.setAccessibleName(self.tr("Test connection"))
        self.status_label = plain_label()
        self.status_label.setObjectName("providerStatus")
        self.status_label.setWordWrap(True)
        self.status_label.setAccessibleName(self.tr("Connection status"))
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.status_label, 1)
        return test_row

    # -- loading and reading back ----------------------------------------------------

    def load(self, config: ProviderConfig, api_key: str | None, *, read_only: bool) -> None:
        """Show ``config``; ``read_only`` for providers from the environment or detection."""
        self._loading = True
        try:
            preset = preset_of(config)
            self._read_only = read_only
            self.name_edit.setText(config.name)
            self.preset_label.setText(preset_title(preset))
            self.base_url_edit.setText(config.base_url)
            self.key_toggle.setChecked(False)
            self.key_edit.setText(api_key or "")
            self.set_models([], current=config.model)
            self.headers_edit.setPlainText(format_headers(config.headers))
            self.options_box.load(config, read_only=read_only)
            self._set_key_hints(config, preset)
            for edit in (self.name_edit, self.base_url_edit):
                edit.setReadOnly(read_only)
            self.headers_edit.setReadOnly(read_only)
            self.model_combo.setEnabled(not read_only)
            self.key_edit.setEnabled(not read_only)
            self.key_toggle.setEnabled(not read_only)
            self.set_busy(False)
            self.set_status("")
        finally:
            self._loading = False

    def _set_key_hints(self, config: ProviderConfig, preset: ProviderPreset) -> None:
        if config.source == "environment":
            variable = (config.api_key_env or preset.api_key_env
                        or self.tr("an environment variable"))
            self.key_edit.setPlaceholderText(
                self.tr("Read from {variable} (never stored by Assista)").format(
                    variable=variable))
        elif config.source == "detected" or not preset.requires_key:
            self.key_edit.setPlaceholderText(
                self.tr("Not needed for {name} (optional)").format(name=preset_title(preset)))
        else:
            self.key_edit.setPlaceholderText(self.tr("Paste your API key"))
        if preset.keys_url and config.source == "user":
            url = html.escape(preset.keys_url, quote=True)
            self.key_link.setText(f'<a href="{url}">{html.escape(self.tr("Get a key"))}</a>')
            self.key_link.setToolTip(preset.keys_url)
            self.key_link.show()
        else:
            self.key_link.clear()
            self.key_link.hide()

    def to_config(self, base: ProviderConfig) -> ProviderConfig:
        """``base`` updated with the edited fields (call only when :meth:`validation_error`
        is None: invalid header lines are dropped)."""
        try:
            headers = parse_headers(self.headers_edit.toPlainText())
        except ValueError:
            headers = dict(base.headers)
        return base.model_copy(
            update={
                "name": self.name_edit.text().strip(),
                "base_url": self.base_url_edit.text().strip(),
                "model": self.model_combo.currentText().strip(),
                "headers": headers,
                "options": self.options_box.options(base.options),
            }
        )

    def api_key(self) -> str:
        return self.key_edit.text().strip()

    def validation_error(self) -> str | None:
        """Why the form cannot be saved, or None."""
        if not self.name_edit.text().strip():
            return self.tr("Enter a name.")
        url = self.base_url_edit.text().strip()
        if not url:
            return self.tr("Enter the base URL (for example https://api.openai.com/v1).")
        scheme, _, rest = url.partition("://")
        if scheme.lower() not in ("http", "https") or not rest.strip("/"):
            return self.tr("The base URL must start with http:// or https:// and name a server.")
        try:
            headers = parse_headers(self.headers_edit.toPlainText())
        except ValueError as exc:
            return str(exc)
        for name in headers:
            if name.lower() in SENSITIVE_HEADERS:
                return self.tr(
                    "Put the key in the API key field, not in the {name} header.").format(
                    name=name)
        return None

    # -- display ---------------------------------------------------------------------

    def set_models(self, model_ids: Iterable[str], *, current: str | None = None) -> None:
        """Fill the model list, keeping the typed model (or ``current``) as the text."""
        text = self.model_combo.currentText() if current is None else current
        was_loading, self._loading = self._loading, True
        try:
            self.model_combo.clear()
            self.model_combo.addItems(list(model_ids))
            self.model_combo.setEditText(text)
        finally:
            self._loading = was_loading
        if not text and self.model_combo.count() and not self._read_only:
            self.model_combo.setCurrentIndex(0)  # emits changed: the model is a new value

    def set_key_note(self, text: str) -> None:
        self.key_note.setText(text)

    def set_status(self, text: str, kind: str = "info") -> None:
        color = theme.colors()[STATUS_COLORS.get(kind, "muted")]
        self.status_label.setStyleSheet(f"color: {color};" if text else "")
        self.status_label.setProperty("kind", kind)
        self.status_label.setText(text)
        # (its accessible name says what it is; a screen reader reads what it says here)
        self.status_label.setAccessibleDescription(text)

    def set_busy(self, busy: bool, text: str = "") -> None:
        self.fetch_button.setEnabled(not busy and not self._read_only)
        self.test_button.setEnabled(not busy)
        if busy:
            self.set_status(text or self.tr("Working…"), "busy")

    # -- fetch models / test connection ---------------------------------------------

    @property
    def busy(self) -> bool:
        """True while a fetch or test is running."""
        return self._task is not None and not self._task.done()

    def start_check(self, provider: Provider, api_key: str | None, *, test: bool) -> None:
        """List the provider's models in the background, then close it.

        Fills the model list and shows "✓ Connected — N models" (``test``) or
        "✓ N models found", or the error (with ``api_key`` masked).
        """
        if self.busy:
            raise RuntimeError("a check is already running")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not started under qasync: a task would never run
            self.set_status(self.tr("✗ Internal error: no asyncio event loop is running."), "error")
            return
        self.set_busy(True, self.tr("Testing connection…") if test else self.tr("Fetching models…"))
        self._task = loop.create_task(self._check(provider, api_key, test=test))

    def cancel_check(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            self.set_busy(False)
            self.set_status("")

    async def _check(self, provider: Provider, api_key: str | None, *, test: bool) -> None:
        models: list[ModelInfo] | None = None
        error = ""
        try:
            models = await provider.list_models()
        except AssistaError as exc:
            error = exception_text(exc)  # (a 401 or 403 says to check the key)
        except Exception as exc:  # a bug or an odd server: report it, keep the dialog alive
            log.exception("%s: listing models failed", provider.name)
            error = self.tr("Unexpected error: {error}").format(
                error=f"{type(exc).__name__}: {exc}")
        finally:
            try:
                await provider.aclose()
            except Exception:
                log.warning("%s: closing the client failed", provider.name, exc_info=True)
        if not shiboken6.isValid(self):  # the widget was destroyed while we waited
            return
        self.set_busy(False)
        if models is None:
            self.set_status(f"✗ {redact(error, [api_key])}", "error")
            return
        self.set_models(model.id for model in models)
        self.set_status(self.tr("✓ Connected — %n models", "", len(models)) if test
                        else self.tr("✓ %n models found", "", len(models)), "ok")

    # -- slots -----------------------------------------------------------------------

    def _toggle_key(self, shown: bool) -> None:
        mode = QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password
        self.key_edit.setEchoMode(mode)
        self.key_toggle.setText(self.tr("Hide") if shown else self.tr("Show"))
        self.key_toggle.setAccessibleName(self.tr("Hide API key") if shown else
                self.tr("Show API key"))

    def _emit_changed(self, *_args: object) -> None:
        if not self._loading:
            self.changed.emit()
