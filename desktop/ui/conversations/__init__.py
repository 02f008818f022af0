"""Saved chats: the chat list, search, import/export, assistants and per-chat prompts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.core.lazy import lazy_names

if TYPE_CHECKING:
    from desktop.ui.conversations.assistant_gallery import AssistantGallery
    from desktop.ui.conversations.assistants_dialog import AssistantsDialog
    from desktop.ui.conversations.import_export import ImportExport
    from desktop.ui.conversations.search_dialog import SearchDialog
    from desktop.ui.conversations.session_prompt_dialog import SessionPromptDialog

#: The dialogs loaded when first opened (the assistant gallery, the assistants, a chat's
#: own prompt, search) and import/export (the chat formats, the ChatGPT importer), not on
#: the way to the window: callers import this package at their top and use
#: ``conversations.AssistantGallery`` and so on where opened.
_LAZY: dict[str, str] = {
    "AssistantGallery": "desktop.ui.conversations.assistant_gallery",
    "AssistantsDialog": "desktop.ui.conversations.assistants_dialog",
    "ImportExport": "desktop.ui.conversations.import_export",
    "SearchDialog": "desktop.ui.conversations.search_dialog",
    "SessionPromptDialog": "desktop.ui.conversations.session_prompt_dialog",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


__all__ = ["AssistantGallery", "AssistantsDialog", "ImportExport", "SearchDialog",
           "SessionPromptDialog"]
