"""Exporting chats (JSON, lossless; Markdown, readable) and importing them (an Assista
export, or ChatGPT's conversations.json / .zip), as the window's Export and Import
run them. Taken from here by the window, not from the storage layer (issue 26)."""

from __future__ import annotations

from desktop.storage.export import ExportFormat, export_sessions
from desktop.storage.importer import ImportReport, import_file

__all__ = ["ExportFormat", "ImportReport", "export_sessions", "import_file"]
