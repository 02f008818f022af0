"""The model list's words in the interface's language: the Favourites and Recent
groups and the capability badges (makes images, tools, images, reasoning), which the Qt-free
catalog (:mod:`desktop.chat.model_catalog`) gives as codes."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from desktop.chat.model_catalog import ModelEntry, ModelSection

_SECTIONS = {"favourites": QT_TRANSLATE_NOOP("ModelWords", "Favourites"),
             "recent": QT_TRANSLATE_NOOP("ModelWords", "Recent")}
# (a model's badges: what it can do)
_BADGES = {"makes images": QT_TRANSLATE_NOOP("ModelWords", "makes images"),
           "tools": QT_TRANSLATE_NOOP("ModelWords", "tools"),
           "images": QT_TRANSLATE_NOOP("ModelWords", "images"),
           "reasoning": QT_TRANSLATE_NOOP("ModelWords", "reasoning")}


def section_title(section: ModelSection) -> str:
    """"Favourites" / "Recent" in the interface's language; a provider by its name."""
    source = _SECTIONS.get(section.kind)
    return QCoreApplication.translate("ModelWords", str(source)) if source else section.title


def badge_text(badge: str) -> str:
    """A capability badge in the interface's language (a size or a price as it is)."""
    source = _BADGES.get(badge)
    return QCoreApplication.translate("ModelWords", str(source)) if source else badge


def badges(entry: ModelEntry) -> list[str]:
    return [badge_text(badge) for badge in entry.badges()]
