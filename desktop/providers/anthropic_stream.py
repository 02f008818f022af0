"""The Anthropic Messages stream: server-sent events in, normalized events out.

No I/O here: :class:`AnthropicStreamParser` turns the decoded events of a
``POST /v1/messages`` stream (``message_start``, ``content_block_start/delta/stop``,
``message_delta``, ``message_stop``, ``ping``, ``error``) into
:mod:`desktop.core.events`. The HTTP side lives in ``anthropic``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from desktop.core.events import (
    EndEvent,
    ReasoningComplete,
    ReasoningDelta,
    SourcesEvent,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    ToolCallStarted,
    UsageEvent,
)
from desktop.core.messages import Source, Usage, new_id
from desktop.providers.sse import ServerSentEvent
from desktop.providers.stream_parser import ParserBase

__all__ = [
    "AnthropicStreamParser",
    "normalize_stop_reason",
    "source_from_citation",
    "usage_from_anthropic",
]

_STOP = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}


def normalize_stop_reason(raw: str | None, *, had_tool_calls: bool = False) -> str:
    if not raw:
        return "tool_calls" if had_tool_calls else "stop"
    return _STOP.get(raw, raw)  # pause_turn and future reasons are kept as they are


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def usage_from_anthropic(data: Mapping[str, Any]) -> Usage:
    """Normalized usage: ``input_tokens`` counts the whole prompt (uncached + cache
    writes + cache reads, as OpenAI does); ``cached_tokens`` are the cache reads."""
    read = _int(data.get("cache_read_input_tokens"))
    written = _int(data.get("cache_creation_input_tokens"))
    details = data.get("output_tokens_details")
    thinking = _int(details.get("thinking_tokens")) if isinstance(details, dict) else 0
    return Usage(
        input_tokens=_int(data.get("input_tokens")) + written + read,
        output_tokens=_int(data.get("output_tokens")),
        reasoning_tokens=thinking,
        cached_tokens=read,
    )


def source_from_citation(citation: Any) -> Source | None:
    """A :class:`Source` for one citation (document, page, web or search result)."""
    if not isinstance(citation, dict):
        return None
    title = citation.get("title") or citation.get("document_title") or ""
    url = citation.get("url") or citation.get("source")
    snippet = citation.get("cited_text")
    return Source(
        title=title if isinstance(title, str) else "",
        url=url if isinstance(url, str) and url else None,
        snippet=snippet if isinstance(snippet, str) and snippet else None,
    )


class _Block(msgspec.Struct):
    """One open content block, by its stream ``index``."""

    kind: str
    tool_index: int = -1
    id: str = ""
    name: str = ""
    pieces: list[str] = msgspec.field(default_factory=list)  # thinking text or tool input JSON
    start_input: Any = None
    signature: str | None = None
    data: str = ""
    sources: list[Source] = msgspec.field(default_factory=list)

    def cite(self, citation: Any) -> None:
        source = source_from_citation(citation)
        if source is not None and source not in self.sources:
            self.sources.append(source)


class AnthropicStreamParser(ParserBase):
    """Messages API stream events in, normalized events out (one instance per response).

    ``feed``/``feed_event`` return the events completed by one server-sent event;
    ``finish()`` returns the terminal events once the byte stream has ended.
    ``done``: ``message_stop`` arrived.
    """

    __slots__ = (
        "_blocks",
        "_broken_call",
        "_tool_count",
        "_usage",
        "message_id",
        "stop_reason",
        "stop_sequence",
    )

    def __init__(self, provider: str = "Anthropic", *, secrets: Iterable[str | None] = ()) -> None:
        super().__init__(provider, secrets=secrets)
        self.stop_reason: str | None = None
        self.stop_sequence: str | None = None
        self.message_id = ""
        self._usage: dict[str, Any] | None = None
        self._blocks: dict[int, _Block] = {}
        self._tool_count = 0
        self._broken_call: str | None = None  # a tool_use block whose input JSON is cut

    # -- entry points

    def feed(self, sse: ServerSentEvent) -> list[StreamEvent]:
        try:
            data = json.loads(sse.data)
        except ValueError:
            if sse.event == "error":
                return self.error(sse.data or "the provider reported an error")
            if sse.data.startswith("[DONE]"):  # an OpenAI-style terminator from a proxy
                return self.finish()
            return self.error(f"malformed stream data: {sse.data[:120]!r}", "malformed_stream")
        if sse.event == "error" and not (isinstance(data, dict) and data.get("type") == "error"):
            return self.error_from_object(data)
        return self.feed_event(data) if isinstance(data, dict) else []

    def feed_event(self, data: Mapping[str, Any]) -> list[StreamEvent]:
        """One decoded event object (its ``type`` says which); unknown types are ignored."""
        if self.closed:
            return []
        kind = data.get("type")
        if kind == "content_block_delta":  # the hot path
            return self._delta(data)
        if kind == "content_block_start":
            return self._start(data)
        if kind == "content_block_stop":
            block = self._blocks.pop(_int(data.get("index")), None)
            return self._complete(block) if block is not None else []
        if kind == "message_start":
            message = data.get("message")
            if isinstance(message, dict):
                self.message_id = str(message.get("id") or "")
                self._merge_usage(message.get("usage"))
            return []
        if kind == "message_delta":
            self._message_delta(data)
            return []
        if kind == "message_stop":
            self.done = True
            return self.finish()
        if kind == "error":
            return self.error_from_object(data)
        return []  # ping, and event types added after this was written

    def feed_body(self, message: Any) -> list[StreamEvent]:
        """A whole non-streaming ``message`` (a server that ignored ``stream``)."""
        if not isinstance(message, dict) or message.get("type") == "error":
            return self.error_from_object(message)
        content = message.get("content")
        events = self.feed_event({"type": "message_start", "message": {**message, "content": []}})
        for index, block in enumerate(content if isinstance(content, list) else []):
            events += self.feed_event(
                {"type": "content_block_start", "index": index, "content_block": block}
            )
            events += self.feed_event({"type": "content_block_stop", "index": index})
        delta = {key: message.get(key) for key in ("stop_reason", "stop_sequence")}
        events += self.feed_event({"type": "message_delta", "delta": delta})
        return events + self.feed_event({"type": "message_stop"})

    def finish(self) -> list[StreamEvent]:
        """The byte stream ended (or ``message_stop`` arrived): the terminal events."""
        if self.closed:
            return []
        if not self.done:
            return self.error(
                "the stream ended unexpectedly before the response was complete",
                "stream_interrupted",
            )
        events: list[StreamEvent] = []
        for index in sorted(self._blocks):  # blocks a lenient server never stopped
            events += self._complete(self._blocks.pop(index))
        if self._broken_call is not None:
            name = self._broken_call
            if self.stop_reason == "max_tokens":
                message = f"the response reached max_tokens in the middle of tool call {name!r}"
                return events + self.error(f"{message}; raise max_tokens", "max_tokens")
            message = f"the arguments of tool call {name!r} are not valid JSON"
            return events + self.error(message, "invalid_tool_arguments")
        self.closed = True
        events += self._usage_events()
        raw = self.stop_reason
        reason = normalize_stop_reason(raw, had_tool_calls=self._tool_count > 0)
        data: dict[str, Any] = {"raw_finish_reason": raw} if raw and raw != reason else {}
        if self.stop_sequence:
            data["stop_sequence"] = self.stop_sequence
        events.append(EndEvent(reason, data))
        return events

    def error(self, message: str, code: str | None = None) -> list[StreamEvent]:
        """A terminal error (also used by the HTTP layer for mid-stream failures).

        Usage known so far (the prompt was billed) is reported just before it."""
        if self.closed:
            return []
        self.closed = True
        return [*self._usage_events(), self._error_event(message, code)]

    def error_from_object(self, data: Any) -> list[StreamEvent]:
        """``{"type": "error", "error": {"type": "overloaded_error", "message": ...}}``."""
        error = data.get("error", data) if isinstance(data, dict) else data
        message: Any = None
        code: Any = None
        if isinstance(error, dict):
            message = error.get("message")
            code = error.get("type") or error.get("code")
        elif isinstance(error, str):
            message = error
        if not isinstance(message, str) or not message:
            message = "the provider reported an error during streaming"
        return self.error(message, code=str(code) if code not in (None, "") else None)

    # -- internals

    def _usage_events(self) -> list[StreamEvent]:
        return [] if self._usage is None else [UsageEvent(usage_from_anthropic(self._usage))]

    def _merge_usage(self, usage: Any) -> None:
        """Counts are cumulative: a later value replaces an earlier one; nulls are skipped."""
        if isinstance(usage, dict):
            current = self._usage if self._usage is not None else {}
            current.update((k, v) for k, v in usage.items() if v is not None)
            self._usage = current

    def _message_delta(self, data: Mapping[str, Any]) -> None:
        delta = data.get("delta")
        if isinstance(delta, dict):
            reason, sequence = delta.get("stop_reason"), delta.get("stop_sequence")
            self.stop_reason = reason if isinstance(reason, str) else self.stop_reason
            self.stop_sequence = sequence if isinstance(sequence, str) else None
        self._merge_usage(data.get("usage"))

    def _start(self, data: Mapping[str, Any]) -> list[StreamEvent]:
        content = data.get("content_block")
        if not isinstance(content, dict):
            return []
        kind = str(content.get("type") or "")
        block = self._blocks[_int(data.get("index"))] = _Block(kind)
        if kind == "text":
            for citation in content.get("citations") or ():
                block.cite(citation)
            text = content.get("text")
            return [TextDelta(text)] if isinstance(text, str) and text else []
        if kind == "tool_use":
            block.tool_index = self._tool_count
            self._tool_count += 1
            block.id = str(content.get("id") or new_id("toolu_"))
            block.name = str(content.get("name") or "")
            block.start_input = content.get("input")
            return [ToolCallStarted(block.tool_index, block.id, block.name)]
        if kind == "thinking":
            block.signature = content.get("signature") or None
            text = content.get("thinking")
            if isinstance(text, str) and text:
                block.pieces.append(text)
                return [ReasoningDelta(text)]
        elif kind == "redacted_thinking":
            block.data = str(content.get("data") or "")
        return []

    def _delta(self, data: Mapping[str, Any]) -> list[StreamEvent]:
        delta = data.get("delta")
        if not isinstance(delta, dict):
            return []
        block = self._blocks.get(_int(data.get("index")))
        kind = block.kind if block is not None else None
        delta_type = delta.get("type")
        if delta_type == "text_delta":
            text = delta.get("text")
            if kind in ("text", None) and isinstance(text, str) and text:
                return [TextDelta(text)]
        elif delta_type == "input_json_delta":
            partial = delta.get("partial_json")
            if block is not None and kind == "tool_use" and isinstance(partial, str):
                block.pieces.append(partial)
        elif delta_type == "thinking_delta":
            text = delta.get("thinking")
            if kind in ("thinking", None) and isinstance(text, str) and text:
                if block is not None:
                    block.pieces.append(text)
                return [ReasoningDelta(text)]
        elif delta_type == "signature_delta":
            signature = delta.get("signature")
            if block is not None and kind == "thinking" and isinstance(signature, str):
                block.signature = signature  # sent whole; the official SDKs replace too
        elif delta_type == "citations_delta" and block is not None and kind == "text":
            block.cite(delta.get("citation"))
        return []

    def _complete(self, block: _Block) -> list[StreamEvent]:
        if block.kind == "text":
            return [SourcesEvent(list(block.sources))] if block.sources else []
        if block.kind == "thinking":
            return [ReasoningComplete("".join(block.pieces), block.signature)]
        if block.kind == "redacted_thinking":
            return [ReasoningComplete(redacted=True, provider_data={"data": block.data})]
        if block.kind != "tool_use":
            return []  # server tools (web search, ...) run on Anthropic's side
        arguments = "".join(block.pieces)
        if not arguments.strip():
            start = block.start_input
            arguments = json.dumps(start, ensure_ascii=False) if start else "{}"
        try:
            valid = isinstance(json.loads(arguments), dict)
        except ValueError:
            valid = False
        if not valid:  # reported at the end, when the stop reason tells why
            self._broken_call = self._broken_call or block.name or "?"
            return []
        return [ToolCallComplete(block.tool_index, block.id, block.name, arguments)]
