"""Parsing the OpenAI Responses API event stream into normalized events.

No I/O here: :class:`OpenAIResponsesStreamParser` turns decoded ``response.*`` events
(``response.output_text.delta``, ``response.output_item.done``, ...) into
:mod:`desktop.core.events`. Request bodies are built in ``openai_responses_format``.
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
from desktop.core.images import image_event
from desktop.core.messages import Source, Usage
from desktop.providers.sse import ServerSentEvent
from desktop.providers.stream_parser import ParserBase

__all__ = ["SUMMARY_SEPARATOR", "OpenAIResponsesStreamParser", "usage_from_responses"]

SUMMARY_SEPARATOR = "\n\n"  # between the parts of one reasoning summary
_INCOMPLETE = {"max_output_tokens": "length", "content_filter": "content_filter"}


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def usage_from_responses(data: dict[str, Any]) -> Usage:
    """Normalized usage; ``output_tokens`` includes reasoning tokens, as OpenAI counts them."""
    return Usage(
        input_tokens=_int(data.get("input_tokens")),
        output_tokens=_int(data.get("output_tokens")),
        reasoning_tokens=_int(_dict(data.get("output_tokens_details")).get("reasoning_tokens")),
        cached_tokens=_int(_dict(data.get("input_tokens_details")).get("cached_tokens")),
    )


class _Call(msgspec.Struct):
    """A function call streaming in Responses events: its arguments so far."""

    index: int
    call_id: str = ""
    name: str = ""
    item_id: str = ""
    arguments: list[str] = msgspec.field(default_factory=list)
    started: bool = False


class _Reasoning(msgspec.Struct):
    """One reasoning item's summary parts so far, and whether any of it streamed."""

    parts: dict[int, str] = msgspec.field(default_factory=dict)  # summary_index -> text so far
    streamed: bool = False


