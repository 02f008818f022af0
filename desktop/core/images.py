"""Images a model makes: which models make them, and the image parts an answer carries.

An image in an answer (from the OpenAI Images API, Gemini's ``inlineData``,
OpenRouter's ``message.images``, the Responses API's ``image_generation`` tool, or an
MCP tool) becomes an :class:`~desktop.core.messages.ImagePart` of the assistant
message, marked ``provider_data["generated"]`` with where it came from.

Storage: the image is kept *in the database*, base64 in the message's parts, as
attached images already are. That way one row is the whole message: exports,
imports, sync (which moves message rows) and branch copies carry it with no
second place to keep in step, and deleting a chat can never leave files behind
nor lose them to a half-copied data folder. The price, a third more bytes than a
file, is bounded: an image larger than :data:`MAX_IMAGE_BYTES` is not kept (the
answer says so instead), and no answer keeps more than :data:`MAX_IMAGES` images nor
more than :data:`MAX_ANSWER_IMAGE_BYTES` in all, so one message row always fits in
one sync upload (files beside the database would need a second sync channel).

Nothing here decodes pixels: the window does that (with a size check before the
decoder allocates anything); this module only checks the bytes are an image of a
kind we show and that its header's dimensions are sane.
"""

from __future__ import annotations

import base64
import binascii
import re
import struct

import msgspec

from desktop.core.events import ImageEvent
from desktop.core.messages import ImagePart

#: The largest image kept with a message (decoded bytes).
MAX_IMAGE_BYTES = 10 * 1024 * 1024
#: The most image bytes one answer keeps (later images are placeholders): base64 in
#: the row, an answer stays below sync's default largest upload (16 MB).
MAX_ANSWER_IMAGE_BYTES = 10 * 1024 * 1024
#: The most images one answer keeps.
MAX_IMAGES = 10
#: The most pixels an image may have to be decoded (a 8192x8192 image).
MAX_PIXELS = 8192 * 8192
#: ``provider_data`` key of an image the model (or a tool) made: {"source": ...}.
GENERATED = "generated"

_IMAGES_API = re.compile(r"^(dall-e|gpt-image|chatgpt-image)", re.IGNORECASE)
_IMAGE_OUTPUT = re.compile(r"(dall-e|gpt-image|chatgpt-image|-image(-|$)|image-preview"
                           r"|image-generation|flux|stable-diffusion|sdxl|seedream|riverflow)",
                           re.IGNORECASE)


def uses_images_api(model: str) -> bool:
    """An OpenAI Images API model (``dall-e-3``, ``gpt-image-1``...): asked through
    ``/images/generations``, not a chat endpoint. A routed name (``openai/gpt-5-image``
    on OpenRouter) is a chat model."""
    return "/" not in model and bool(_IMAGES_API.match(model))


def makes_images(model: str) -> bool:
    """Whether ``model`` answers with images (the picker marks it)."""
    return bool(_IMAGE_OUTPUT.search(model))


_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def sniff_media_type(data: bytes) -> str | None:
    """The image type of ``data`` by its first bytes (PNG, JPEG, GIF, WebP), or None."""
    for magic, kind in _SIGNATURES:
        if data.startswith(magic):
            return kind
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def header_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG or GIF header (None: another kind, or unknown)."""
    if data.startswith(b"\x89PNG") and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data[:3] == b"GIF" and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return int(width), int(height)
    return None


class ImageProblem(msgspec.Struct, frozen=True):
    """Why an image is not kept or not shown: ``code`` is ``too_large``,
    ``not_an_image`` or ``bad_data``; ``size`` the bytes it had."""

    code: str
    size: int = 0


def decode_base64(data: str) -> bytes | ImageProblem:
    """The bytes of base64 ``data`` (a ``data:`` URL too), within the size limit."""
    if data.startswith("data:"):
        data = data.partition(",")[2]
    if len(data) > MAX_IMAGE_BYTES * 4 // 3 + 8:
        return ImageProblem("too_large", len(data) * 3 // 4)
    try:
        return base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return ImageProblem("bad_data")


def check_image(data: bytes) -> str | ImageProblem:
    """The media type of image bytes we keep and show, or why not."""
    if len(data) > MAX_IMAGE_BYTES:
        return ImageProblem("too_large", len(data))
    kind = sniff_media_type(data)
    if kind is None:
        return ImageProblem("not_an_image", len(data))
    size = header_size(data)
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        return ImageProblem("too_large", len(data))
    return kind


def is_generated(part: ImagePart) -> bool:
    return GENERATED in part.provider_data


def data_url_bytes(url: str) -> bytes | ImageProblem | None:
    """The bytes of a ``data:image/...;base64,`` URL; None for another URL."""
    if not url.startswith("data:"):
        return None
    head = url[:80].partition(",")[0]
    if ";base64" not in head:
        return ImageProblem("bad_data")
    return decode_base64(url)


def image_file_names(out: str, count: int) -> list[str]:
    """``FILE.png``, ``FILE-2.png``, ``FILE-3.png``... for ``count`` images."""
    if count <= 0:
        return []
    stem, dot, suffix = out.rpartition(".")
    if not dot or "/" in suffix or "\\" in suffix:
        stem, suffix = out, ""
    names = [out]
    for index in range(2, count + 1):
        names.append(f"{stem}-{index}.{suffix}" if suffix else f"{stem}-{index}")
    return names


def image_event(raw: str | bytes, source: str, media_type: str | None = None) -> ImageEvent:
    """The event of one image from a provider: base64 text (or a ``data:`` URL) or bytes,
    checked; one that is broken, not an image or too large is an event with a
    ``problem`` (the answer shows a placeholder saying which)."""
    data = decode_base64(raw) if isinstance(raw, str) else raw
    if isinstance(data, ImageProblem):
        return ImageEvent(source=source, problem=data.code, size=data.size)
    kind = check_image(data)
    if isinstance(kind, ImageProblem):
        return ImageEvent(source=source, problem=kind.code, size=kind.size)
    return ImageEvent(base64.b64encode(data).decode("ascii"), kind or media_type or "image/png",
                      source)


def event_part(event: ImageEvent, index: int, kept: int = 0) -> ImagePart:
    """The message part of an :class:`ImageEvent` (``index``: its number in the answer;
    ``kept``: the image bytes the answer already keeps)."""
    if not event.problem and kept + len(event.data) * 3 // 4 > MAX_ANSWER_IMAGE_BYTES:
        event = ImageEvent(source=event.source, problem="too_large", size=len(event.data) * 3 // 4)
    info: dict[str, object] = {"source": event.source}
    if event.problem:
        info.update(problem=event.problem, size=event.size)
    return ImagePart(media_type=event.media_type, data=event.data if not event.problem else "",
                     name=f"image-{index}",
                     provider_data={**event.provider_data, GENERATED: info})


def part_problem(part: ImagePart) -> str | None:
    """Why a kept image part cannot be shown (its recorded problem), or None."""
    info = part.provider_data.get(GENERATED)
    problem = info.get("problem") if isinstance(info, dict) else None
    if isinstance(problem, str):
        return problem
    return None if part.data else "bad_data"
