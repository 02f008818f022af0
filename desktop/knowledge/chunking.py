"""A document's sections cut into chunks that keep where they are: the page (or
slide, sheet, chapter) and the line range within it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import msgspec

from desktop.documents import Section

#: Characters a chunk aims for: a paragraph or two; small enough that a hit points at
#: the right place, large enough to carry its context.
CHUNK_CHARS = 1500


class Chunk(msgspec.Struct, frozen=True):
    """A piece of a document's text, with its page and line range."""

    text: str
    page: int | None
    line_start: int  # 1-based, within the page (or the file for plain text)
    line_end: int


def chunk_sections(sections: Sequence[Section], size: int = CHUNK_CHARS) -> Iterator[Chunk]:
    """Lines gathered until ``size`` characters; a longer line is a chunk of its own
    (cut into ``size`` pieces)."""
    for section in sections:
        page = section.page
        lines = section.text.rstrip("\n").split("\n")
        first = 0  # index of the current chunk's first line
        length = 0
        for index, width in enumerate(map(len, lines)):  # one pass, no per-line lists
            if length + width > size and index > first:
                yield Chunk("\n".join(lines[first:index]), page, first + 1, index)
                first, length = index, 0
            if width > size:
                line = lines[index]
                for offset in range(0, width, size):
                    yield Chunk(line[offset:offset + size], page, index + 1, index + 1)
                first = index + 1
                continue
            length += width + 1
        if first < len(lines):
            yield Chunk("\n".join(lines[first:]), page, first + 1, len(lines))
