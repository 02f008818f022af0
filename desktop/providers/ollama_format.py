"""Ollama's ``/api/chat`` request side: typed messages and options out as JSON.

No I/O here (the HTTP side lives in ``ollama``, the NDJSON lines are parsed in
``ollama_stream``). Follows Ollama's docs/api.md:
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
from typing import Any

from desktop.core.messages import ImagePart, Message, ToolCallPart
from desktop.core.provider import ChatRequest
from desktop.core.provider_options import OllamaOptions

__all__ = ["SERVER_ID", "build_ollama_body", "message_to_ollama"]

SERVER_ID = "ollama_server_id"  # provider_data flag: the call id came from the server
_THINK_LEVELS = ("low", "medium", "high", "max")


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


def _think(request: ChatRequest, options: OllamaOptions) -> bool | str | None:
    """The provider's ``think`` option, switched on by ``request.reasoning`` (at the
    level of ``request.reasoning_effort`` when it names one); ``None``: server default."""
    think: bool | str | None = options.think
    if request.reasoning:
        if request.reasoning_effort in _THINK_LEVELS:
            think = request.reasoning_effort
        elif not isinstance(think, str):
            think = True
    return think


def build_ollama_body(request: ChatRequest, options: OllamaOptions | None = None) -> dict[str, Any]:
    """The JSON body of a streaming ``POST /api/chat``.

    ``options`` are the provider's (see :class:`OllamaProvider`). Keys of
    ``request.extra`` override the result; an extra key set to ``None`` removes it.
    """
    options = options or OllamaOptions()
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
    model_options = dict(options.model_options)
    for key, value in (("num_ctx", options.num_ctx), ("temperature", request.temperature),
                       ("num_predict", request.max_tokens)):  # fmt: skip
        if value is not None:
            model_options[key] = value
    if model_options:
        body["options"] = model_options
    if options.keep_alive is not None:
        body["keep_alive"] = options.keep_alive
    for key, extra in request.extra.items():
        if extra is None:
            body.pop(key, None)
        else:
            body[key] = extra
    return body
