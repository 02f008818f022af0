"""Writes tiny but valid 64-bit ELF files with chosen DT_NEEDED / version needs."""

from __future__ import annotations

import struct
from pathlib import Path


def write_elf(path: Path, needed: list[str], soname: str | None = None,
              versions: dict[str, list[str]] | None = None) -> Path:
    strtab = b"\0"
    offsets: dict[str, int] = {}

    def intern(text: str) -> int:
        nonlocal strtab
        if text not in offsets:
            offsets[text] = len(strtab)
            strtab += text.encode() + b"\0"
        return offsets[text]

    dynamic = b"".join(struct.pack("<qQ", 1, intern(n)) for n in needed)
    if soname:
        dynamic += struct.pack("<qQ", 14, intern(soname))
    dynamic += struct.pack("<qQ", 0, 0)
    verneed = b""
    entries = list((versions or {}).items())
    for index, (library, names) in enumerate(entries):
        next_off = 0 if index == len(entries) - 1 else 16 + 16 * len(names)
        verneed += struct.pack("<HHIII", 1, len(names), intern(library), 16, next_off)
        for j, name in enumerate(names):
            aux_next = 0 if j == len(names) - 1 else 16
            verneed += struct.pack("<IHHII", 0, 0, 0, intern(name), aux_next)
    header_size, section_size = 64, 64
    body_offset = header_size
    sections = [(0, 0, 0, 0, 0)]  # type, offset, size, link, info
    blobs = b""
    for kind, blob, link, info in ((3, strtab, 0, 0), (6, dynamic, 1, 0),
                                   (0x6FFFFFFE, verneed, 1, len(entries))):
        sections.append((kind, body_offset + len(blobs), len(blob), link, info))
        blobs += blob
    shoff = body_offset + len(blobs)
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header = ident + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, shoff, 0, header_size, 0,
                                 0, section_size, len(sections), 0)
    table = b"".join(struct.pack("<IIQQQQIIQQ", 0, kind, 0, 0, off, size, link, info, 1, 0)
                     for kind, off, size, link, info in sections)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header + blobs + table)
    return path
