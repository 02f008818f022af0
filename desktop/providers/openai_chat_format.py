"""The Chat Completions request side: typed messages to ``POST /chat/completions`` JSON.

No I/O here: :func:`build_openai_chat_body` turns a :class:`ChatRequest` into the
request body. Stream chunks are parsed in ``openai_chat_stream``; the HTTP side
lives in ``openai_chat``.
"""

from __future__ import annotations

from typing import Any

from desktop.core.images import makes_images
from desktop.core.messages import ImagePart, Message, TextPart, ToolResultPart
from desktop.core.provider import ChatRequest
from desktop.providers.web_search import openrouter_plugins

__all__ = ["build_openai_chat_body", "message_to_openai"]


def _tool_message(part: ToolResultPart) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": part.tool_call_id, "content": part.content}


def message_to_openai(message: Message) -> list[dict[str, Any]]:
    """The Chat Completions messages for one typed message (zero, one or several)."""
    out: list[dict[str, Any]] = [_tool_message(p) for p in message.tool_results]
    if message.role == "tool":
        return out
    if message.role == "assistant":
        text = message.text
        calls = [
            {
                "id": p.id,
                "type": "function",
                "function": {"name": p.name, "arguments": p.arguments or "{}"},
            }
            for p in message.tool_calls
        ]
        if calls:
            out.append({"role": "assistant", "content": text or None, "tool_calls": calls})
        elif text:
            out.append({"role": "assistant", "content": text})
        return out  # ReasoningPart has no Chat Completions field: never sent back
    images = [p for p in message.parts if isinstance(p, ImagePart) and p.data]
    if message.role == "user" and images:
        content: list[dict[str, Any]] = []
        for part in message.parts:
            if isinstance(part, TextPart) and part.text:
                content.append({"type": "text", "text": part.text})
            elif isinstance(part, ImagePart) and part.data:
                url = f"data:{part.media_type};base64,{part.data}"
                content.append({"type": "image_url", "image_url": {"url": url}})
        out.append({"role": "user", "content": content})
    elif message.text or not out:
        out.append({"role": message.role, "content": message.text})
    return out


def build_openai_chat_body(request: ChatRequest) -> dict[str, Any]:
    """The JSON body of a streaming ``POST /chat/completions``.

    Keys of ``request.extra`` override the defaults; an extra key set to ``None``
    removes it (e.g. ``{"stream_options": None}`` for servers that reject it).
    """
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    for message in request.messages:
        messages.extend(message_to_openai(message))
    body: dict[str, Any] = {
        "model": request.model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                },
            }
            for t in request.tools
        ]
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if makes_images(request.model):  # OpenRouter's image models answer in message.images
        body["modalities"] = ["image", "text"]
    if request.web_search:  # sent only to OpenRouter (see desktop.providers.web_search)
        body["plugins"] = openrouter_plugins()
    for key, value in request.extra.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return body