class OpenAIResponsesStreamParser(ParserBase):
    """Responses stream events in, normalized events out (one instance per response).

    ``feed``/``feed_event`` return the events completed by one stream event;
    ``finish()`` returns the terminal events once the byte stream has ended. Items
    are keyed by ``output_index``; events of unknown types are ignored. ``done``: a
    ``response.completed``/``.incomplete``/``.failed`` event arrived.
    """

    __slots__ = ("_call_count", "_calls", "_done", "_had_calls", "_reasoning", "_sources",
                 "_streamed_text", "response_id", "stored", "usage")  # fmt: skip

    def __init__(
        self,
        provider: str = "provider",
        *,
        secrets: Iterable[str | None] = (),
        stored: bool = True,
    ) -> None:
        super().__init__(provider, secrets=secrets)
        self.stored = stored  # the request had store != false: the id can be chained
        self.response_id: str | None = None
        self.usage: Usage | None = None
        self._calls: dict[Any, _Call] = {}
        self._call_count = 0
        self._had_calls = False  # a ToolCallComplete was produced
        self._reasoning: dict[Any, _Reasoning] = {}
        self._streamed_text: set[tuple[Any, Any]] = set()  # (output_index, content_index)
        self._done: set[Any] = set()  # output indexes whose item is complete
        self._sources: set[str] = set()

    # -- entry points

    def feed(self, sse: ServerSentEvent) -> list[StreamEvent]:
        data = sse.data
        if data.startswith("[DONE]"):  # not sent by OpenAI; some compatible servers do
            return self.finish()
        try:
            event = json.loads(data)
        except ValueError:
            if sse.event == "error":
                return self.error(data or "the provider reported an error")
            return self.error(f"malformed stream data: {data[:120]!r}", code="malformed_stream")
        if isinstance(event, dict) and sse.event == "error" and "type" not in event:
            return self.error_from_object(event)
        return self.feed_event(event)

    def feed_event(self, event: Any) -> list[StreamEvent]:
        if not isinstance(event, dict) or self.closed:
            return []
        kind = _str(event.get("type"))
        handler = _HANDLERS.get(kind)
        if handler is None:
            return self.error_from_object(event) if not kind and event.get("error") else []
        events: list[StreamEvent] = []
        handler(self, event, events)
        return events

    def feed_body(self, response: Any) -> list[StreamEvent]:
        """A whole (non-streamed) ``response`` object: a server that ignored ``stream``."""
        if not isinstance(response, dict):
            return self.error("the server sent an unexpected response", "malformed_stream")
        if "status" not in response and response.get("error"):  # an error body, not a response
            return self.error_from_object(response)
        kind = {"incomplete": "response.incomplete", "failed": "response.failed"}
        event_type = kind.get(_str(response.get("status")), "response.completed")
        return self.feed_event({"type": event_type, "response": response}) + self.finish()

    def finish(self) -> list[StreamEvent]:
        """The byte stream ended: an error unless a terminal event already arrived."""
        message = "the stream ended unexpectedly before the response was complete"
        return self.error(message, "stream_interrupted")

    def error_from_object(self, data: Any) -> list[StreamEvent]:
        """``{"message", "code"}``, or the same nested under ``"error"``."""
        nested = data.get("error") if isinstance(data, dict) else data
        if isinstance(nested, dict):
            error, code = nested, nested.get("code") or nested.get("type")
        elif isinstance(data, dict):  # the documented flat `error` event: type is "error"
            error, code = data, data.get("code")
        else:
            error, code = {"message": nested}, None
        message = error.get("message")
        if not isinstance(message, str) or not message:
            message = "the provider reported an error during streaming"
        return self.error(message, code=str(code) if code not in (None, "") else None)

    # -- lifecycle

    def _created(self, event: dict[str, Any], events: list[StreamEvent]) -> None:
        response_id = _dict(event.get("response")).get("id")
        if isinstance(response_id, str) and response_id:
            self.response_id = response_id

    def _terminal(self, event: dict[str, Any], events: list[StreamEvent]) -> None:
        """``response.completed`` / ``.incomplete`` / ``.failed``."""
        self.done = True
        response = _dict(event.get("response"))
        self._created(event, events)
        output = response.get("output")
        for index, item in enumerate(output if isinstance(output, list) else []):
            if index not in self._done:  # items not streamed (or cut short) come from here
                self._item_done(index, _dict(item), events)
        completed = event.get("type") == "response.completed"
        for key in list(self._calls):  # started, never done: whole only if completed
            call = self._calls.pop(key)
            if completed:
                self._complete_call(call, "", events)
        usage = response.get("usage")
        if isinstance(usage, dict):
            self.usage = usage_from_responses(usage)
            events.append(UsageEvent(self.usage))
        if event.get("type") == "response.failed":
            error = response.get("error")
            events.extend(self.error_from_object(error or "the response failed"))
            return
        if event.get("type") == "response.incomplete":
            reason = _str(_dict(response.get("incomplete_details")).get("reason"))
            finish = _INCOMPLETE.get(reason, reason or "length")
        else:
            finish = "tool_calls" if self._had_calls else "stop"
        data: dict[str, Any] = {}
        if self.response_id:
            data["response_id"] = self.response_id
            if not self.stored:
                data["stored"] = False
        self.closed = True
        events.append(EndEvent(finish, data))

    # -- output items

    def _item_added(self, event: dict[str, Any], events: list[StreamEvent]) -> None:
        key = event.get("output_index")
        item = _dict(event.get("item"))
        if item.get("type") == "function_call":
            call = self._calls[key] = _Call(self._call_count)
            self._call_count += 1
            self._update_call(call, item)
            if call.name:
                self._start(call, events)
        elif item.get("type") == "reasoning":
            self._reasoning[key] = _Reasoning()

    def _item_event_done(self, event: dict[str, Any], events: list[StreamEvent]) -> None:
        self._item_done(event.get("output_index"), _dict(event.get("item")), events)

    def _item_done(self, key: Any, item: dict[str, Any], events: list[StreamEvent]) -> None:
        if key is not None and key in self._done:  # a repeated output_item.done
            return
        self._done.add(key)
        kind = item.get("type")
        if kind == "function_call":
            call = self._calls.pop(key, None)
            if item.get("status") == "incomplete":  # cut off: its arguments are partial
                return
            if call is None:
                call = _Call(self._call_count)
                self._call_count += 1
            self._update_call(call, item)
            self._complete_call(call, _str(item.get("arguments")), events)
        elif kind == "reasoning":
            self._reasoning_done(key, item, events)
        elif kind == "image_generation_call":  # the image_generation tool's picture
            result = item.get("result")
            if isinstance(result, str) and result:
                media = "image/" + (_str(item.get("output_format")) or "png")
                events.append(image_event(result, "responses", media))
            elif item.get("status") == "failed":
                events.append(ImageEvent(source="responses", problem="failed"))
        elif kind == "message":
            for index, raw in enumerate(item.get("content") or []):
                part = _dict(raw)
                text = _str(part.get("text") or part.get("refusal"))
                if text and (key, index) not in self._streamed_text:
                    self._streamed_text.add((key, index))
                    events.append(TextDelta(text))
                self._add_sources(part.get("annotations"), events)

    # -- text

    def _text_delta(self, event: dict[str, Any], events: list[StreamEvent]) -> None:
        delta = event.get("delta")
        if isinstance(delta, str) and delta:
            self._streamed_text.add((event.get("output_index"), event.get("content_index")))
            events.append(TextDelta(delta))

    def _text_done(self, event: dict[str, Any], events: list[StreamEvent]) -> None:
        key = (event.get("output_index"), event.get("content_index"))
        text = _str(event.get("text") or event.get("refusal"))
        if text and key not in self._streamed_text:  # a server that sent no deltas
            self._streamed_text.add(key)
            events.append(TextDelta(text))

    def _annotation(self, event: dict[str, Any], events: list[StreamEvent]) -> None:
        self._add_sources([event.get("annotation")], events)

    def _add_sources(self, annotations: Any, events: list[StreamEvent]) -> None:
        sources: list[Source] = []
        for raw in annotations if isinstance(annotations, list) else []:
            annotation = _dict(raw)
            url = _str(annotation.get("url"))
            if annotation.get("type") == "url_citation" and url and url not in self._sources:
                self._sources.add(url)
                sources.append(Source(title=_str(annotation.get("title")), url=url))
        if sources:
            events.append(SourcesEvent(sources))

    # -- function calls

    @staticmethod
    def _update_call(call: _Call, item: dict[str, Any]) -> None:
        call.call_id = call.call_id or _str(item.get("call_id"))
        call.name = call.name or _str(item.get("name"))
        call.item_id = call.item_id or _str(item.get("id"))

    def _start(self, call: _Call, events: list[StreamEvent]) -> None:
        call.started = True
        events.append(ToolCallStarted(call.index, call.call_id or call.item_id, call.name))

    def _arguments_delta(self, event: dict[str, Any], events: list[StreamEvent]) -> None:
        call = self._calls.get(event.get("output_index"))
        delta = event.get("delta")
        if call is not None and isinstance(delta, str):
            call.arguments.append(delta)

    def _arguments_done(self, event: dict[str, Any], events: list[StreamEvent]) -> None:
        call = self._calls.get(event.get("output_index"))
        arguments = event.get("arguments")
        if call is not None and isinstance(arguments, str):
            call.arguments = [arguments]

    def _complete_call(self, call: _Call, arguments: str, events: list[StreamEvent]) -> None:
        if not call.started:
            self._start(call, events)
        data = {"item_id": call.item_id} if call.item_id else {}
        arguments = arguments or "".join(call.arguments) or "{}"
        call_id = call.call_id or call.item_id
        self._had_calls = True
        events.append(ToolCallComplete(call.index, call_id, call.name, arguments, data))

    # -- reasoning

    def _summary_delta(self, event: dict[str, Any], events: list[StreamEvent]) -> None:
        state = self._reasoning.setdefault(event.get("output_index"), _Reasoning())
        delta = event.get("delta")
        if not isinstance(delta, str) or not delta:
            return
        index = _int(event.get("summary_index"))
        if index not in state.parts and any(state.parts.values()):
            delta = SUMMARY_SEPARATOR + delta  # a new summary part: a new paragraph
        state.parts[index] = state.parts.get(index, "") + delta
        state.streamed = True
        events.append(ReasoningDelta(delta))

    def _summary_done(self, event: dict[str, Any], events: list[StreamEvent]) -> None:
        state = self._reasoning.get(event.get("output_index"))
        text = _str(event.get("text"))
        index = _int(event.get("summary_index"))
        if text and (state is None or not state.parts.get(index)):  # no deltas were sent
            self._summary_delta({**event, "delta": text}, events)

    def _reasoning_text_delta(self, event: dict[str, Any], events: list[StreamEvent]) -> None:
        """Raw reasoning (open-weight models behind compatible servers)."""
        delta = event.get("delta")
        if isinstance(delta, str) and delta:
            self._reasoning.setdefault(event.get("output_index"), _Reasoning()).streamed = True
            events.append(ReasoningDelta(delta))

    def _reasoning_done(self, key: Any, item: dict[str, Any], events: list[StreamEvent]) -> None:
        state = self._reasoning.pop(key, None)
        texts = [_str(_dict(s).get("text")) for s in item.get("summary") or []]
        text = SUMMARY_SEPARATOR.join(t for t in texts if t)
        if not text:
            text = "".join(_str(_dict(c).get("text")) for c in item.get("content") or [])
        data: dict[str, Any] = {}
        if isinstance(item.get("id"), str):
            data["id"] = item["id"]
        encrypted = item.get("encrypted_content")
        if isinstance(encrypted, str) and encrypted:
            data["encrypted_content"] = encrypted
        if text or "encrypted_content" in data or (state is not None and state.streamed):
            events.append(ReasoningComplete(text, provider_data=data))

    # -- errors

    def _error_item(self, event: dict[str, Any], events: list[StreamEvent]) -> None:
        events.extend(self.error_from_object(event))


