"""Chat Completions stream chunks in, normalized events out.

No I/O here: :class:`OpenAIChatStreamParser` turns decoded ``chat.completion.chunk``
objects into :mod:`desktop.core.events`. Request bodies are built in
``openai_chat_format``; the HTTP side lives in ``openai_chat``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import msgspec

from desktop.core.events import (
    EndEvent,
    ImageEvent,
    ReasoningComplete,
    ReasoningDelta,
    SourcesEvent,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    ToolCallStarted,
    UsageEvent,
)
from desktop.core.images import ImageProblem, data_url_bytes, image_event
from desktop.core.messages import Source, Usage, new_id
from desktop.providers.sse import ServerSentEvent
from desktop.providers.stream_parser import ParserBase

__all__ = ["OpenAIChatStreamParser", "normalize_finish_reason", "usage_from_openai"]

_FINISH = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
}


def normalize_finish_reason(raw: str | None) -> str:
    if not raw:
        return "stop"
    return _FINISH.get(raw, raw)


# ---------------------------------------------------------------- stream parsing


def url_citations(annotations: Any) -> list[Source]:
    """Sources of ``annotations``: ``{"type": "url_citation", "url_citation": {"url",
    "title", "content", ...}}`` items (others are left out)."""
    out: list[Source] = []
    for item in annotations if isinstance(annotations, list) else []:
        cited = item.get("url_citation") if isinstance(item, dict) else None
        if not isinstance(cited, dict):
            continue
        url = cited.get("url")
        if isinstance(url, str) and url:
            title, content = cited.get("title"), cited.get("content")
            out.append(Source(title=title if isinstance(title, str) else "", url=url,
                              snippet=content[:300] if isinstance(content, str) else None))
    return out


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) else 0


def usage_from_openai(data: dict[str, Any]) -> Usage:
    """Normalized usage; ``output_tokens`` includes reasoning tokens, as OpenAI counts them."""
    completion_details = data.get("completion_tokens_details") or {}
    prompt_details = data.get("prompt_tokens_details") or {}
    cached = _int(prompt_details.get("cached_tokens")) if isinstance(prompt_details, dict) else 0
    cost = data.get("cost")
    return Usage(
        input_tokens=_int(data.get("prompt_tokens")),
        output_tokens=_int(data.get("completion_tokens")),
        reasoning_tokens=(
            _int(completion_details.get("reasoning_tokens"))
            if isinstance(completion_details, dict)
            else 0
        ),
        cached_tokens=cached or _int(data.get("prompt_cache_hit_tokens")),  # DeepSeek
        cost=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
    )


class _ToolCall(msgspec.Struct):
    """A tool call streaming in Chat Completions chunks: its arguments so far."""

    index: int
    id: str = ""
    name: str = ""
    arguments: list[str] = msgspec.field(default_factory=list)
    started: bool = False


class OpenAIChatStreamParser(ParserBase):
    """Chat Completions chunks in, normalized events out (one instance per response).

    ``feed``/``feed_chunk`` return the events completed by one chunk; ``finish()``
    returns the terminal events once the byte stream has ended. ``done``: ``[DONE]``
    arrived.
    """

    __slots__ = (
        "_calls",
        "_had_calls",
        "_last_index",
        "_legacy_index",
        "_reasoning",
        "finish_reason",
        "usage",
    )

    def __init__(self, provider: str = "provider", *, secrets: Iterable[str | None] = ()) -> None:
        super().__init__(provider, secrets=secrets)
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self._calls: dict[int, _ToolCall] = {}
        self._had_calls = False
        self._last_index = -1
        self._legacy_index: int | None = None
        self._reasoning: list[str] = []

    # -- entry points

    def feed(self, sse: ServerSentEvent) -> list[StreamEvent]:
        data = sse.data
        if data.startswith("[DONE]"):
            self.done = True
            return self.finish()
        try:
            chunk = json.loads(data)
        except ValueError:
            if sse.event == "error":
                return self.error(data or "the provider reported an error")
            return self.error(f"malformed stream data: {data[:120]!r}", code="malformed_stream")
        if sse.event == "error":
            return self.error_from_object(chunk)
        return self.feed_chunk(chunk)

    def feed_chunk(self, chunk: Any) -> list[StreamEvent]:
        if not isinstance(chunk, dict) or self.closed:
            return []
        if chunk.get("error"):
            return self.error_from_object(chunk)
        events: list[StreamEvent] = []
        choices = chunk.get("choices")
        if choices and isinstance(choices, list):
            choice = choices[0]
            if isinstance(choice, dict) and not choice.get("index"):
                self._feed_choice(choice, events)
        usage = chunk.get("usage")
        if not usage and isinstance(chunk.get("x_groq"), dict):
            usage = chunk["x_groq"].get("usage")  # Groq's older placement
        if usage and isinstance(usage, dict):
            self.usage = usage_from_openai(usage)
        return events

    def feed_body(self, completion: Any) -> list[StreamEvent]:
        """A non-streaming ``chat.completion`` (a server that ignored ``stream``)."""
        if not isinstance(completion, dict) or completion.get("error"):
            return self.error_from_object(completion)
        choices = completion.get("choices") or [{}]
        choice = choices[0] if isinstance(choices[0], dict) else {}
        message = dict(choice.get("message") or {})
        calls = message.get("tool_calls")
        if isinstance(calls, list):
            message["tool_calls"] = [
                {**c, "index": i} for i, c in enumerate(calls) if isinstance(c, dict)
            ]
        chunk = {
            "choices": [
                {"index": 0, "delta": message, "finish_reason": choice.get("finish_reason")}
            ],
            "usage": completion.get("usage"),
        }
        return self.feed_chunk(chunk) + self.finish()

    def finish(self) -> list[StreamEvent]:
        """The byte stream ended (or ``[DONE]`` arrived): the terminal events."""
        if self.closed:
            return []
        self.closed = True
        if not self.done and self.finish_reason is None:
            events: list[StreamEvent] = []
            if self.usage is not None:
                events.append(UsageEvent(self.usage))
            message = "the stream ended unexpectedly before the response was complete"
            events.append(self._error_event(message, "stream_interrupted"))
            return events
        events = self._complete_all()
        if self.usage is not None:
            events.append(UsageEvent(self.usage))
        raw = self.finish_reason
        reason = normalize_finish_reason(raw)
        if reason == "stop" and self._had_calls:
            reason = "tool_calls"  # some local servers say "stop" after tool calls
        events.append(EndEvent(reason, {"raw_finish_reason": raw} if raw != reason else {}))
        return events

    def error_from_object(self, data: Any) -> list[StreamEvent]:
        error = data.get("error", data) if isinstance(data, dict) else data
        message: Any = None
        code: Any = None
        if isinstance(error, dict):
            message = error.get("message")
            code = error.get("code") or error.get("type")
        elif isinstance(error, str):
            message = error
        if not isinstance(message, str) or not message:
            message = "the provider reported an error during streaming"
        return self.error(message, code=str(code) if code not in (None, "") else None)

    # -- internals

    def _feed_choice(self, choice: dict[str, Any], events: list[StreamEvent]) -> None:
        delta = choice.get("delta")
        if isinstance(delta, dict) and delta:
            self._feed_delta(delta, events)
            images = delta.get("images")  # OpenRouter's image models: data URLs
            if images and isinstance(images, list):
                self._images(images, events)
            cited = url_citations(delta.get("annotations"))
            if cited:  # OpenRouter's web plugin, OpenAI's search models
                events.append(SourcesEvent(cited))
        reason = choice.get("finish_reason")
        if reason and isinstance(reason, str):
            self.finish_reason = reason
            events.extend(self._complete_all())

    def _feed_delta(self, delta: dict[str, Any], events: list[StreamEvent]) -> None:
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if reasoning and isinstance(reasoning, str):
            self._reasoning.append(reasoning)
            events.append(ReasoningDelta(reasoning))
        content = delta.get("content")
        if content and isinstance(content, str):
            if self._reasoning:
                self._close_reasoning(events)
            events.append(TextDelta(content))
        refusal = delta.get("refusal")
        if refusal and isinstance(refusal, str):
            events.append(TextDelta(refusal))
        tool_calls = delta.get("tool_calls")
        if tool_calls and isinstance(tool_calls, list):
            if self._reasoning:
                self._close_reasoning(events)
            for fragment in tool_calls:
                if isinstance(fragment, dict):
                    self._tool_fragment(fragment, fragment.get("index"), events)
        function_call = delta.get("function_call")
        if function_call and isinstance(function_call, dict):  # legacy: one call, no id
            if self._reasoning:
                self._close_reasoning(events)
            if self._legacy_index is None:
                self._legacy_index = max(self._calls, default=-1) + 1
            self._tool_fragment({"function": function_call}, self._legacy_index, events)

    def _images(self, images: list[Any], events: list[StreamEvent]) -> None:
        """``[{"type": "image_url", "image_url": {"url": "data:image/png;base64,..."}}]``."""
        if self._reasoning:
            self._close_reasoning(events)
        for item in images:
            ref = item.get("image_url") if isinstance(item, dict) else None
            url = ref.get("url") if isinstance(ref, dict) else ref
            if not isinstance(url, str):
                continue
            data = data_url_bytes(url)
            if data is None:  # a link, not data: not fetched from a stream parser
                events.append(ImageEvent(source="openrouter", problem="not_inline"))
            elif isinstance(data, ImageProblem):
                events.append(ImageEvent(source="openrouter", problem=data.code, size=data.size))
            else:
                events.append(image_event(data, "openrouter"))

    def _close_reasoning(self, events: list[StreamEvent]) -> None:
        events.append(ReasoningComplete("".join(self._reasoning)))
        self._reasoning = []

    def _tool_fragment(
        self, fragment: dict[str, Any], index: Any, events: list[StreamEvent]
    ) -> None:
        call_id = fragment.get("id")
        if not isinstance(call_id, str):
            call_id = ""
        if not isinstance(index, int) or isinstance(index, bool):
            current = self._calls.get(self._last_index)
            if current is not None and (not call_id or call_id == current.id):
                index = self._last_index
            else:
                index = max(self._calls, default=-1) + 1
        call = self._calls.get(index)
        if call is None:
            call = self._calls[index] = _ToolCall(index)
            self._had_calls = True
        self._last_index = index
        if call_id and not call.id:
            call.id = call_id
        function = fragment.get("function")
        if isinstance(function, dict):
            name = function.get("name")
            if name and isinstance(name, str) and name != call.name:
                call.name += name
            arguments = function.get("arguments")
            if arguments:
                if not isinstance(arguments, str):
                    arguments = json.dumps(arguments, ensure_ascii=False)
                call.arguments.append(arguments)
        if call.name and not call.started:
            self._start(call, events)

    def _start(self, call: _ToolCall, events: list[StreamEvent]) -> None:
        call.started = True
        if not call.id:
            call.id = new_id("call_")
        events.append(ToolCallStarted(call.index, call.id, call.name))

    def _complete_all(self) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        if self._reasoning:
            self._close_reasoning(events)
        for index in sorted(self._calls):
            call = self._calls.pop(index)
            if not call.started:
                self._start(call, events)
            arguments = "".join(call.arguments) or "{}"
            events.append(ToolCallComplete(call.index, call.id, call.name, arguments))
        return events
