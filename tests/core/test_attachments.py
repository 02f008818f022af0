from __future__ import annotations

import base64
from pathlib import Path

import pytest

from desktop.core.attachments import AttachmentError, attachment_name, load_attachment
from desktop.core.messages import ImagePart, TextPart

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def test_image_becomes_image_part(tmp_path: Path) -> None:
    path = tmp_path / "dot.png"
    path.write_bytes(PNG)
    part = load_attachment(path)
    assert isinstance(part, ImagePart)
    assert part.media_type == "image/png" and part.name == "dot.png"
    assert base64.b64decode(part.data) == PNG
    assert attachment_name(part) == "dot.png"


def test_text_file_is_inlined_with_its_name(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("```py\nx = 1\n```\nnaïve ✓\n", encoding="utf-8")
    part = load_attachment(path)
    assert isinstance(part, TextPart)
    assert "Attached file `notes.md`" in part.text
    assert "````\n```py" in part.text  # a longer fence wraps inner fences
    assert "naïve ✓" in part.text
    assert attachment_name(part) == "notes.md"
    assert attachment_name(TextPart(text="plain")) is None


@pytest.mark.parametrize(("name", "content", "message"), [
    ("blob.bin", b"\x00\x01\x02", "not a text file"),
    ("latin.txt", "café".encode("latin-1"), "not UTF-8"),
])
def test_refused_files(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(AttachmentError, match=message):
        load_attachment(path)


def test_missing_and_large(tmp_path: Path) -> None:
    with pytest.raises(AttachmentError, match="cannot read"):
        load_attachment(tmp_path / "nope.txt")
    big = tmp_path / "big.txt"
    big.write_bytes(b"a" * (600 * 1024))
    part = load_attachment(big, max_chars=100_000)  # cut to the budget, with a note
    assert isinstance(part, TextPart)
    assert "big.txt was cut to fit the model's context" in part.text
