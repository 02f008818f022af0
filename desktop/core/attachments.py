"""Files attached to a user message: images as image parts, documents as text.

A document (PDF, DOCX, XLSX/CSV, PPTX, HTML, EPUB, Markdown, source code; converted
by :mod:`desktop.documents`) becomes a :class:`TextPart` whose ``provider_data``
names the file (``{"attachment": "notes.txt"}``) so the UI can show it as a chip
while the model receives its content; it also keeps what the chip shows and opens
(``mime``, ``size`` in bytes, ``pages`` when the document has pages, slides, sheets
or chapters, ``kind``, and the absolute ``path`` the file was attached from; an image
keeps ``size`` and ``path`` in its own ``provider_data``): see :func:`attachment_info`.
Text beyond the budget is cut with a note in the text and in ``provider_data["note"]``.
A PDF also keeps the file itself (``provider_data["document"]``: media type and base64
data) for the providers that read PDFs natively (see :func:`native_document`); the
others get the text. Everything else is refused with a clear message.
"""

from __future__ import annotations

import base64
import mimetypes
from pathlib import Path
from typing import Any

import msgspec

from desktop.core.errors import AssistaError
from desktop.core.messages import ImagePart, Part, TextPart

IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
MAX_IMAGE_BYTES = 20 * 1024 * 1024
#: Characters of a document's text put in a message when the caller does not say
#: (about 50,000 tokens: fits every current model's context with room to answer).
DEFAULT_MAX_CHARS = 200_000
#: PDFs up to this size are also kept as files for the providers that read them.
MAX_NATIVE_PDF_BYTES = 20 * 1024 * 1024
#: Document kinds whose sections are pages, slides, sheets or chapters (counted).
PAGED_KINDS = frozenset({"pdf", "pptx", "xlsx", "epub"})


class AttachmentError(AssistaError):
    """A file cannot be attached (too large, binary, unreadable)."""


