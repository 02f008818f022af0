"""Settings → Preferences…: look, prompts, chats, memory, network (proxy, timeout), data
folder, skills.

Saved with :meth:`ChatController.update_settings`; the proxy is validated first
(``http://``, ``https://``, ``socks5://`` or ``socks5h://`` with a host) and, once
saved, applies to every request the app makes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pydantic import ValidationError
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QSize, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop.chat.answer_figures import price_table
from desktop.ui import default_prompt, theme
from desktop.ui.dialogs.desktop_tab import DesktopTab
from desktop.ui.dialogs.language_choice import LanguageChoice
from desktop.ui.dialogs.memory_page import MemoryPage
from desktop.ui.dialogs.section_pages import SectionPages
from desktop.ui.dialogs.skills_page import SkillsPage
from desktop.ui.dialogs.title_model import TitleModelCombo
from desktop.ui.dialogs.usage_page import UsagePage
from desktop.ui.dialogs.voice_settings import VoiceSettings
from desktop.ui.dialogs.web_search_settings import WebSearchSettings
from desktop.ui.form_rows import whole
from desktop.ui.inspector.settings_tab import InspectorSettings

if TYPE_CHECKING:
    from desktop.chat.memories import MemoryStore
    from desktop.ui.dialogs.preferences_services import PreferencesServices
    from desktop.ui.window.dialog_registry import DialogServices

PROXY_SCHEMES = ("http", "https", "socks5", "socks5h")
# (translated where the combo boxes are filled)
THEMES = [("system", str(QT_TRANSLATE_NOOP("SettingsDialog", "Follow the system"))),
          ("light", str(QT_TRANSLATE_NOOP("SettingsDialog", "Light"))),
          ("dark", str(QT_TRANSLATE_NOOP("SettingsDialog", "Dark"))),
          ("high_contrast", str(QT_TRANSLATE_NOOP("SettingsDialog", "High contrast")))]
OVERFLOW = [("drop", str(QT_TRANSLATE_NOOP("SettingsDialog", "Leave out the oldest turns"))),
            ("summarize", str(QT_TRANSLATE_NOOP("SettingsDialog",
                                                "Replace the oldest turns with a summary")))]


def validate_proxy_url(url: str) -> str | None:
    """``None`` when ``url`` is empty or usable, else why not (one line)."""
    text = url.strip()
    if not text:
        return None
    example = QCoreApplication.translate(
        "SettingsDialog", "e.g. http://proxy.example.com:8080 or socks5://127.0.0.1:1080")
    if any(ch.isspace() for ch in text):
        return QCoreApplication.translate(
            "SettingsDialog", "The proxy URL cannot contain spaces ({example}).").format(
            example=example)
    parts = urlsplit(text)
    if parts.scheme.lower() not in PROXY_SCHEMES or "://" not in text:
        return QCoreApplication.translate(
            "SettingsDialog", "The proxy must start with http://, https:// or socks5:// "
            "({example}).").format(example=example)
    if not parts.hostname:
        return QCoreApplication.translate(
            "SettingsDialog", "The proxy URL needs a host name ({example}).").format(
            example=example)
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:
        return QCoreApplication.translate(
            "SettingsDialog", "The proxy port must be a number from 1 to 65535.")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return QCoreApplication.translate(
            "SettingsDialog", "The proxy URL is only scheme://host:port ({example}).").format(
            example=example)
    return None


class _TextBox(QPlainTextEdit):
    """A few lines tall by default (a plain edit asks for 192 px, which made the General
    page scroll in a dialog of the usual size); it still grows with the dialog."""

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        lines = self.fontMetrics().lineSpacing() * 5
        frame = 2 * self.frameWidth() + int(self.document().documentMargin() * 2)
        return QSize(hint.width(), lines + frame)


def normalize_hosts(text: str) -> str:
    """No-proxy hosts separated by commas, spaces or new lines → ``"a,b,c"``."""
    hosts = [h for h in text.replace("\n", ",").replace(" ", ",").split(",") if h]
    return ",".join(dict.fromkeys(hosts))


class SettingsDialog(QDialog):
    """Preferences: ``services`` what it reads and changes (:class:`PreferencesServices`),
    ``memories`` the memories kept across chats (its Memory page)."""

    settingsSaved = Signal()  # saved through the settings service (the window follows)

    @classmethod
    def for_window(cls, services: DialogServices, parent: QWidget) -> SettingsDialog:
        """Built by the window's dialog launcher (dialog_registry)."""
        return cls(services.app, services.memories, parent)

    def __init__(self, services: PreferencesServices, memories: MemoryStore,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.services = services
        settings = services.settings
        self.setWindowTitle(self.tr("Preferences"))
        self.resize(760, 540)
        layout = QVBoxLayout(self)
        # Every section in a list at the side (eight tabs did not fit in a row)
        self.pages = SectionPages(self.tr("Preferences sections"))
        self.pages.add_page(self._general_tab(), self.tr("General"), "settings")
        self.pages.add_page(self._chats_tab(), self.tr("Chats"), "message-square")
        self.memory_page = MemoryPage(memories)
        self.pages.add_page(self.memory_page, self.tr("Memory"), "bot")
        self.network_page = self._network_tab()
        self.pages.add_page(self.network_page, self.tr("Network"), "globe")
        self.desktop_tab = DesktopTab(services.paths.portable)
        self.pages.add_page(self.desktop_tab, self.tr("Desktop"), "monitor")
        self.desktop_tab.shortcutChosen.connect(self._save_shortcut)
        self.pages.add_page(self._data_tab(), self.tr("Data"), "database")
        self.web_search = WebSearchSettings()
        self.pages.add_page(self.web_search, self.tr("Web search"), "search")
        self.skills_page = SkillsPage(services.skills(), settings.current.workspace)
        self.pages.add_page(self.skills_page, self.tr("Skills"), "file-text")
        self.usage_page = UsagePage(services.usage, lambda: price_table(
            settings.current.prices))  # answers, tokens, cost and speed per model
        self.pages.add_page(self.usage_page, self.tr("Usage"), "chart-column")
        self.inspector_settings = InspectorSettings(services.inspection.clear_all)
        self.pages.add_page(self.inspector_settings, self.tr("Request inspector"), "scan-search")
        layout.addWidget(self.pages, 1)
        bottom = QHBoxLayout()
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setAccessibleName(self.tr("Settings error"))
        self.error_label.setStyleSheet(f"color: {theme.colors()['error']};")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        self.save_button = buttons.button(QDialogButtonBox.StandardButton.Save)
        bottom.addWidget(self.error_label, 1)
        bottom.addWidget(buttons)
        layout.addLayout(bottom)
        self.load()

    # -- pages -------------------------------------------------------------------------

    def _general_tab(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.theme_combo = QComboBox()
        for value, label in THEMES:
            self.theme_combo.addItem(self.tr(label), value)
        self.language = LanguageChoice()
        self.assistant_combo = QComboBox()
        self.assistant_combo.setToolTip(self.tr("The assistant new chats start with"))
        self.instructions_edit = _TextBox()
        self.instructions_edit.setPlaceholderText(
            self.tr("Added to every chat: who you are, how you like answers…"))
        self.instructions_edit.setAccessibleName(self.tr("Custom instructions"))
        self.prompt_edit = _TextBox()
        self.prompt_edit.setAccessibleName(self.tr("Default system prompt"))
        form.addRow(self.tr("Theme"), self.theme_combo)
        form.addRow(self.tr("Language"), self.language)
        # The base size the zoom (Ctrl+= / Ctrl+-) multiplies; "Default": the platform's.
        self.font_spin = QDoubleSpinBox()
        self.font_spin.setAccessibleName(self.tr("Base font size"))
        self.font_spin.setRange(0, 40)
        self.font_spin.setDecimals(1)
        self.font_spin.setSingleStep(0.5)
        self.font_spin.setSuffix(self.tr(" pt"))
        self.font_spin.setSpecialValueText(self.tr("Default"))
        form.addRow(self.tr("Base font size"), self.font_spin)
        form.addRow(self.tr("New chats use"), self.assistant_combo)
        form.addRow(self.tr("Custom instructions"), self.instructions_edit)
        form.addRow(self.tr("Default system prompt"), self.prompt_edit)
        hint = QLabel(self.tr("A chat's own prompt (Chat → Edit system prompt…) or its assistant's "
                      "replaces the default; custom instructions are always added."))
        hint.setObjectName("emptyHint")
        hint.setWordWrap(True)
        form.addRow("", hint)
        return page

    def _chats_tab(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.overflow_combo = QComboBox()
        for value, label in OVERFLOW:
            self.overflow_combo.addItem(self.tr(label), value)
        self.overflow_combo.setToolTip(
                self.tr("What happens when a chat no longer fits the model's "
                                       "context window (you are told when it does)"))
        self.retention_spin = QSpinBox()
        self.retention_spin.setRange(0, 3650)
        self.retention_spin.setSuffix(self.tr(" days"))
        self.retention_spin.setSpecialValueText(self.tr("Erase at the next start"))
        self.model_titles_check = whole(QCheckBox(self.tr("Let the model title new chats")))
        self.model_titles_check.setToolTip(
            self.tr("After a new chat's first answer, its model writes a short title (one small "
            "request). Off: the first line of your first message stays the title. A title "
            "you set is never replaced."))
        form.addRow(self.tr("When a chat is too long"), self.overflow_combo)
        form.addRow(self.tr("Keep deleted chats in the trash"), self.retention_spin)
        form.addRow(self.tr("Titles"), self.model_titles_check)
        self.title_model_combo = TitleModelCombo()
        self.model_titles_check.toggled.connect(self.title_model_combo.setEnabled)
        form.addRow(self.tr("Titles written by"), self.title_model_combo)
        self.voice = VoiceSettings(form, page)
        return page

    def _network_tab(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.proxy_edit = QLineEdit()
        self.proxy_edit.setAccessibleName(self.tr("Proxy URL"))
        self.proxy_edit.setPlaceholderText(self.tr("Empty: the system's settings. "
                                           "http://host:8080, socks5://host:1080"))
        self.proxy_edit.textChanged.connect(self._check_proxy)
        self.no_proxy_edit = QLineEdit()
        self.no_proxy_edit.setAccessibleName(self.tr("No proxy for"))
        self.no_proxy_edit.setPlaceholderText(self.tr("localhost,127.0.0.1,.internal.example"))
        self.timeout_spin = QSpinBox()
        self.timeout_spin.setAccessibleName(self.tr("Request timeout"))
        self.timeout_spin.setRange(5, 3600)
        self.timeout_spin.setSuffix(self.tr(" s"))
        form.addRow(self.tr("Proxy"), self.proxy_edit)
        form.addRow(self.tr("No proxy for"), self.no_proxy_edit)
        form.addRow(self.tr("Request timeout"), self.timeout_spin)
        # Chats answer in the background; this many requests per provider run at once,
        # the rest wait their turn (local servers often serve one at a time).
        self.concurrent_spin = QSpinBox()
        self.concurrent_spin.setAccessibleName(self.tr("Answers at once per provider"))
        self.concurrent_spin.setRange(1, 32)
        self.concurrent_spin.setToolTip(self.tr("More chats than this asking one provider at once "
                                        "wait their turn"))
        form.addRow(self.tr("Answers at once per provider"), self.concurrent_spin)
        hint = QLabel(self.tr("The proxy is used for every request the app makes: providers, model "
                      "lists, fetch_url and MCP servers over HTTP. User and password may be "
                      "part of the URL (http://user:pass@host:port)."))
        hint.setObjectName("emptyHint")
        hint.setWordWrap(True)
        form.addRow("", hint)
        return page

    def _data_tab(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        paths = self.services.paths
        row = QHBoxLayout()
        # (a read-only field: a long path scrolls in it, where a label cut it off)
        self.folder_label = QLineEdit(str(paths.root))
        self.folder_label.setReadOnly(True)
        self.folder_label.setAccessibleName(self.tr("Data folder"))
        self.folder_label.setCursorPosition(0)
        self.open_folder_button = QPushButton(self.tr("Open folder"))
        self.open_folder_button.clicked.connect(self.open_folder)
        row.addWidget(self.folder_label, 1)
        row.addWidget(self.open_folder_button)
        form.addRow(self.tr("Data folder"), row)
        note = (self.tr("Portable mode (--data-dir).") if paths.portable
                else self.tr("Start with --data-dir FOLDER to keep the data elsewhere."))
        hint = QLabel(self.tr("Chats and settings are in {database} there; logs in {logs}/. "
                              "{note} API keys are in the system keyring when there is one.")
                      .format(database=paths.db_path.name, logs=paths.logs_dir.name, note=note))
        hint.setObjectName("emptyHint")
        hint.setWordWrap(True)
        form.addRow("", hint)
        return page

    # -- values ----------------------------------------------------------------------------

    def load(self) -> None:
        s = self.services.settings.current
        self.theme_combo.setCurrentIndex(max(0, self.theme_combo.findData(s.theme)))
        self.language.load(s.language)
        self.assistant_combo.clear()
        self.assistant_combo.addItem(self.tr("No assistant"), None)
        for assistant in self.services.assistants.list_assistants():
            self.assistant_combo.addItem(assistant.name, assistant.id)
        self.assistant_combo.setCurrentIndex(
            max(0, self.assistant_combo.findData(s.default_assistant_id)))
        self.instructions_edit.setPlainText(s.custom_instructions)
        self.prompt_edit.setPlainText(default_prompt.shown(s.system_prompt))
        self.overflow_combo.setCurrentIndex(max(0, self.overflow_combo.findData(
            s.context_overflow)))
        self.retention_spin.setValue(s.trash_retention_days)
        self.model_titles_check.setChecked(s.model_titles)
        self.title_model_combo.load(self.services.providers, s)
        self.title_model_combo.setEnabled(s.model_titles)
        self.voice.load(self.services.providers.all(), s)
        self.proxy_edit.setText(s.proxy_url)
        self.no_proxy_edit.setText(s.no_proxy)
        self.timeout_spin.setValue(round(s.request_timeout_s))
        self.concurrent_spin.setValue(s.max_concurrent_requests)
        self.font_spin.setValue(s.base_font_pt if s.base_font_pt >= 6 else 0)
        self.desktop_tab.load(s)
        self.web_search.load(s, self.services.secrets)
        self.inspector_settings.load(s)
        self.memory_page.load(s)
        self.skills_page.load(s.disabled_skills)

    def changes(self) -> dict[str, object]:
        return {
            "theme": self.theme_combo.currentData(),
            "language": self.language.value(),
            "default_assistant_id": self.assistant_combo.currentData(),
            "custom_instructions": self.instructions_edit.toPlainText().strip(),
            "system_prompt": default_prompt.stored(self.prompt_edit.toPlainText().strip()),
            "context_overflow": self.overflow_combo.currentData(),
            "trash_retention_days": self.retention_spin.value(),
            "model_titles": self.model_titles_check.isChecked(),
            "proxy_url": self.proxy_edit.text().strip(),
            "no_proxy": normalize_hosts(self.no_proxy_edit.text()),
            "request_timeout_s": float(self.timeout_spin.value()),
            "max_concurrent_requests": self.concurrent_spin.value(),
            # below 6 pt nothing is readable: such a value means "the default"
            "base_font_pt": self.font_spin.value() if self.font_spin.value() >= 6 else 0.0,
            **self.title_model_combo.changes(),
            **self.voice.changes(),
            **self.web_search.changes(),
            **self.inspector_settings.changes(),
            **self.memory_page.changes(),
            **self.desktop_tab.changes(),
            **self.skills_page.changes(),
        }

    def _check_proxy(self) -> None:
        problem = validate_proxy_url(self.proxy_edit.text())
        self.error_label.setText(problem or "")
        self.save_button.setEnabled(problem is None)

    def save(self) -> bool:
        """Validate and save; ``False`` (the reason shown, the dialog open) if invalid."""
        problem = validate_proxy_url(self.proxy_edit.text())
        if problem is not None:
            self.error_label.setText(problem)
            self.pages.setCurrentWidget(self.network_page)
            self.proxy_edit.setFocus()
            return False
        problem = self.desktop_tab.problem()
        if problem is not None:
            self.error_label.setText(problem)
            self.pages.setCurrentWidget(self.desktop_tab)
            return False
        problem = self.web_search.problem()
        if problem is not None:
            self.error_label.setText(problem)
            self.pages.setCurrentWidget(self.web_search)
            return False
        self.web_search.save_key(self.services.secrets)
        try:  # the window follows the saved theme and proxy (settings_signal.py)
            self.services.settings.update(**self.changes())
        except ValidationError as exc:
            first = exc.errors()[0]
            self.error_label.setText(f"{'.'.join(map(str, first['loc']))}: {first['msg']}")
            return False
        self.settingsSaved.emit()
        self.accept()
        return True

    def _save_shortcut(self, text: str) -> None:
        """The quick-ask shortcut applies at once: the tab then shows whether the
        desktop took it (another program may hold the combination)."""
        if text != self.services.settings.current.quick_shortcut:
            self.services.settings.update(quick_shortcut=text)

    def open_folder(self) -> None:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.services.paths.root)))
