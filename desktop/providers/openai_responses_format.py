"""The OpenAI Responses API request side: typed messages to ``POST /responses`` JSON.

No I/O here: :func:`build_openai_responses_body` turns a :class:`ChatRequest` into the
request body. Stream events are parsed in ``openai_responses_stream``; the HTTP side lives
in ``openai_responses``.

Two ways to carry a conversation (see :func:`build_openai_responses_body`): *chain* sends
``previous_response_id`` plus only the items added since that response; *replay*
sends every item, statelessly (``store: false``), with the encrypted reasoning kept
from earlier responses. Replayed items carry no server ids (``rs_``/``fc_``/``msg_``):
with ``store: false`` an id makes the server look the item up, and it is not stored.
"""

from __future__ import annotations

import json
import re
from typing import Any

from desktop.core.attachments import native_document
from desktop.core.images import makes_images
from desktop.core.messages import ImagePart, Message, ReasoningPart, TextPart, ToolCallPart
from desktop.core.provider import ChatRequest
from desktop.providers.web_search import responses_tool

__all__ = [
    "ENCRYPTED_REASONING",
    "build_openai_responses_body",
    "encrypted_reasoning_unsupported",
    "message_to_items",
    "previous_response_missing",
    "split_at_previous_response",
]

ENCRYPTED_REASONING = "reasoning.encrypted_content"
_PREVIOUS_MISSING = re.compile(r"(?i)previous[ _]response.{0,120}not (?:be )?found")

# ---------------------------------------------------------------- request body


def _assistant_items(message: Message) -> list[dict[str, Any]]:
    """Reasoning, text and function calls of an assistant message, in their order."""
    items: list[dict[str, Any]] = []
    text: list[str] = []

    def flush_text() -> None:
        if text:
            content = [{"type": "output_text", "text": "".join(text)}]
            items.append({"type": "message", "role": "assistant", "content": content})
            text.clear()

    for part in message.parts:
        if isinstance(part, TextPart) and part.text:
            text.append(part.text)
        elif isinstance(part, ReasoningPart):
            encrypted = part.provider_data.get("encrypted_content")
            if isinstance(encrypted, str) and encrypted:  # others cannot be replayed
                flush_text()
                summary = [{"type": "summary_text", "text": part.text}] if part.text else []
                items.append(
                    {"type": "reasoning", "summary": summary, "encrypted_content": encrypted}
                )
        elif isinstance(part, ToolCallPart):
            flush_text()
            items.append(
                {
                    "type": "function_call",
                    "call_id": part.id,
                    "name": part.name,
                    "arguments": part.arguments or "{}",
                }
            )
    flush_text()
    return items


def message_to_items(message: Message) -> list[dict[str, Any]]:
    """The Responses ``input`` items for one typed message (zero, one or several)."""
    items: list[dict[str, Any]] = [
        {"type": "function_call_output", "call_id": p.tool_call_id, "output": p.content}
        for p in message.tool_results
    ]
    if message.role == "tool":
        return items
    if message.role == "assistant":
        return items + _assistant_items(message)
    content: list[dict[str, Any]] = []
    for part in message.parts:
        if (document := native_document(part)) is not None:
            name, media_type, data = document  # OpenAI's file input: the PDF itself
            content.append({"type": "input_file", "filename": name,
                            "file_data": f"data:{media_type};base64,{data}"})
        elif isinstance(part, TextPart) and part.text:
            content.append({"type": "input_text", "text": part.text})
        elif isinstance(part, ImagePart) and part.data:
            url = f"data:{part.media_type};base64,{part.data}"
            content.append({"type": "input_image", "image_url": url, "detail": "auto"})
    if content or not items:
        content = content or [{"type": "input_text", "text": ""}]
        items.append({"type": "message", "role": message.role, "content": content})
    return items


def split_at_previous_response(messages: list[Message]) -> tuple[str | None, list[Message]]:
    """``(response_id, messages after it)`` for chaining, or ``(None, messages)``.

    Only the last assistant message counts: its ``provider_data["response_id"]``
    names a stored response that already holds everything up to and including it.
    """
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if message.role != "assistant":
            continue
        data = message.provider_data
        response_id = data.get("response_id")
        if isinstance(response_id, str) and response_id and data.get("stored", True):
            return response_id, messages[i + 1 :]
        break
    return None, messages


def _tools(request: ChatRequest, image_generation: bool = False) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = [
        {"type": "function", "name": t.name, "description": t.description,
         "parameters": t.parameters, "strict": False}
        for t in request.tools
    ]
    if request.web_search:
        tools.append(responses_tool())
    if image_generation or makes_images(request.model):  # pictures come back as
        tools.append({"type": "image_generation"})  # image_generation_call items
    return tools


def build_openai_responses_body(
    request: ChatRequest,
    *,
    chain: bool = True,
    store: bool = True,
    include_encrypted: bool = False,
    image_generation: bool = False,
) -> dict[str, Any]:
    """The JSON body of a streaming ``POST /responses``.

    ``chain``: continue from the last assistant message's stored response
    (``previous_response_id``) and send only newer items; otherwise send all.
    ``store=False`` keeps nothing on the server; ``include_encrypted`` asks for the
    encrypted reasoning needed to replay reasoning items without server state.
    ``image_generation``: offer the ``image_generation`` tool (always offered to a
    model that makes images, see :func:`desktop.core.images.makes_images`).
    Keys of ``request.extra`` override the defaults; a key set to ``None`` removes it.
    """
    previous, messages = (
        split_at_previous_response(request.messages) if chain else (None, request.messages)
    )
    body: dict[str, Any] = {"model": request.model}
    if request.system:
        body["instructions"] = request.system  # never carried over by previous_response_id
    if previous is not None:
        body["previous_response_id"] = previous
    body["input"] = [item for message in messages for item in message_to_items(message)]
    body["stream"] = True
    if not store:
        body["store"] = False
    if include_encrypted:
        body["include"] = [ENCRYPTED_REASONING]
    tools = _tools(request, image_generation)
    if tools:
        body["tools"] = tools
    if request.reasoning or request.reasoning_effort:
        reasoning: dict[str, Any] = {"summary": "auto"}
        if request.reasoning_effort:
            reasoning = {"effort": request.reasoning_effort, **reasoning}
        body["reasoning"] = reasoning
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.max_tokens is not None:
        body["max_output_tokens"] = request.max_tokens
    for key, value in request.extra.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return body


# ---------------------------------------------------------------- error answers


def _error_fields(body: bytes) -> tuple[str, str, str]:
    """``(message, code, param)`` of an OpenAI-style error body (empty when absent)."""
    text = body[:65536].decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except ValueError:
        return text, "", ""
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict):
        return text, "", ""
    message, code, param = (error.get(k) for k in ("message", "code", "param"))
    return (
        message if isinstance(message, str) else "",
        code if isinstance(code, str) else "",
        param if isinstance(param, str) else "",
    )


def previous_response_missing(status: int, body: bytes) -> bool:
    """The server no longer knows ``previous_response_id`` (expired, deleted, elsewhere)."""
    if status not in (400, 404):
        return False
    message, code, param = _error_fields(body)
    if code == "previous_response_not_found":
        return True
    return bool(_PREVIOUS_MISSING.search(message)) or (
        param == "previous_response_id" and "not found" in message.lower()
    )


def encrypted_reasoning_unsupported(status: int, body: bytes) -> bool:
    """The model rejects ``include: ["reasoning.encrypted_content"]`` (not a reasoning model)."""
    if status != 400:
        return False
    message, _code, param = _error_fields(body)
    return param == "include" or "encrypted content is not supported" in message.lower()