_HANDLERS = {
    "response.created": OpenAIResponsesStreamParser._created,
    "response.in_progress": OpenAIResponsesStreamParser._created,
    "response.queued": OpenAIResponsesStreamParser._created,
    "response.completed": OpenAIResponsesStreamParser._terminal,
    "response.incomplete": OpenAIResponsesStreamParser._terminal,
    "response.failed": OpenAIResponsesStreamParser._terminal,
    "response.output_item.added": OpenAIResponsesStreamParser._item_added,
    "response.output_item.done": OpenAIResponsesStreamParser._item_event_done,
    "response.output_text.delta": OpenAIResponsesStreamParser._text_delta,
    "response.refusal.delta": OpenAIResponsesStreamParser._text_delta,
    "response.output_text.done": OpenAIResponsesStreamParser._text_done,
    "response.refusal.done": OpenAIResponsesStreamParser._text_done,
    "response.output_text.annotation.added": OpenAIResponsesStreamParser._annotation,
    "response.function_call_arguments.delta": OpenAIResponsesStreamParser._arguments_delta,
    "response.function_call_arguments.done": OpenAIResponsesStreamParser._arguments_done,
    "response.reasoning_summary_text.delta": OpenAIResponsesStreamParser._summary_delta,
    "response.reasoning_summary_text.done": OpenAIResponsesStreamParser._summary_done,
    "response.reasoning_text.delta": OpenAIResponsesStreamParser._reasoning_text_delta,
    "error": OpenAIResponsesStreamParser._error_item,
}
