"""Files attached to a user message: images as image parts, documents as text.

A document (PDF, DOCX, XLSX/CSV, PPTX, HTML, EPUB, Markdown, source code; converted
by :mod:`desktop.documents`) becomes a :class:`TextPart` whose ``provider_data``
names the file (``{"attachment": "notes.txt"}``) so the UI can show it as a chip
while the model receives its content. Text beyond the budget is cut with a note in
the text and in ``provider_data["note"]``. A PDF also keeps the file itself
(``provider_data["document"]``: media type and base64 data) for the providers that
read PDFs natively (see :func:`native_document`); the others get the text.
Everything else is refused with a clear message.
"""

from __future__ import annotations

import base64
import mimetypes
from pathlib import Path
from typing import Any

from desktop.core.errors import AssistaError
from desktop.core.messages import ImagePart, Part, TextPart

IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}
MAX_IMAGE_BYTES = 20 * 1024 * 1024
#: Characters of a document's text put in a message when the caller does not say
#: (about 50,000 tokens: fits every current model's context with room to answer).
DEFAULT_MAX_CHARS = 200_000
#: PDFs up to this size are also kept as files for the providers that read them.
MAX_NATIVE_PDF_BYTES = 20 * 1024 * 1024


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
        raise AttachmentError(f"cannot read {path.name}: {exc.strerror or exc}") from None
    kind, _ = mimetypes.guess_type(path.name)
    if kind in IMAGE_TYPES:
        if size > MAX_IMAGE_BYTES:
            raise AttachmentError(f"{path.name} is too large to attach "
                                  f"({size // (1024 * 1024)} MB; the limit is 20 MB)")
        data = _read(path)
        return ImagePart(media_type=kind or "image/png", name=path.name,
                         data=base64.b64encode(data).decode("ascii"))
    return _document_part(path, size, max_chars)


def _document_part(path: Path, size: int, max_chars: int) -> TextPart:
    from desktop.documents import DocumentError, document_kind, extract_sections, render_text

    # Plain text is read only as far as the budget reaches (4 bytes a character at
    # most); documents must be read whole to find their text.
    head = max_chars * 4 + 4
    try:
        sections = extract_sections(path, max_text_bytes=head)
    except DocumentError as exc:
        raise AttachmentError(str(exc)) from None
    kind = document_kind(path)
    rendered = render_text(path.name, sections, max_chars,
                           file_was_cut=kind == "text" and size > head)
    data: dict[str, Any] = {"attachment": path.name}
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
        raise AttachmentError(f"cannot read {path.name}: {exc.strerror or exc}") from None


def attachment_name(part: Part) -> str | None:
    """The file name of an attachment part, or None for ordinary parts."""
    if isinstance(part, ImagePart):
        return part.name or "image"
    if isinstance(part, TextPart):
        name = part.provider_data.get("attachment")
        return name if isinstance(name, str) else None
    return None
