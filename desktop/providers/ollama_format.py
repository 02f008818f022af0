"""Ollama's ``/api/chat`` wire format: request bodies out, NDJSON lines in.

No I/O here (the HTTP side lives in ``ollama``). Follows Ollama's docs/api.md:
messages carry ``thinking``, ``images`` (base64), ``tool_calls`` with arguments as
a JSON *object*, and tool results as ``{"role": "tool", "content", "tool_name"}``.

Tool calls arrive whole, usually without ids and often all with ``index: 0``:
every call object is its own call, so two calls to the same tool in one message
stay two calls with distinct ids. Ids a newer server sends (``call_…``) are kept
and sent back (``id`` / ``tool_call_id``); ids made up here are not, so older
servers get exactly the documented shapes.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from typing import Any

from desktop.core.errors import ProviderError
from desktop.core.events import (
    EndEvent,
    ErrorEvent,
    ReasoningComplete,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    ToolCallStarted,
    UsageEvent,
)
from desktop.core.messages import ImagePart, Message, ToolCallPart, Usage, new_id
from desktop.core.provider import ChatRequest
from desktop.providers.http_errors import describe_error_body
from desktop.providers.retry import redact

__all__ = [
    "SERVER_ID",
    "OllamaStreamParser",
    "build_chat_body",
    "count_of",
    "message_to_ollama",
    "normalize_done_reason",
]

log = logging.getLogger(__name__)

SERVER_ID = "ollama_server_id"  # provider_data flag: the call id came from the server
_THINK_LEVELS = ("low", "medium", "high", "max")
# "load"/"unload" answer a request without messages: the model was (un)loaded, no text.
_FINISH = {"stop": "stop", "length": "length", "load": "stop", "unload": "stop"}


def normalize_done_reason(raw: str | None) -> str:
    """Ollama's ``done_reason`` as a normalized finish reason (missing: ``stop``)."""
    return _FINISH.get(raw, raw) if raw else "stop"


# ---------------------------------------------------------------- request body


def _arguments(text: str) -> dict[str, Any]:
    """Ollama takes arguments as a JSON object; unreadable text becomes ``{}``."""
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _tool_call(part: ToolCallPart) -> dict[str, Any]:
    function = {"name": part.name, "arguments": _arguments(part.arguments)}
    if part.provider_data.get(SERVER_ID):
        return {"id": part.id, "function": function}
    return {"function": function}


def message_to_ollama(message: Message, server_ids: set[str]) -> list[dict[str, Any]]:
    """The ``/api/chat`` messages for one typed message (zero, one or several)."""
    out: list[dict[str, Any]] = []
    for result in message.tool_results:
        out.append({"role": "tool", "content": result.content, "tool_name": result.name})
        if result.tool_call_id in server_ids:
            out[-1]["tool_call_id"] = result.tool_call_id
    if message.role == "tool":
        return out
    entry: dict[str, Any] = {"role": message.role, "content": message.text}
    if message.role == "assistant":
        if message.reasoning:
            entry["thinking"] = message.reasoning
        if message.tool_calls:
            entry["tool_calls"] = [_tool_call(p) for p in message.tool_calls]
        if len(entry) > 2 or message.text:  # an empty answer (stopped at once) is dropped
            out.append(entry)
        return out
    images = [p.data for p in message.parts if isinstance(p, ImagePart) and p.data]
    if images:
        entry["images"] = images
    if images or message.text or not out:
        out.append(entry)
    return out


def _think(request: ChatRequest, options: Mapping[str, Any]) -> bool | str | None:
    """The provider's ``think`` option, switched on by ``request.reasoning`` (at the
    level of ``request.reasoning_effort`` when it names one); ``None``: server default."""
    think = options.get("think")
    if request.reasoning:
        if request.reasoning_effort in _THINK_LEVELS:
            think = request.reasoning_effort
        elif not isinstance(think, str):
            think = True
    return think if isinstance(think, bool | str) else None


def build_chat_body(
    request: ChatRequest, options: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON body of a streaming ``POST /api/chat``.

    ``options`` are the provider's (see :class:`OllamaProvider`). Keys of
    ``request.extra`` override the result; an extra key set to ``None`` removes it.
    """
    options = options or {}
    server_ids = {p.id for m in request.messages for p in m.tool_calls
                  if p.provider_data.get(SERVER_ID)}  # fmt: skip
    messages = [{"role": "system", "content": request.system}] if request.system else []
    for message in request.messages:
        messages.extend(message_to_ollama(message, server_ids))
    body: dict[str, Any] = {"model": request.model, "messages": messages, "stream": True}
    if request.tools:
        body["tools"] = [
            {"type": "function",
             "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in request.tools
        ]  # fmt: skip
    think = _think(request, options)
    if think is not None:
        body["think"] = think
    model_options = dict(options.get("model_options") or {})
    for key, value in (("num_ctx", options.get("num_ctx")), ("temperature", request.temperature),
                       ("num_predict", request.max_tokens)):  # fmt: skip
        if value is not None:
            model_options[key] = value
    if model_options:
        body["options"] = model_options
    if options.get("keep_alive") is not None:
        body["keep_alive"] = options["keep_alive"]
    for key, extra in request.extra.items():
        if extra is None:
            body.pop(key, None)
        else:
            body[key] = extra
    return body


# ---------------------------------------------------------------- stream parsing


def count_of(value: Any) -> int | None:
    """``value`` if it is an integer (a JSON number without fraction), else ``None``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class OllamaStreamParser:
    """``/api/chat`` NDJSON objects in, normalized events out (one instance per response).

    ``feed`` returns the events of one line, ``finish()`` the terminal events once
    the byte stream has ended. After a terminal event ``closed`` is true.
    """

    __slots__ = ("_ids", "_reasoning", "closed", "done", "provider", "secrets")

    def __init__(self, provider: str = "Ollama", *, secrets: Iterable[str | None] = ()) -> None:
        self.provider = provider
        self.secrets = tuple(secrets)  # masked out of error messages
        self.done = False  # the ``"done": true`` line arrived
        self.closed = False  # a terminal event (EndEvent/ErrorEvent) was produced
        self._ids: list[str] = []  # this response's tool call ids, in order
        self._reasoning: list[str] = []

    def feed(self, line: Any) -> list[StreamEvent]:
        if self.closed:
            return []
        if not isinstance(line, dict):
            return self.error(f"malformed stream data: {str(line)[:120]!r}", "malformed_stream")
        if line.get("error"):  # {"error": "..."} (sometimes with "status")
            text, code = describe_error_body(json.dumps(line).encode(), "application/json")
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
        text = str(ProviderError(redact(message, self.secrets), provider=self.provider))
        return [ErrorEvent(text, code=code, status=status, provider=self.provider)]

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

