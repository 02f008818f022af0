"""An answer's images travel with their message between two data folders, through
every target (folder, WebDAV and S3 loopback servers)."""

from __future__ import annotations

import base64
import os
from collections.abc import Callable

from desktop.core.accumulator import MessageBuilder
from desktop.core.images import MAX_ANSWER_IMAGE_BYTES, image_event, part_problem
from desktop.core.messages import ImagePart, Message
from tests.support.images import png_bytes
from tests.sync.conftest import Device

MakeDevice = Callable[[str], Device]


def big_png(size: int) -> bytes:
    """A PNG of about ``size`` bytes that does not compress (noise in an extra chunk)."""
    from tests.support.images import _chunk

    png = png_bytes(16, 16)
    return png[:-12] + _chunk(b"tEXt", b"noise\x00" + os.urandom(size)) + png[-12:]


def test_images_sync_with_their_message(devices: MakeDevice) -> None:
    a, b = devices("a"), devices("b")
    chat = a.chat("Pictures")
    question = a.say(chat, "draw two")
    builder = MessageBuilder(model="gpt-image-1", provider="Loopback")
    large = big_png(3 * 1024 * 1024)  # a high-quality gpt-image-1 picture's size
    for image in (png_bytes(8, 6), large):
        builder.feed(image_event(image, "images_api"))
    answer = builder.finish("complete").model_copy(update={"parent_id": question.id})
    a.sessions.add_message(chat, answer, question.id)
    a.sync()
    b.sync()
    (copy,) = [m for m in b.sessions.load_messages(chat) if m.role == "assistant"]
    images = [p for p in copy.parts if isinstance(p, ImagePart)]
    assert [base64.b64decode(p.data) for p in images] == [png_bytes(8, 6), large]
    assert images[0].provider_data == {"generated": {"source": "images_api"}}


def test_an_answer_keeps_at_most_its_image_budget() -> None:
    builder = MessageBuilder(model="m", provider="p")
    chunk = big_png(MAX_ANSWER_IMAGE_BYTES // 4 - 1000)
    for _ in range(5):
        builder.feed(image_event(chunk, "gemini"))
    message: Message = builder.finish("complete")
    problems = [part_problem(p) for p in message.parts if isinstance(p, ImagePart)]
    assert problems == [None, None, None, None, "too_large"]
