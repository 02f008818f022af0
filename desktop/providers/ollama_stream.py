"""Ollama's ``/api/chat`` NDJSON lines in, normalized events out.

No I/O here: :class:`OllamaStreamParser` turns the decoded lines of a streamed
``POST /api/chat`` into :mod:`desktop.core.events`. Request bodies are built in
``ollama_format``; the HTTP side lives in ``ollama``. Tool calls arrive whole, so
each one is announced and completed at once; ids the server sends are kept (and
flagged, see ``ollama_format``), others are made up.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any

from desktop.core.events import (
    EndEvent,
    ReasoningComplete,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    ToolCallStarted,
    UsageEvent,
)
from desktop.core.messages import Usage, new_id
from desktop.providers.http_errors import describe_error_body
from desktop.providers.ollama_format import SERVER_ID
from desktop.providers.stream_parser import ParserBase

__all__ = ["OllamaStreamParser", "count_of", "normalize_done_reason"]

log = logging.getLogger(__name__)

# "load"/"unload" answer a request without messages: the model was (un)loaded, no text.
_FINISH = {"stop": "stop", "length": "length", "load": "stop", "unload": "stop"}


def normalize_done_reason(raw: str | None) -> str:
    """Ollama's ``done_reason`` as a normalized finish reason (missing: ``stop``)."""
    return _FINISH.get(raw, raw) if raw else "stop"


def count_of(value: Any) -> int | None:
    """``value`` if it is an integer (a JSON number without fraction), else ``None``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class OllamaStreamParser(ParserBase):
    """``/api/chat`` NDJSON objects in, normalized events out (one instance per response).

    ``feed`` returns the events of one line, ``finish()`` the terminal events once
    the byte stream has ended. ``done``: the ``"done": true`` line arrived.
    """

    __slots__ = ("_ids", "_reasoning")

    def __init__(self, provider: str = "Ollama", *, secrets: Iterable[str | None] = ()) -> None:
        super().__init__(provider, secrets=secrets)
        self._ids: list[str] = []  # this response's tool call ids, in order
        self._reasoning: list[str] = []

    def feed(self, line: Any) -> list[StreamEvent]:
        if self.closed:
            return []
        if not isinstance(line, dict):
            return self.error(f"malformed stream data: {str(line)[:120]!r}", "malformed_stream")
        if line.get("error"):  # {"error": "..."} (sometimes with "status")
            text, code = describe_error_body(json.dumps(line).encode(), "application/json",
                                             secrets=self.secrets)
            text = text or "the server reported an error during streaming"
            return self.error(text, code, count_of(line.get("status")))
        events: list[StreamEvent] = []
        message = line.get("message")
        if isinstance(message, dict):
            self._feed_message(message, events)
        if line.get("done") is True:
            self.done = True
            events += self._end(line)
        return events

    def feed_body(self, payload: Any) -> list[StreamEvent]:
        """A whole non-streamed answer: one object with ``"done": true``."""
        return self.feed(payload) + self.finish()

    def finish(self) -> list[StreamEvent]:
        """The byte stream ended: an error unless the ``done`` line came first."""
        message = "the stream ended unexpectedly before the response was complete"
        return self.error(message, "stream_interrupted")

    def error(
        self, message: str, code: str | None = None, status: int | None = None
    ) -> list[StreamEvent]:
        """A terminal error (also used by the HTTP layer for mid-stream failures)."""
        if self.closed:
            return []
        self.closed = True
        return [self._error_event(message, code, status)]

    def _feed_message(self, message: dict[str, Any], events: list[StreamEvent]) -> None:
        thinking = message.get("thinking")
        if thinking and isinstance(thinking, str):
            self._reasoning.append(thinking)
            events.append(ReasoningDelta(thinking))
        content = message.get("content")
        if content and isinstance(content, str):
            self._close_reasoning(events)
            events.append(TextDelta(content))
        calls = message.get("tool_calls")
        if calls and isinstance(calls, list):
            self._close_reasoning(events)
            for call in calls:
                self._tool_call(call, events)

    def _tool_call(self, call: Any, events: list[StreamEvent]) -> None:
        """One whole call: every object is its own call, whatever its index or name."""
        function = call.get("function") if isinstance(call, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(function, dict) or not isinstance(name, str) or not name:
            log.warning("%s: ignoring a tool call without a name: %.200r", self.provider, call)
            return
        sent = call.get("id")
        data: dict[str, Any] = {}
        if isinstance(sent, str) and sent and sent not in self._ids:
            call_id, data[SERVER_ID] = sent, True
        else:  # none (the usual case), or a repeated one: make one up
            call_id = new_id("call_")
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps({} if arguments is None else arguments, ensure_ascii=False)
        index = len(self._ids)
        self._ids.append(call_id)
        events.append(ToolCallStarted(index, call_id, name))
        events.append(ToolCallComplete(index, call_id, name, arguments or "{}", data))

    def _close_reasoning(self, events: list[StreamEvent]) -> None:
        if self._reasoning:
            events.append(ReasoningComplete("".join(self._reasoning)))
            self._reasoning = []

    def _end(self, line: dict[str, Any]) -> list[StreamEvent]:
        self.closed = True
        events: list[StreamEvent] = []
        self._close_reasoning(events)
        prompt, output = count_of(line.get("prompt_eval_count")), count_of(line.get("eval_count"))
        if prompt is not None or output is not None:
            events.append(UsageEvent(Usage(input_tokens=prompt or 0, output_tokens=output or 0)))
        raw = line.get("done_reason")
        raw = raw if isinstance(raw, str) and raw else None
        reason = normalize_done_reason(raw)
        if reason == "stop" and self._ids:
            reason = "tool_calls"
        events.append(EndEvent(reason, {"raw_finish_reason": raw} if raw and raw != reason else {}))
        return events

