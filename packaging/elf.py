"""Just enough of ELF to list a binary's needed libraries and symbol versions.

Reads 64-bit little-endian ELF files (x86-64, aarch64): ``DT_NEEDED`` / ``DT_SONAME``
from the dynamic section and the version requirements (``.gnu.version_r``), which give
the glibc floor (the highest ``GLIBC_x.y`` any file asks for). Standard library only,
so it runs in the spec, in tests and on machines without binutils.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

_MAGIC = b"\x7fELF"
_SHT_DYNAMIC = 6
_SHT_GNU_VERNEED = 0x6FFFFFFE
_DT_NULL = 0
_DT_NEEDED = 1
_DT_SONAME = 14


@dataclass
class ElfInfo:
    path: Path
    needed: list[str] = field(default_factory=list)
    soname: str | None = None
    #: library file name -> version names required from it (``libc.so.6`` -> GLIBC_2.34 ...)
    version_needs: dict[str, set[str]] = field(default_factory=dict)


def is_elf(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(4) == _MAGIC
    except OSError:
        return False


def _cstr(table: bytes, offset: int) -> str:
    end = table.find(b"\0", offset)
    return table[offset:end if end >= 0 else len(table)].decode("utf-8", "replace")


def read_elf(path: Path) -> ElfInfo | None:
    """The dynamic-linking facts of ``path``; None when it is not a 64-bit LE ELF file."""
    data = path.read_bytes()
    if data[:4] != _MAGIC or data[4] != 2 or data[5] != 1:  # ELFCLASS64, ELFDATA2LSB
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = []
    for index in range(shnum):
        # sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link, sh_info
        sections.append(struct.unpack_from("<IIQQQQII", data, shoff + index * shentsize))
    info = ElfInfo(path)
    for _, sh_type, _, _, offset, size, link, count in sections:
        if sh_type == _SHT_DYNAMIC:
            strtab = _section_bytes(data, sections[link])
            for pos in range(offset, offset + size, 16):
                tag, value = struct.unpack_from("<qQ", data, pos)
                if tag == _DT_NULL:
                    break
                if tag == _DT_NEEDED:
                    info.needed.append(_cstr(strtab, value))
                elif tag == _DT_SONAME:
                    info.soname = _cstr(strtab, value)
        elif sh_type == _SHT_GNU_VERNEED:
            strtab = _section_bytes(data, sections[link])
            _read_verneed(data, offset, count, strtab, info.version_needs)
    return info


def _section_bytes(data: bytes, section: tuple[int, ...]) -> bytes:
    offset, size = section[4], section[5]
    return data[offset:offset + size]


def _read_verneed(
    data: bytes, offset: int, count: int, strtab: bytes, out: dict[str, set[str]]
) -> None:
    pos = offset
    for _ in range(count):
        _, cnt, file_off, aux, nxt = struct.unpack_from("<HHIII", data, pos)
        names = out.setdefault(_cstr(strtab, file_off), set())
        aux_pos = pos + aux
        for _ in range(cnt):
            _, _, _, name_off, aux_next = struct.unpack_from("<IHHII", data, aux_pos)
            names.add(_cstr(strtab, name_off))
            if aux_next == 0:
                break
            aux_pos += aux_next
        if nxt == 0:
            break
        pos += nxt


def version_key(name: str) -> tuple[int, ...]:
    """``GLIBC_2.34`` -> (2, 34); ``GLIBCXX_3.4.30`` -> (3, 4, 30)."""
    tail = name.split("_", 1)[-1]
    return tuple(int(p) for p in tail.split(".") if p.isdigit())


def highest_version(infos: Sequence[ElfInfo], prefix: str) -> str | None:
    """The highest ``<prefix>_x.y`` version any of ``infos`` requires (e.g. prefix GLIBC)."""
    found = {
        name
        for info in infos
        for names in info.version_needs.values()
        for name in names
        if name.startswith(prefix + "_") and name[len(prefix) + 1:][:1].isdigit()
    }
    return max(found, key=version_key) if found else None
