"""The interface language: Qt translators for the app and for Qt's own dialogs.

At start :func:`install_translations` picks the language (Preferences, else the
system's), makes its QLocale the default (numbers and dates, see ``locale_format``),
installs, in this order: the English plural forms (``assista_en.qm``: the sources say
"%n chats", English needs "1 chat"), then, when the interface is translated into the
language, Qt's own ``qtbase_<lang>.qm`` (standard buttons, file dialogs, context menus)
and ``assista_<lang>.qm``, laying the window out right to left for a language written
that way. Another language gets the English interface throughout, left to right.

The ``.qm`` files are compiled from ``resources/i18n/*.ts`` by
``packaging/translations.py`` (``python3 packaging/dev.py test`` / ``run`` do it).

``ASSISTA_PSEUDO_LOCALE`` (``accented`` or ``ar``) swaps every text for a marked or
Arabic-looking pseudo-translation, to see what is not translated and how a right to
left layout looks without knowing the language.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

import PySide6
from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QObject, QTranslator
from PySide6.QtWidgets import QApplication

from desktop.resources import resources_dir

log = logging.getLogger(__name__)

#: Languages with a complete translation: setting value -> name in that language.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "zh_CN": "简体中文",
    "es": "Español",
    "de": "Deutsch",
    "ja": "日本語",
    "fr": "Français",
}
PSEUDO_VARIABLE = "ASSISTA_PSEUDO_LOCALE"
_TRANSLATORS_PROPERTY = "_assista_translators"

# Left as they are by the pseudo-translations: format fields, %n/%1, tags, entities.
_KEEP = re.compile(r"(\{[a-z_]*\}|%[nL]?\d*|<[^>]*>|&[a-z]+;|&(?=\w))")
_ARABIC = dict(zip("abcdefghijklmnopqrstuvwxyz", "ابتثجحخدذرزسشصضطظعغفقكلمنه", strict=False))


def translations_dir() -> Path | None:
    folder = resources_dir()
    return folder / "i18n" if folder is not None else None


def pseudo_text(text: str, mode: str) -> str:
    """``"Send {n}"`` -> ``"⟦Šéñð {n}⟧"`` (accented) or Arabic letters (``ar``)."""
    accents = str.maketrans("aeiounsdcAEIOUNSDC", "áéíóúñšðçÁÉÍÓÚÑŠÐÇ")
    pieces = []
    for i, piece in enumerate(_KEEP.split(text)):
        if i % 2:
            pieces.append(piece)
        elif mode == "ar":
            pieces.append("".join(_ARABIC.get(ch.lower(), ch) for ch in piece))
        else:
            pieces.append(piece.translate(accents))
    body = "".join(pieces)
    return body if mode == "ar" or not text else f"⟦{body}⟧"


class PseudoTranslator(QTranslator):
    """Translates every text to :func:`pseudo_text` (a check that it went through Qt)."""

    def __init__(self, mode: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.mode = mode

    def translate(self, context: str, source_text: str, disambiguation: str | None = None,
                  n: int = -1) -> str:
        return pseudo_text(source_text, self.mode) if source_text else ""

    def isEmpty(self) -> bool:
        return False


def wanted_locale(language: str) -> QLocale:
    """The locale of a Preferences value ("" = the system's)."""
    pseudo = os.environ.get(PSEUDO_VARIABLE, "")
    if pseudo == "ar":
        return QLocale(QLocale.Language.Arabic, QLocale.Country.Egypt)
    if language:
        return QLocale(language)
    system = QLocale.system()
    if system.language() == QLocale.Language.C:  # LANG=C/POSIX: plain US English
        return QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
    return system


def _load(translator: QTranslator, locale: QLocale, name: str, folder: Path | str) -> bool:
    return translator.load(locale, name, "_", str(folder))


def qt_translations_dirs() -> list[Path]:
    """Where Qt's own ``qtbase_*.qm`` are: Qt's configured path, else next to PySide6
    (a bundle keeps those of the translated languages there)."""
    found = [Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)),
             Path(PySide6.__file__).resolve().parent / "Qt" / "translations"]
    return [folder for folder in dict.fromkeys(found) if folder.is_dir()]


def install_translations(app: QCoreApplication, language: str = "") -> QLocale:
    """Install the translators for ``language`` ("" = follow the system) on ``app``,
    replacing any installed before; returns the locale in use."""
    for old in getattr(app, _TRANSLATORS_PROPERTY, []):
        app.removeTranslator(old)
    locale = wanted_locale(language)
    QLocale.setDefault(locale)
    installed: list[QTranslator] = []
    ours = translations_dir()
    english = QTranslator(app)
    if ours is not None and english.load(str(ours / "assista_en.qm")):
        installed.append(english)
    elif ours is not None:
        log.warning("no compiled translations in %s (run packaging/translations.py build)",
                    ours)
    pseudo = os.environ.get(PSEUDO_VARIABLE, "")
    # Mirrored only when the words are in that language too (an English interface
    # laid out right to left would read backwards).
    translated = bool(pseudo)
    if pseudo:
        installed.append(PseudoTranslator(pseudo, app))
    elif locale.language() not in (QLocale.Language.English, QLocale.Language.C):
        app_own = QTranslator(app)
        if ours is not None and _load(app_own, locale, "assista", ours):
            translated = True
            # Qt's own words (standard buttons, file dialogs) in the same language
            qt_own = QTranslator(app)
            if any(_load(qt_own, locale, "qtbase", folder)
                   for folder in qt_translations_dirs()):
                installed.append(qt_own)
            installed.append(app_own)
        else:
            log.info("no translation of the interface for %s", locale.name())
    for translator in installed:
        app.installTranslator(translator)
    setattr(app, _TRANSLATORS_PROPERTY, installed)
    if isinstance(app, QApplication):
        if translated:
            app.setLayoutDirection(locale.textDirection())
        elif app.isRightToLeft():  # (left to right unless a language before said not)
            from PySide6.QtCore import Qt  # (its enums take ~25 ms: not before the window)

            app.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
    return locale


def language_names() -> list[tuple[str, str]]:
    """(setting value, label) for the Preferences' choice, "System default" first."""
    system = QCoreApplication.translate("Languages", "System default")
    return [("", system), *LANGUAGES.items()]


def is_right_to_left(app: QApplication) -> bool:
    return app.isRightToLeft()
