"""Positions and text in a message body's stack of segments (pure functions).

A body is a column of :class:`Segment` s at known tops; a position in it is
``(segment index, text position)``, and a selection ``(seg_a, pos_a, seg_b, pos_b)``
with ``seg_b = -1`` meaning "to the end". The view, the chat's selection across
messages and copying all read the body through these.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from PySide6.QtCore import QPointF

from desktop.ui.chat.chat_selection import BodyKey, BodyRange, Endpoint
from desktop.ui.markdown.segments import Segment


def stack(segments: Sequence[Segment], tops: list[int], start: int, width: float,
          gap: int) -> int:
    """Lay out segments ``start``… at ``width`` below the ones above them (the pieces
    of one code block touch); ``tops`` is refilled from ``start`` on. Returns the
    height of the whole column."""
    del tops[start:]
    above = segments[start - 1] if start > 0 else None
    y = above.top + above.height + gap if above is not None else 0
    for segment in segments[start:]:
        if segment.block.joins_prev and tops:
            y -= gap
        segment.top = y
        tops.append(y)
        y += segment.layout(width) + gap
    return max(0, y - gap)


def segment_at(tops: Sequence[int], y: float) -> int:
    """The segment at height ``y`` (-1 when there are none)."""
    if not tops:
        return -1
    return max(0, bisect.bisect_right(tops, y) - 1)


def endpoint_at(segments: Sequence[Segment], tops: Sequence[int], key: BodyKey,
                point: QPointF) -> Endpoint:
    index = segment_at(tops, point.y())
    if index < 0:
        return (key, 0, 0)
    segment = segments[index]
    if point.y() > segment.top + segment.height:
        return (key, index, segment.end_position())
    return (key, index, segment.cursor_at(point - QPointF(0, segment.top)))


def end_endpoint(segments: Sequence[Segment], key: BodyKey) -> Endpoint:
    if not segments:
        return (key, 0, 0)
    return (key, len(segments) - 1, segments[-1].end_position())


def _spans(segments: Sequence[Segment], span: BodyRange) -> list[tuple[int, int, int | None]]:
    """``(index, start, end or None for the segment's end)`` of each segment a
    selection covers."""
    seg_a, pos_a, seg_b, pos_b = span
    if seg_b < 0:
        seg_b, pos_b = len(segments) - 1, -1
    out: list[tuple[int, int, int | None]] = []
    for index in range(max(0, seg_a), min(seg_b, len(segments) - 1) + 1):
        start = pos_a if index == seg_a else 0
        end = pos_b if index == seg_b and pos_b >= 0 else None
        out.append((index, start, end))
    return out


def segment_ranges(segments: Sequence[Segment],
                   span: BodyRange | None) -> dict[int, tuple[int, int]]:
    """The selected text range of each segment, to paint the selection."""
    if span is None:
        return {}
    return {index: (start, end if end is not None else segments[index].end_position())
            for index, start, end in _spans(segments, span)}


def text_range(segments: Sequence[Segment], span: BodyRange) -> str:
    return "\n\n".join(segments[index].plain_text(start, end)
                       for index, start, end in _spans(segments, span))


def text_in(segments: Sequence[Segment], key: BodyKey, start: Endpoint,
            end: Endpoint) -> str:
    """The text of body ``key`` between two endpoints of a selection that may begin
    or end in another body."""
    first = (start[1], start[2]) if start[0] == key else (0, 0)
    last = (end[1], end[2]) if end[0] == key else (-1, -1)
    return text_range(segments, (*first, *last))


def code_of(segments: Sequence[Segment], index: int) -> str:
    """The code of the block that segment ``index`` starts (all its pieces)."""
    pieces = [segments[index].block.code]
    for segment in segments[index + 1:]:
        if not segment.block.joins_prev:
            break
        pieces.append(segment.block.code)
    return "".join(pieces)
