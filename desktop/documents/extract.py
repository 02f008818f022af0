"""Which converter reads a file, and the checks every file passes first (exists, not
empty, not too large, really of the kind its name says)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec

from desktop.core.errors import AssistaError

#: Larger files are refused outright: converting them would hold the whole file (and
#: more) in memory, and no model's context takes that much text anyway.
MAX_DOCUMENT_BYTES = 100 * 1024 * 1024
#: Bytes of a file named like text that are looked at for NUL bytes (binary files).
SNIFF_BYTES = 8192


class DocumentError(AssistaError):
    """A file cannot be converted to text; the message is a sentence for the user."""


class Section(msgspec.Struct, frozen=True):
    """A piece of a document's text and where it is: ``page`` is the 1-based page,
    slide, sheet or chapter number (None for plain text, whose lines count);
    ``label`` says which (``page 3``, ``slide 2``, ``sheet Sales``)."""

    text: str
    page: int | None = None
    label: str = ""


_KINDS: dict[str, str] = {
    ".pdf": "pdf", ".docx": "docx", ".docm": "docx", ".xlsx": "xlsx", ".xlsm": "xlsx",
    ".pptx": "pptx", ".pptm": "pptx", ".html": "html", ".htm": "html", ".xhtml": "html",
    ".epub": "epub", ".csv": "csv", ".tsv": "csv",
}


def document_kind(path: Path) -> str:
    """``pdf``, ``docx``, ``xlsx``, ``pptx``, ``html``, ``epub``, ``csv`` or ``text``
    (Markdown, source code and anything else is read as UTF-8 text)."""
    return _KINDS.get(path.suffix.lower(), "text")


def _size_text(size: int) -> str:
    return f"{size // (1024 * 1024)} MB" if size >= 1024 * 1024 else f"{size // 1024} KB"


def check_file(path: Path) -> int:
    """The file's size after the checks common to every kind; raises DocumentError."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise DocumentError(f"cannot read {path.name}: {exc.strerror or exc}",
                            code="file_unreadable",
                            params={"file": path.name,
                                    "detail": exc.strerror or str(exc)}) from None
    if not path.is_file():
        raise DocumentError(f"{path.name} is not a file",
                            code="not_a_file", params={"file": path.name})
    if size == 0:
        raise DocumentError(f"{path.name} is empty", code="file_empty", params={"file": path.name})
    if size > MAX_DOCUMENT_BYTES:
        raise DocumentError(f"{path.name} is too large to read ({_size_text(size)}; "
                            f"the limit is {MAX_DOCUMENT_BYTES // (1024 * 1024)} MB)",
                            code="document_too_large",
                            params={"file": path.name, "size": _size_text(size),
                                    "limit": MAX_DOCUMENT_BYTES // (1024 * 1024)})
    return size


def read_bytes(path: Path, limit: int | None = None) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.read() if limit is None else handle.read(limit)
    except OSError as exc:
        raise DocumentError(f"cannot read {path.name}: {exc.strerror or exc}",
                            code="file_unreadable",
                            params={"file": path.name,
                                    "detail": exc.strerror or str(exc)}) from None


def decode_text(name: str, data: bytes, *, head_only: bool = False) -> str:
    """UTF-8 text (a BOM is dropped); raises DocumentError for binary or other encodings."""
    if b"\x00" in data[:SNIFF_BYTES]:
        raise DocumentError(f"{name} is not a text file or a supported document "
                            "(PDF, DOCX, XLSX, CSV, PPTX, HTML, EPUB, Markdown, source code)",
                            code="document_unsupported", params={"file": name})
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if head_only and exc.start >= len(data) - 3:  # a character cut by the read limit
            return data[:exc.start].decode("utf-8-sig")
        raise DocumentError(f"{name} is not UTF-8 text",
                            code="not_utf8", params={"file": name}) from None


def extract_text_file(path: Path, max_bytes: int | None = None) -> list[Section]:
    """A text file as one section; ``max_bytes`` reads only the head of a large one."""
    data = read_bytes(path, max_bytes)
    head_only = max_bytes is not None and len(data) == max_bytes
    return [Section(decode_text(path.name, data, head_only=head_only))]


def _converter(kind: str) -> Callable[[Path], list[Section]]:
    # Each converter's module (and its library) is imported only for its own kind.
    if kind == "pdf":
        from desktop.documents.pdf import extract_pdf
        return extract_pdf
    if kind in ("docx", "pptx"):
        from desktop.documents.office import extract_docx, extract_pptx
        return extract_docx if kind == "docx" else extract_pptx
    if kind in ("xlsx", "csv"):
        from desktop.documents.sheets import extract_csv, extract_xlsx
        return extract_xlsx if kind == "xlsx" else extract_csv
    from desktop.documents.markup import extract_epub, extract_html
    return extract_html if kind == "html" else extract_epub


def extract_sections(path: Path, *, max_text_bytes: int | None = None) -> list[Section]:
    """The text of ``path`` as sections; raises DocumentError with a clear sentence
    (missing, empty, too large, damaged, password-protected, binary, no text at all).

    ``max_text_bytes``: for plain text, read only this much (the caller cuts it to a
    budget anyway; the cut is reported by :func:`render_text`)."""
    check_file(path)
    kind = document_kind(path)
    sections = (extract_text_file(path, max_text_bytes) if kind == "text"
                else _converter(kind)(path))
    if not any(s.text.strip() for s in sections):
        raise DocumentError(f"{path.name} has no text to read"
                            + (" (scanned pages without a text layer?)" if kind == "pdf" else ""),
                            code=("document_no_text_scanned" if kind == "pdf"
                                  else "document_no_text"),
                            params={"file": path.name})
    return sections
