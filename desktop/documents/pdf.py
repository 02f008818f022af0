"""PDF text with pypdf: pure Python (no native library to ship per platform), reads
encrypted files through ``cryptography`` that the app already carries."""

from __future__ import annotations

import logging
from pathlib import Path

from desktop.documents.extract import DocumentError, Section, read_bytes

log = logging.getLogger(__name__)
PDF_MAGIC = b"%PDF-"


def is_pdf(path: Path) -> bool:
    """Whether the file starts like a PDF (the header may follow some junk bytes)."""
    return PDF_MAGIC in read_bytes(path, 1024)


def extract_pdf(path: Path) -> list[Section]:
    """One section per page (``page N``); raises DocumentError for a file that is not
    a PDF, is damaged, or needs a password."""
    if not is_pdf(path):
        raise DocumentError(f"{path.name} is not a PDF (its content does not start "
                            "like one: a damaged download or another kind of file)",
                            code="not_a_pdf", params={"file": path.name})
    # pypdf logs every recoverable oddity of a damaged file as a warning: not news.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError

    try:
        reader = PdfReader(path)
        if reader.is_encrypted and not reader.decrypt(""):
            raise FileNotDecryptedError("a password is needed")
        sections = []
        for number, page in enumerate(reader.pages, start=1):
            sections.append(Section(page.extract_text() or "", number, f"page {number}"))
    except FileNotDecryptedError:
        raise DocumentError(f"{path.name} is password-protected; open it with its "
                            "password and save an unprotected copy to attach it",
                            code="pdf_password", params={"file": path.name}) from None
    except DocumentError:
        raise
    except Exception as exc:  # pypdf raises many kinds on broken files
        log.info("PDF %s could not be read: %r", path, exc)
        raise DocumentError(f"{path.name} is damaged and cannot be read as a PDF "
                            f"({type(exc).__name__}: {exc})",
                            code="document_damaged",
                            params={"file": path.name,
                                    "detail": f"{type(exc).__name__}: {exc}"}) from None
    return sections
