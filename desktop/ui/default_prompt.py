"""The app's default system prompt as the interface shows it: in the user's language.

The prompt itself is settings data (``AppSettings.system_prompt``, in English, Qt-free)
and is what the model is sent. Where the interface shows it for editing (Preferences,
a chat's system prompt) the built-in default reads in the interface's language; saved
unchanged it stays the built-in default, so nothing the model gets changes unless the
user edits it.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from desktop.core.settings import AppSettings

# The same text as AppSettings.system_prompt's default (a test keeps them equal): a
# literal here so that the translation tools find it.
SOURCE = str(QT_TRANSLATE_NOOP(
    "DefaultPrompt",
    "You are Assista, a helpful assistant running in a desktop app. "
    "Use the available tools when they help answer the user's question. "
    "Format answers in Markdown."))


def built_in() -> str:
    """The default prompt as stored (English)."""
    return str(AppSettings.model_fields["system_prompt"].default)


def translated() -> str:
    return QCoreApplication.translate("DefaultPrompt", SOURCE)


def shown(prompt: str) -> str:
    """``prompt`` to show: the built-in default in the interface's language."""
    return translated() if prompt.strip() == built_in().strip() else prompt


def stored(text: str) -> str:
    """What to save for ``text`` shown by :func:`shown`: the built-in default again
    when the translated default was left as it was."""
    return built_in() if text.strip() == translated().strip() else text
