"""The attach dialog's file filters: every kind the app can attach first ("All
supported files": images, PDF, Word, Excel/CSV, PowerPoint, EPUB, HTML, text and
source code), then one filter per kind, then all files."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from desktop import knowledge as knowledge_bases
from desktop.core.attachments import IMAGE_SUFFIXES

# (kind, suffixes); the names are translated when the dialog opens
DOCUMENT_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("pdf", (".pdf",)),
    ("docx", (".docx", ".docm")),
    ("xlsx", (".xlsx", ".xlsm", ".csv", ".tsv")),
    ("pptx", (".pptx", ".pptm")),
    ("epub", (".epub",)),
    ("html", (".html", ".htm", ".xhtml")),
)


def _kind_name(kind: str) -> str:
    names = {
        "images": QCoreApplication.translate("AttachFilters", "Images"),
        "pdf": QCoreApplication.translate("AttachFilters", "PDF documents"),
        "docx": QCoreApplication.translate("AttachFilters", "Word documents"),
        "xlsx": QCoreApplication.translate("AttachFilters", "Spreadsheets"),
        "pptx": QCoreApplication.translate("AttachFilters", "Presentations"),
        "epub": QCoreApplication.translate("AttachFilters", "EPUB books"),
        "html": QCoreApplication.translate("AttachFilters", "Web pages"),
        "text": QCoreApplication.translate("AttachFilters", "Text and source code"),
    }
    return names[kind]


def _pattern(suffixes: tuple[str, ...] | list[str]) -> str:
    return " ".join(f"*{s}" for s in suffixes)


def attach_filters() -> list[str]:
    """The attach dialog's name filters; the first is the default."""
    text = tuple(sorted(knowledge_bases.TEXT_SUFFIXES))
    groups: list[tuple[str, tuple[str, ...]]] = [("images", IMAGE_SUFFIXES), *DOCUMENT_KINDS,
                                                 ("text", text)]
    every = [s for _kind, suffixes in groups for s in suffixes]
    filters = [QCoreApplication.translate("AttachFilters", "All supported files ({patterns})")
               .format(patterns=_pattern(every))]
    filters += [f"{_kind_name(kind)} ({_pattern(suffixes)})" for kind, suffixes in groups]
    filters.append(QCoreApplication.translate("AttachFilters", "All files (*)"))
    return filters
