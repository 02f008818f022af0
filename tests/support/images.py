"""Real image bytes for tests, made without Qt: a small PNG of one colour, a PNG whose
header claims a huge size (a decompression bomb's shape), and broken data."""

from __future__ import annotations

import base64
import struct
import zlib


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png_bytes(width: int = 8, height: int = 6, rgb: tuple[int, int, int] = (200, 40, 40)
              ) -> bytes:
    """A valid ``width`` x ``height`` RGB PNG filled with ``rgb``."""
    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(row * height)) + _chunk(b"IEND", b""))


def huge_png(width: int = 60000, height: int = 60000) -> bytes:
    """A small file whose PNG header claims ``width`` x ``height`` pixels."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + _chunk(b"IEND", b""))


def broken_png() -> bytes:
    """A sane PNG header (8x6) whose pixel data is garbage: looks like an image, does not
    decode."""
    header = struct.pack(">IIBBBBB", 8, 6, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", b"garbage, not zlib" * 4) + _chunk(b"IEND", b""))


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
