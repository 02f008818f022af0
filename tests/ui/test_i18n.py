"""Loading the interface language: the app's and Qt's own translations, plurals,
numbers and dates by locale, right-to-left layout, the Preferences choice."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QCoreApplication, QLocale, Qt
from PySide6.QtWidgets import QApplication

from desktop.app import AppContext
from desktop.storage.window_state import parse_window_state
from desktop.ui import i18n, locale_format
from desktop.ui.window.main_window import MainWindow
from tests.ui.conversation_helpers import make_window


@pytest.fixture
def restore_english(qapp: QApplication, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield
    monkeypatch.delenv(i18n.PSEUDO_VARIABLE, raising=False)
    i18n.install_translations(qapp, "en")
    assert qapp.layoutDirection() == Qt.LayoutDirection.LeftToRight


def tr(context: str, text: str, n: int = -1) -> str:
    return QCoreApplication.translate(context, text, None, n)


@pytest.mark.parametrize("case", [
    ("de", "&Datei", "1 Chat", "Abbrechen"),
    ("fr", "&Fichier", "1 discussion", "Annuler"),
    ("es", "&Archivo", "1 chat", "Cancelar"),
    ("ja", "ファイル(&F)", "1 件のチャット", "キャンセル"),
    ("zh_CN", "文件(&F)", "1 个聊天", "取消"),
])
def test_a_language_loads_the_apps_and_qts_own_translations(
        qapp: QApplication, restore_english: None, case: tuple[str, str, str, str]) -> None:
    language, file_menu, one_chat, cancel = case
    locale = i18n.install_translations(qapp, language)
    assert locale.name().startswith(language[:2])
    assert QLocale().name() == locale.name()  # numbers and dates follow it
    assert tr("MainWindow", "&File") == file_menu
    assert tr("ImportExport", "%n chats", 1) == one_chat
    # Qt's own texts (standard buttons, file dialogs) come from qtbase_<lang>.qm
    assert tr("QPlatformTheme", "Cancel") == cancel
    assert qapp.layoutDirection() == Qt.LayoutDirection.LeftToRight


def test_english_has_its_plural_forms(qapp: QApplication) -> None:
    i18n.install_translations(qapp, "en")
    assert tr("ImportExport", "%n chats", 1) == "1 chat"
    assert tr("ImportExport", "%n chats", 3) == "3 chats"


def test_numbers_dates_and_costs_follow_the_locale(qapp: QApplication,
                                                   restore_english: None) -> None:
    i18n.install_translations(qapp, "de")
    assert locale_format.integer(1234567) == "1.234.567"
    assert locale_format.decimal(3.5, 1) == "3,5"
    assert locale_format.compact_count(12345) == "12,3 Tsd."
    assert locale_format.cost(0.0123, 4) == "0,0123\xa0$"
    assert locale_format.short_date(datetime(2026, 11, 23)) == "23.11.26"
    i18n.install_translations(qapp, "ja")
    assert locale_format.short_date(datetime(2026, 11, 23)) == "2026/11/23"
    i18n.install_translations(qapp, "en")
    assert locale_format.cost(1234.5) == "$1,234.50"


@pytest.mark.usefixtures("qt_loop", "restore_english")
def test_a_right_to_left_language_mirrors_the_window(
        qtbot: Any, open_ctx: Callable[..., AppContext], qapp: QApplication,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The Arabic pseudo-locale: Arabic letters for every text, right to left."""
    monkeypatch.setenv(i18n.PSEUDO_VARIABLE, "ar")
    locale = i18n.install_translations(qapp, "")
    assert locale.language() == QLocale.Language.Arabic
    window: MainWindow = make_window(qtbot, open_ctx())
    assert qapp.layoutDirection() == Qt.LayoutDirection.RightToLeft
    assert window.layoutDirection() == Qt.LayoutDirection.RightToLeft
    assert window.isRightToLeft() and window.composer.isRightToLeft()
    menu = window.menuBar().actions()[0].text()
    assert menu and not any("a" <= ch.lower() <= "z" for ch in menu.replace("&", "")), menu
    # the chat list sits on the right: it is laid out mirrored
    left_pane = window.sessions.mapTo(window, window.sessions.rect().topLeft()).x()
    assert left_pane > window.width() // 2


def test_pseudo_text_keeps_placeholders_and_markup() -> None:
    text = i18n.pseudo_text("Delete “{title}”? <b>%n</b> &Save", "accented")
    assert text.startswith("⟦") and text.endswith("⟧")
    assert "{title}" in text and "%n" in text and "<b>" in text and "&" in text
    arabic = i18n.pseudo_text("Send {name}", "ar")
    assert "{name}" in arabic and not any("a" <= ch <= "z" for ch in arabic.replace(
        "{name}", ""))


def test_the_language_setting_is_read_before_the_window() -> None:
    state = parse_window_state('{"theme": "dark", "language": "ja"}', None)
    assert state.language == "ja"
    assert parse_window_state('{"language": 5}', None).language == ""
    assert i18n.wanted_locale("de").language() == QLocale.Language.German


def test_preferences_offers_the_languages_and_saves_the_choice(
        qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext]) -> None:
    from desktop.ui.dialogs.settings_dialog import SettingsDialog

    ctx = open_ctx()
    window = make_window(qtbot, ctx)
    dialog = SettingsDialog.for_window(window.dialogs.services, window)
    qtbot.addWidget(dialog)
    combo = dialog.language.combo
    assert [combo.itemData(i) for i in range(combo.count())] == [
        "", "en", "zh_CN", "es", "de", "ja", "fr"]
    assert dialog.language.note.isHidden()
    combo.setCurrentIndex(combo.findData("fr"))
    assert dialog.language.note.isVisibleTo(dialog)  # applies after a restart
    assert dialog.save()
    assert ctx.settings.current.language == "fr"
    assert open_ctx().settings.current.language == "fr"  # kept after a restart


def test_the_shortcuts_list_drops_mnemonics_of_either_style() -> None:
    from desktop.ui.dialogs.shortcuts_dialog import without_mnemonic

    assert without_mnemonic("&File") == "File"
    assert without_mnemonic("Show a&rchived chats") == "Show archived chats"
    assert without_mnemonic("ファイル(&F)") == "ファイル"
    assert without_mnemonic("Tom & Jerry") == "Tom & Jerry"


def test_a_c_locale_system_reads_as_us_english(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(QLocale, "system", staticmethod(QLocale.c))
    locale = i18n.wanted_locale("")
    assert locale.name() == "en_US"
    assert locale.toCurrencyString(1234.5, "$", 2) == "$1,234.50"


def test_an_untranslated_right_to_left_language_keeps_the_english_layout(
        qapp: QApplication, restore_english: None) -> None:
    """Hebrew has no translation of the interface: English words (Qt's own too), left
    to right."""
    i18n.install_translations(qapp, "he")
    assert tr("MainWindow", "&File") == "&File"
    assert tr("QPlatformTheme", "Cancel") == "Cancel"
    assert qapp.layoutDirection() == Qt.LayoutDirection.LeftToRight