def attachment_budget(context_window: int | None) -> int:
    """Characters of attached text for a model with this context window (tokens):
    about a third of it at ~4 characters a token, never more than the default."""
    if not context_window:
        return DEFAULT_MAX_CHARS
    return max(4_000, min(DEFAULT_MAX_CHARS, context_window * 4 // 3))


def load_attachment(path: Path, *, max_chars: int = DEFAULT_MAX_CHARS) -> Part:
    """Read ``path`` into a message part; raises :class:`AttachmentError`."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise AttachmentError(f"cannot read {path.name}: {exc.strerror or exc}",
                              code="file_unreadable",
                              params={"file": path.name,
                                      "detail": exc.strerror or str(exc)}) from None
    kind, _ = mimetypes.guess_type(path.name)
    if kind in IMAGE_TYPES:
        if size > MAX_IMAGE_BYTES:
            raise AttachmentError(f"{path.name} is too large to attach "
                                  f"({size // (1024 * 1024)} MB; the limit is 20 MB)",
                                  code="attachment_too_large",
                                  params={"file": path.name, "size": size // (1024 * 1024),
                                          "limit": 20})
        data = _read(path)
        return ImagePart(media_type=kind or "image/png", name=path.name,
                         data=base64.b64encode(data).decode("ascii"),
                         provider_data={"size": size, "path": _absolute(path)})
    return _document_part(path, size, max_chars)


def document_text(path: Path) -> str:
    """The whole text of a document (a project's file), its sections joined. Raises
    AttachmentError (the reader's code and parameters) when it cannot be read."""
    from desktop.documents import DocumentError, extract_sections

    try:
        return "\n\n".join(s.text for s in extract_sections(path)).strip()
    except DocumentError as exc:
        raise AttachmentError(str(exc), code=exc.code, params=exc.params) from None


def _document_part(path: Path, size: int, max_chars: int) -> TextPart:
    from desktop.documents import DocumentError, document_kind, extract_sections, render_text

    # Plain text is read only as far as the budget reaches (4 bytes a character at
    # most); documents must be read whole to find their text.
    head = max_chars * 4 + 4
    try:
        sections = extract_sections(path, max_text_bytes=head)
    except DocumentError as exc:
        raise AttachmentError(str(exc), code=exc.code, params=exc.params) from None
    kind = document_kind(path)
    rendered = render_text(path.name, sections, max_chars,
                           file_was_cut=kind == "text" and size > head)
    mime, _ = mimetypes.guess_type(path.name)
    data: dict[str, Any] = {"attachment": path.name, "kind": kind, "size": size,
                            "mime": mime or ("text/plain" if kind == "text"
                                             else "application/octet-stream"),
                            "path": _absolute(path)}
    if kind in PAGED_KINDS:
        data["pages"] = sum(1 for section in sections if section.page is not None)
    if rendered.note:
        data["note"] = rendered.note
    if kind == "pdf" and size <= MAX_NATIVE_PDF_BYTES:
        data["document"] = {"media_type": "application/pdf",
                            "data": base64.b64encode(_read(path)).decode("ascii")}
    return TextPart(text=text_attachment_block(path.name, rendered.text), provider_data=data)


def native_document(part: Part) -> tuple[str, str, str] | None:
    """``(file name, media type, base64 data)`` of an attached PDF kept as a file, for
    the providers that read PDFs themselves (Anthropic, Gemini, OpenAI Responses);
    None for every other part (they send its text)."""
    if not isinstance(part, TextPart):
        return None
    document = part.provider_data.get("document")
    name = part.provider_data.get("attachment")
    if not isinstance(document, dict) or not isinstance(name, str):
        return None
    media_type, data = document.get("media_type"), document.get("data")
    if isinstance(media_type, str) and isinstance(data, str) and data:
        return name, media_type, data
    return None


def attachment_note(part: Part) -> str | None:
    """The note of an attachment cut to the budget (shown to the user), if any."""
    note = part.provider_data.get("note") if isinstance(part, TextPart) else None
    return note if isinstance(note, str) else None


def text_attachment_block(name: str, text: str) -> str:
    """How a text file is shown to the model: a fenced block with its name."""
    fence = "```"
    while fence in text:
        fence += "`"
    return f"\n\nAttached file `{name}`:\n{fence}\n{text.rstrip()}\n{fence}\n"


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise AttachmentError(f"cannot read {path.name}: {exc.strerror or exc}",
                              code="file_unreadable",
                              params={"file": path.name,
                                      "detail": exc.strerror or str(exc)}) from None


def attachment_name(part: Part) -> str | None:
    """The file name of an attachment part, or None for ordinary parts."""
    if isinstance(part, ImagePart):
        return part.name or "image"
    if isinstance(part, TextPart):
        name = part.provider_data.get("attachment")
        return name if isinstance(name, str) else None
    return None


def _absolute(path: Path) -> str:
    try:
        return str(path.resolve())
    except OSError:
        return str(path.absolute())


class AttachmentInfo(msgspec.Struct, frozen=True):
    """What a sent attachment's chip shows: ``kind`` is ``image`` or a document kind
    (``pdf``, ``docx``, ``xlsx``, ``pptx``, ``html``, ``epub``, ``csv``, ``text``);
    ``size``, ``pages`` and ``path`` are None when not known (messages stored before
    they were kept, a pasted image); ``text`` is the extracted text ("" for images)."""

    name: str
    kind: str
    mime: str
    size: int | None
    pages: int | None
    path: str | None
    text: str
    note: str | None


def attachment_info(part: Part) -> AttachmentInfo | None:
    """The chip of an attachment part (None for ordinary parts)."""
    name = attachment_name(part)
    if name is None:
        return None
    data = part.provider_data
    size, pages, path = data.get("size"), data.get("pages"), data.get("path")
    size = size if isinstance(size, int) else None
    pages = pages if isinstance(pages, int) and pages > 0 else None
    path = path if isinstance(path, str) and path else None
    if isinstance(part, ImagePart):
        if size is None and part.data:
            size = len(part.data) * 3 // 4 - part.data[-2:].count("=")
        return AttachmentInfo(name, "image", part.media_type, size, None, path, "", None)
    assert isinstance(part, TextPart)
    kind = data.get("kind")
    if not isinstance(kind, str):  # stored before the kind was kept
        from desktop.documents import document_kind

        kind = document_kind(Path(name))
    mime = data.get("mime")
    if not isinstance(mime, str):
        mime = mimetypes.guess_type(name)[0] or "text/plain"
    return AttachmentInfo(name, kind, mime, size, pages, path, extracted_text(part),
                          attachment_note(part))


def extracted_text(part: TextPart) -> str:
    """The text of an attached file without the wrapper the model sees around it
    (see :func:`text_attachment_block`)."""
    text = part.text.lstrip("\n")
    header, newline, rest = text.partition("\n")
    if not (header.startswith("Attached file `") and newline):
        return part.text.strip("\n")
    fence, newline, body = rest.partition("\n")
    if not fence.startswith("```") or fence.strip("`"):
        return rest.strip("\n")
    closing = "\n" + fence
    end = body.rfind(closing)
    return body[:end] if end >= 0 else body.rstrip("\n")
