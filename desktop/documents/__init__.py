"""Documents to text, locally: PDF, DOCX, XLSX/CSV, PPTX, HTML, EPUB, Markdown and
source files.

Qt-free and imported lazily (only when a file is attached or indexed), so that the
window's start does not pay for pypdf or openpyxl. :func:`extract_sections` gives
the text of a file as sections that keep where they came from (page, slide, sheet,
chapter) for the knowledge index; :func:`render_text` joins them for a message,
cut to a budget with a visible note.
"""

from __future__ import annotations

from desktop.documents.extract import (
    MAX_DOCUMENT_BYTES,
    DocumentError,
    Section,
    document_kind,
    extract_sections,
)
from desktop.documents.render import RenderedText, render_text

__all__ = [
    "MAX_DOCUMENT_BYTES",
    "DocumentError",
    "RenderedText",
    "Section",
    "document_kind",
    "extract_sections",
    "render_text",
]
