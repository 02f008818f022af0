"""A document's sections cut into chunks that keep where they are: the page (or
slide, sheet, chapter) and the line range within it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from desktop.documents import Section

#: Characters a chunk aims for: a paragraph or two; small enough that a hit points at
#: the right place, large enough to carry its context.
CHUNK_CHARS = 1500


@dataclass(frozen=True, slots=True)
class Chunk:
    text: str
    page: int | None
    line_start: int  # 1-based, within the page (or the file for plain text)
    line_end: int


def chunk_sections(sections: Sequence[Section], size: int = CHUNK_CHARS) -> Iterator[Chunk]:
    """Lines gathered until ``size`` characters; a longer line is a chunk of its own
    (cut into ``size`` pieces)."""
    for section in sections:
        lines: list[str] = []
        start = 1
        length = 0
        for number, line in enumerate(section.text.rstrip("\n").split("\n"), start=1):
            if length + len(line) > size and lines:
                yield _chunk(lines, section.page, start, number - 1)
                lines, length, start = [], 0, number
            if len(line) > size:
                for offset in range(0, len(line), size):
                    yield Chunk(line[offset:offset + size], section.page, number, number)
                start = number + 1
                continue
            lines.append(line)
            length += len(line) + 1
        if lines:
            yield _chunk(lines, section.page, start, start + len(lines) - 1)


def _chunk(lines: list[str], page: int | None, start: int, end: int) -> Chunk:
    return Chunk("\n".join(lines), page, start, end)
