"""Builds one assistant :class:`Message` from a stream of normalized events.

Text and reasoning deltas are buffered in lists and joined only when a snapshot is
taken, so accumulation stays linear however many tokens arrive.
"""

from __future__ import annotations

import time
from typing import Any

from desktop.core.events import (
    ImageEvent,
    ReasoningComplete,
    ReasoningDelta,
    SourcesEvent,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    UsageEvent,
)
from desktop.core.images import MAX_IMAGES, event_part
from desktop.core.messages import (
    ImagePart,
    Message,
    MessageStatus,
    Part,
    ReasoningPart,
    Source,
    SourcesPart,
    TextPart,
    ToolCallPart,
    Usage,
)


class _Segment:
    """A run of consecutive deltas of one kind, or one finished part."""

    __slots__ = ("chunks", "ended", "kind", "part", "started")

    def __init__(self, kind: str, part: Part | None = None) -> None:
        self.kind = kind
        self.chunks: list[str] = []
        self.part = part
        self.started = time.monotonic()
        self.ended: float | None = None


class MessageBuilder:
    def __init__(self, *, model: str | None, provider: str | None) -> None:
        self.message = Message(role="assistant", status="streaming", model=model, provider=provider)
        self._segments: list[_Segment] = []
        self._usage: Usage | None = None
        self._sources: list[Source] = []

    @property
    def id(self) -> str:
        return self.message.id

    def _open(self, kind: str) -> _Segment:
        if self._segments and self._segments[-1].kind == kind and self._segments[-1].part is None:
            return self._segments[-1]
        seg = _Segment(kind)
        self._segments.append(seg)
        return seg

    def _close_reasoning(self) -> None:
        seg = self._segments[-1] if self._segments else None
        if seg is not None and seg.kind == "reasoning" and seg.part is None and seg.ended is None:
            seg.ended = time.monotonic()

    def feed(self, event: StreamEvent) -> None:
        """Fold one event into the message (errors and end are handled by the caller)."""
        if isinstance(event, TextDelta):
            if event.text:
                self._close_reasoning()
                self._open("text").chunks.append(event.text)
        elif isinstance(event, ReasoningDelta):
            if event.text:
                self._open("reasoning").chunks.append(event.text)
        elif isinstance(event, ReasoningComplete):
            self._complete_reasoning(event)
        elif isinstance(event, ToolCallComplete):
            self._close_reasoning()
            part = ToolCallPart(
                id=event.id,
                name=event.name,
                arguments=event.arguments,
                provider_data=dict(event.provider_data),
            )
            self._segments.append(_Segment("tool_call", part))
        elif isinstance(event, UsageEvent):
            self._usage = event.usage if self._usage is None else self._usage + event.usage
        elif isinstance(event, SourcesEvent):
            self._sources.extend(s for s in event.sources if s not in self._sources)
        elif isinstance(event, ImageEvent):
            self._add_image(event)

    def _add_image(self, event: ImageEvent) -> None:
        kept = [s.part for s in self._segments if isinstance(s.part, ImagePart)]
        if len(kept) >= MAX_IMAGES:
            return  # (an answer keeps at most MAX_IMAGES; see desktop.core.images)
        self._close_reasoning()
        size = sum(len(p.data) * 3 // 4 for p in kept)
        self._segments.append(_Segment("image", event_part(event, len(kept) + 1, size)))

    def _complete_reasoning(self, event: ReasoningComplete) -> None:
        seg = self._segments[-1] if self._segments else None
        text = event.text
        started = time.monotonic()
        if seg is not None and seg.kind == "reasoning" and seg.part is None:
            text = text or "".join(seg.chunks)
            started = seg.started
            self._segments.pop()
        part = ReasoningPart(
            text=text,
            signature=event.signature,
            redacted=event.redacted,
            provider_data=dict(event.provider_data),
            duration_s=round(time.monotonic() - started, 3),
        )
        self._segments.append(_Segment("reasoning", part))

    @property
    def has_content(self) -> bool:
        return bool(self._segments)

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        return [s.part for s in self._segments if isinstance(s.part, ToolCallPart)]

    @property
    def usage(self) -> Usage | None:
        return self._usage

    def _parts(self) -> list[Part]:
        parts: list[Part] = []
        for seg in self._segments:
            if seg.part is not None:
                parts.append(seg.part)
            elif seg.kind == "text":
                parts.append(TextPart(text="".join(seg.chunks)))
            else:
                end = seg.ended or time.monotonic()
                parts.append(
                    ReasoningPart(
                        text="".join(seg.chunks), duration_s=round(end - seg.started, 3)
                    )
                )
        if self._sources:
            parts.append(SourcesPart(sources=list(self._sources)))
        return parts

    def snapshot(self) -> Message:
        """A copy of the message as it stands now (status stays ``streaming``)."""
        return self.message.model_copy(update={"parts": self._parts(), "usage": self._usage})

    def finish(
        self,
        status: MessageStatus,
        *,
        finish_reason: str | None = None,
        error: str | None = None,
        **extra: Any,
    ) -> Message:
        self.message = self.message.model_copy(
            update={
                "parts": self._parts(),
                "usage": self._usage,
                "status": status,
                "finish_reason": finish_reason,
                "error": error,
                **extra,
            }
        )
        return self.message
