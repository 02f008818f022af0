"""Gemini ``streamGenerateContent`` chunks in, normalized events out.

Each SSE ``data:`` is a whole ``GenerateContentResponse``
(https://ai.google.dev/api/generate-content#generatecontentresponse): text, thought
and ``functionCall`` parts of ``candidates[0].content``, images (``inlineData``),
cumulative ``usageMetadata``,
``groundingMetadata``, and ``finishReason`` on the last chunk. Function calls arrive
whole, so each one is announced and completed at once; calls without an id get a
fresh ``call_…`` id (two calls to one function stay two calls). Where thought
signatures go is described in :mod:`desktop.providers.gemini_format`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

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
from desktop.core.images import image_event
from desktop.core.messages import Source, Usage, new_id
from desktop.providers.gemini_format import SERVER_ID, SIGNATURE, SIGNED_TEXT
from desktop.providers.sse import ServerSentEvent
from desktop.providers.stream_parser import ParserBase

__all__ = ["GeminiStreamParser", "normalize_finish_reason", "usage_from_gemini"]

_FINISH = {"STOP": "stop", "FINISH_REASON_UNSPECIFIED": "stop", "MAX_TOKENS": "length",
           "CONTINUATION": "length"}  # fmt: skip
#: Finish reasons that mean the answer is not usable: (what happened, for the message).
_FAILURES = {
    "SAFETY": "the answer was blocked for safety",
    "RECITATION": "the answer was blocked for reciting a source",
    "LANGUAGE": "the answer was in an unsupported language",
    "BLOCKLIST": "the answer contained a blocked term",
    "PROHIBITED_CONTENT": "the answer was blocked as prohibited content",
    "SPII": "the answer was blocked for containing sensitive personal information",
    "IMAGE_SAFETY": "an image was blocked for safety",
    "IMAGE_PROHIBITED_CONTENT": "an image was blocked as prohibited content",
    "IMAGE_RECITATION": "an image was blocked for reciting a source",
    "IMAGE_OTHER": "image generation failed",
    "NO_IMAGE": "no image was generated",
    "MALFORMED_FUNCTION_CALL": "the model produced a malformed function call",
    "UNEXPECTED_TOOL_CALL": "the model called a tool that was not offered",
    "TOO_MANY_TOOL_CALLS": "the model made too many tool calls",
    "MISSING_THOUGHT_SIGNATURE": "the request lacked a thought signature",
    "MALFORMED_RESPONSE": "the response was malformed",
    "ESCALATION": "the request was filtered by an escalation rule",
    "PUP_LIMITED_DISABLED": "the account is limited for policy violations",
    "MODEL_ARMOR": "the answer was blocked by Model Armor",
    "OTHER": "for an unspecified reason",
}
_PROMPT_BLOCKS = {
    "SAFETY": "it was flagged for safety",
    "BLOCKLIST": "it contains a blocked term",
    "PROHIBITED_CONTENT": "it may contain prohibited content",
    "IMAGE_SAFETY": "an image in it was flagged for safety",
    "JAILBREAK": "it looks like a jailbreak attempt",
    "MODEL_ARMOR": "Model Armor blocked it",
}


def normalize_finish_reason(raw: str | None) -> str:
    """``STOP`` -> ``stop``, ``MAX_TOKENS`` -> ``length``; others lower-cased."""
    if not raw:
        return "stop"
    return _FINISH.get(raw, raw.lower())


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def usage_from_gemini(data: dict[str, Any]) -> Usage:
    """Normalized usage. As for OpenAI, ``output_tokens`` includes the thinking tokens
    (``candidatesTokenCount + thoughtsTokenCount``) and ``input_tokens`` the tool-use
    prompt (search results), so ``total_tokens`` equals Gemini's ``totalTokenCount``."""
    thoughts = _int(data.get("thoughtsTokenCount"))
    return Usage(
        input_tokens=_int(data.get("promptTokenCount")) + _int(data.get("toolUsePromptTokenCount")),
        output_tokens=_int(data.get("candidatesTokenCount")) + thoughts,
        reasoning_tokens=thoughts,
        cached_tokens=_int(data.get("cachedContentTokenCount")),
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


class GeminiStreamParser(ParserBase):
    """``GenerateContentResponse`` chunks in, events out (one instance per response).

    ``feed``/``feed_chunk`` return the events completed by one chunk;
    ``finish()`` returns the terminal events once the byte stream has ended (Gemini
    sends no ``[DONE]``: the stream is complete when a ``finishReason`` was seen).
    After a terminal event (``closed`` is true) the caller should stop reading.
    """

    __slots__ = (
        "_had_calls",
        "_next_index",
        "_reasoning",
        "_server_ids",
        "_sources",
        "finish_message",
        "finish_reason",
        "provider_data",
        "usage",
    )

    def __init__(self, provider: str = "Gemini", *, secrets: Iterable[str | None] = ()) -> None:
        super().__init__(provider, secrets=secrets)
        self.finish_reason: str | None = None  # raw, e.g. "STOP"
        self.finish_message: str | None = None
        self.usage: Usage | None = None
        # gemini_response_id, model_version (not "response_id": the Responses API adapter
        # reads that key to chain requests)
        self.provider_data: dict[str, Any] = {}
        self._had_calls = False
        self._next_index = 0
        self._reasoning: list[str] = []  # unsigned thought text not yet completed
        self._server_ids: set[str] = set()
        self._sources: list[Source] = []

    # -- entry points

    def feed(self, sse: ServerSentEvent) -> list[StreamEvent]:
        try:
            chunk = json.loads(sse.data)
        except ValueError:
            if sse.data.startswith("[DONE]"):  # an OpenAI-style terminator from a proxy
                return []
            if sse.event == "error":
                return self.error(sse.data or "the provider reported an error")
            return self.error(f"malformed stream data: {sse.data[:120]!r}", "malformed_stream")
        return self.feed_chunk(chunk)

    def feed_body(self, payload: Any) -> list[StreamEvent]:
        """A JSON body instead of SSE: a proxy that dropped ``alt=sse`` sends the whole
        stream as one array (or one response)."""
        return self.feed_chunk(payload) + self.finish()

    def feed_chunk(self, chunk: Any) -> list[StreamEvent]:
        """One response chunk (a list of chunks, as the non-SSE stream sends, works too)."""
        if isinstance(chunk, list):
            return [event for item in chunk for event in self.feed_chunk(item)]
        if not isinstance(chunk, dict) or self.closed:
            return []
        if "error" in chunk:
            return self.error_from_object(chunk)
        events: list[StreamEvent] = []
        candidates = chunk.get("candidates")
        if isinstance(candidates, list):
            for candidate in candidates:  # one is asked for; others (index > 0) are ignored
                if isinstance(candidate, dict) and not candidate.get("index"):
                    self._feed_candidate(candidate, events)
                    break
        usage = chunk.get("usageMetadata")
        if isinstance(usage, dict):
            self.usage = usage_from_gemini(usage)  # cumulative: the last one counts
        for key, name in (("responseId", "gemini_response_id"), ("modelVersion", "model_version")):
            if isinstance(chunk.get(key), str):
                self.provider_data[name] = chunk[key]
        feedback = chunk.get("promptFeedback")
        if isinstance(feedback, dict) and feedback.get("blockReason"):
            reason = str(feedback["blockReason"])
            why = _PROMPT_BLOCKS.get(reason, "for an unspecified reason")
            detail = _text(feedback.get("blockReasonMessage"))
            message = f"Gemini blocked the prompt: {why} ({reason})" + (
                f": {detail}" if detail else ""
            )
            return events + self._usage_events() + self.error(message, "prompt_blocked")
        return events

    def finish(self) -> list[StreamEvent]:
        """The byte stream ended: the terminal events."""
        if self.closed:
            return []
        events = self._close_reasoning()
        raw = self.finish_reason
        if raw is None:
            message = "the stream ended unexpectedly before the response was complete"
            return events + self.interrupted(message, "stream_interrupted")
        if raw in _FAILURES:
            message = f"Gemini stopped: {_FAILURES[raw]} ({raw})"
            if self.finish_message:
                message += f": {self.finish_message}"
            return events + self._usage_events() + self.error(message, raw)
        events += self._usage_events()
        reason = normalize_finish_reason(raw)
        if reason == "stop" and self._had_calls:
            reason = "tool_calls"
        self.closed = True
        events.append(EndEvent(reason, {"raw_finish_reason": raw, **self.provider_data}))
        return events

    def interrupted(self, message: str, code: str | None = None) -> list[StreamEvent]:
        """The stream broke off: what arrived is completed, usage so far, then the error.
        After a ``finishReason`` the answer was complete and only the close failed."""
        if self.closed:
            return []
        if self.finish_reason is not None:
            return self.finish()
        return self._close_reasoning() + self._usage_events() + self.error(message, code)

    def error_from_object(self, data: Any) -> list[StreamEvent]:
        """``{"error": {"code", "message", "status"}}`` sent inside the stream."""
        error = data.get("error", data) if isinstance(data, dict) else data
        message: Any = error.get("message") if isinstance(error, dict) else error
        code: Any = (error.get("status") or error.get("code")) if isinstance(error, dict) else None
        if not isinstance(message, str) or not message:
            message = "the provider reported an error during streaming"
        return self.error(message, str(code) if code not in (None, "") else None)

    # -- internals

    def _usage_events(self) -> list[StreamEvent]:
        return [UsageEvent(self.usage)] if self.usage is not None else []

    def _close_reasoning(self) -> list[StreamEvent]:
        if not self._reasoning:
            return []
        text = "".join(self._reasoning)
        self._reasoning = []
        return [ReasoningComplete(text)]

    def _feed_candidate(self, candidate: dict[str, Any], events: list[StreamEvent]) -> None:
        content = candidate.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        if isinstance(parts, list):
            for part in parts:
                if isinstance(part, dict):
                    self._feed_part(part, events)
        grounding = candidate.get("groundingMetadata")
        if isinstance(grounding, dict):
            self._feed_grounding(grounding, events)
        reason = candidate.get("finishReason")
        if isinstance(reason, str) and reason:
            self.finish_reason = reason
            self.finish_message = _text(candidate.get("finishMessage")) or None
            events.extend(self._close_reasoning())

    def _feed_part(self, part: dict[str, Any], events: list[StreamEvent]) -> None:
        signature = part.get(SIGNATURE)
        signature = signature if isinstance(signature, str) and signature else None
        text = _text(part.get("text"))
        if part.get("thought") is True:
            if signature is None:
                if text:
                    self._reasoning.append(text)
                    events.append(ReasoningDelta(text))
                return
            events.extend(self._close_reasoning())  # the signed part stays a part of its own
            if text:
                events.append(ReasoningDelta(text))
            events.append(ReasoningComplete(text, provider_data={SIGNATURE: signature}))
            return
        call = part.get("functionCall")
        if isinstance(call, dict):
            events.extend(self._close_reasoning())
            self._function_call(call, signature, events)
        elif "text" in part:
            if text or signature:
                events.extend(self._close_reasoning())
            if text:
                events.append(TextDelta(text))
            if signature:
                data = {SIGNATURE: signature, SIGNED_TEXT: len(text)}
                events.append(ReasoningComplete("", provider_data=data))
        elif isinstance(part.get("inlineData"), dict):  # an image model's picture
            events.extend(self._close_reasoning())
            self._image(part["inlineData"], signature, events)
        # Other parts (executableCode, ...) are not asked for and not shown.

    @staticmethod
    def _image(inline: dict[str, Any], signature: str | None, events: list[StreamEvent]) -> None:
        kind = _text(inline.get("mimeType"))
        if kind.startswith("image/"):
            event = image_event(_text(inline.get("data")), "gemini", kind)
            if signature and not event.problem:  # (Gemini 3 edits need it back)
                event.provider_data[SIGNATURE] = signature
            events.append(event)

    def _function_call(
        self, call: dict[str, Any], signature: str | None, events: list[StreamEvent]
    ) -> None:
        server_id = _text(call.get("id"))
        if server_id in self._server_ids:
            return  # the same call repeated
        args = call.get("args")
        data: dict[str, Any] = {}
        if server_id:
            self._server_ids.add(server_id)
            data[SERVER_ID] = server_id
        if signature:
            data[SIGNATURE] = signature
        call_id = server_id or new_id("call_")
        name = _text(call.get("name"))
        arguments = json.dumps(args if isinstance(args, dict) else {}, ensure_ascii=False)
        index = self._next_index
        self._next_index += 1
        self._had_calls = True
        events.append(ToolCallStarted(index, call_id, name))
        events.append(ToolCallComplete(index, call_id, name, arguments, data))

    def _feed_grounding(self, grounding: dict[str, Any], events: list[StreamEvent]) -> None:
        chunks = grounding.get("groundingChunks")
        new: list[Source] = []
        for chunk in chunks if isinstance(chunks, list) else ():
            if not isinstance(chunk, dict):
                continue
            ref = chunk.get("web") or chunk.get("retrievedContext")
            if not isinstance(ref, dict) or not (ref.get("uri") or ref.get("title")):
                continue
            source = Source(title=_text(ref.get("title")), url=_text(ref.get("uri")) or None)
            if source not in self._sources:
                self._sources.append(source)
                new.append(source)
        if new:
            events.append(SourcesEvent(new))
