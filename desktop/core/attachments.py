"""Files attached to a user message: images as image parts, text files inlined.

A text attachment becomes a :class:`TextPart` whose ``provider_data`` names the
file (``{"attachment": "notes.txt"}``) so the UI can show it as a chip while the
model receives its content. Everything else is refused with a clear message.
"""

from __future__ import annotations

import base64
import mimetypes
from pathlib import Path

from desktop.core.errors import AssistaError
from desktop.core.messages import ImagePart, Part, TextPart

IMAGE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp"}
MAX_IMAGE_BYTES = 20 * 1024 * 1024
MAX_TEXT_BYTES = 512 * 1024


class AttachmentError(AssistaError):
    """A file cannot be attached (too large, binary, unreadable)."""


def load_attachment(path: Path) -> Part:
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
    if size > MAX_TEXT_BYTES:
        raise AttachmentError(f"{path.name} is too large to attach as text "
                              f"({size // 1024} KB; the limit is 512 KB)")
    data = _read(path)
    if b"\x00" in data[:8192]:
        raise AttachmentError(f"{path.name} is not a text file or a supported image "
                              "(PNG, JPEG, GIF, WebP)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise AttachmentError(f"{path.name} is not UTF-8 text") from None
    return TextPart(text=text_attachment_block(path.name, text),
                    provider_data={"attachment": path.name})


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
