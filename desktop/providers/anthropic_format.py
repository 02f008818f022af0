"""The Anthropic Messages request body: typed messages and options out as JSON.

No I/O here: :func:`build_anthropic_body` turns a :class:`ChatRequest` into the JSON
of a streaming ``POST /v1/messages`` (roles, merged turns, thinking blocks sent back
verbatim, tool_use/tool_result pairs, images, ``max_tokens`` and ``thinking``).
The stream side lives in ``anthropic_stream``, the HTTP side in ``anthropic``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

import msgspec

from desktop.core.attachments import native_document
from desktop.core.messages import (
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from desktop.core.provider import ChatRequest
from desktop.core.provider_options import AnthropicOptions
from desktop.providers.web_search import anthropic_tool

__all__ = [
    "DEFAULT_THINKING_BUDGET",
    "MIN_THINKING_BUDGET",
    "ModelLimits",
    "build_anthropic_body",
    "default_max_tokens",
    "messages_to_anthropic",
]

MIN_THINKING_BUDGET = 1024
DEFAULT_THINKING_BUDGET = 8192

# Documented maximum output tokens, first matching prefix wins (checked from "claude-",
# so Bedrock/OpenRouter style ids such as "anthropic/claude-sonnet-4" match too).
_MAX_OUTPUT: tuple[tuple[str, int], ...] = (
    ("claude-opus-4-0", 32_000),
    ("claude-opus-4-1", 32_000),
    ("claude-opus-4-2025", 32_000),
    ("claude-4-opus", 32_000),
    ("claude-opus-4", 64_000),  # 4.5 and later (some allow more; 64k is safe)
    ("claude-sonnet-4", 64_000),
    ("claude-4-sonnet", 64_000),
    ("claude-haiku-4", 64_000),
    ("claude-3-7-sonnet", 64_000),
    ("claude-3-5-", 8_192),
    ("claude-3-", 4_096),
)
UNKNOWN_CLAUDE_MAX_TOKENS = 32_000  # a newer Claude family not in the table yet
FALLBACK_MAX_TOKENS = 8_192  # another model behind an Anthropic-compatible endpoint

_TOOL_ID = re.compile(r"[^A-Za-z0-9_-]")


class ModelLimits(msgspec.Struct, frozen=True):
    """What ``GET /v1/models`` told us about one model (unknown fields are ``None``)."""

    max_tokens: int | None = None
    thinking_enabled: bool | None = None  # accepts {"type": "enabled", "budget_tokens"}
    thinking_adaptive: bool | None = None  # accepts {"type": "adaptive"}


def default_max_tokens(model: str, known: int | None = None) -> int:
    """``max_tokens`` when the request sets none: the model's documented output limit."""
    key = model.lower()
    start = key.find("claude-")
    limit = FALLBACK_MAX_TOKENS
    if start >= 0:
        key = key[start:]
        limit = next((n for prefix, n in _MAX_OUTPUT if key.startswith(prefix)), 0)
        limit = limit or UNKNOWN_CLAUDE_MAX_TOKENS
    return min(limit, known) if known else limit


# ---------------------------------------------------------------- request body


def _tool_id(raw: str) -> str:
    return _TOOL_ID.sub("_", raw) or "toolu_missing"


def _tool_input(arguments: str) -> dict[str, Any]:
    try:
        value = json.loads(arguments or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _thinking_block(part: ReasoningPart) -> dict[str, Any] | None:
    """A signed (or redacted) thinking block to send back verbatim; unsigned ones are dropped."""
    if part.redacted:
        data = part.provider_data.get("data")
        if isinstance(data, str) and data:
            return {"type": "redacted_thinking", "data": data}
        return None
    if part.signature:
        return {"type": "thinking", "thinking": part.text, "signature": part.signature}
    return None


def _assistant_blocks(message: Message, replay_thinking: bool) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in message.parts:  # in stream order: thinking, text, tool_use, ...
        if isinstance(part, ReasoningPart):
            block = _thinking_block(part) if replay_thinking else None
            if block is not None:
                blocks.append(block)
        elif isinstance(part, TextPart):
            if part.text.strip():
                blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ToolCallPart):
            blocks.append(
                {
                    "type": "tool_use",
                    "id": _tool_id(part.id),
                    "name": part.name,
                    "input": _tool_input(part.arguments),
                }
            )
    return blocks


def _user_blocks(message: Message) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, ToolResultPart):
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": _tool_id(part.tool_call_id),
            }
            content = part.content or ("(error)" if part.is_error else "")
            if content:
                result["content"] = content
            result["is_error"] = part.is_error
            blocks.append(result)
        elif (document := native_document(part)) is not None:
            name, media_type, data = document  # Claude reads the PDF itself (pages as images)
            source = {"type": "base64", "media_type": media_type, "data": data}
            blocks.append({"type": "document", "source": source, "title": name})
        elif isinstance(part, TextPart):
            if part.text.strip():
                blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ImagePart) and part.data:
            source = {"type": "base64", "media_type": part.media_type, "data": part.data}
            blocks.append({"type": "image", "source": source})
    return blocks


def messages_to_anthropic(
    messages: Iterable[Message], *, provider: str | None = None
) -> tuple[list[dict[str, Any]], list[str]]:
    """``(messages, system_texts)`` for the Messages API.

    Roles become ``user``/``assistant`` (tool results go back as ``tool_result``
    blocks in a user message, first in it); consecutive same-role messages merge;
    system messages are returned separately. Thinking blocks are replayed only from
    messages produced by ``provider`` (or of unknown origin): another provider's
    signatures would be rejected.
    """
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            if message.text.strip():
                system.append(message.text)
            continue
        if message.role == "assistant":
            replay = message.provider is None or provider is None or message.provider == provider
            role, blocks = "assistant", _assistant_blocks(message, replay)
        else:
            role, blocks = "user", _user_blocks(message)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    for entry in out:
        if entry["role"] == "user":  # tool results must come before any other content
            entry["content"].sort(key=lambda block: block["type"] != "tool_result")
    if out and out[-1]["role"] == "assistant":  # a prefill may not end with whitespace
        last = out[-1]["content"][-1]
        if last["type"] == "text":
            last["text"] = last["text"].rstrip()
    return out, system


def _positive_int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = int(value)
    except ValueError:
        return None
    return number if number > 0 else None


def _thinking(
    request: ChatRequest, options: AnthropicOptions, limits: ModelLimits, max_tokens: int
) -> tuple[dict[str, Any] | None, int]:
    """The ``thinking`` parameter (or None) and the ``max_tokens`` that fits it."""
    switch = options.thinking
    if not (request.reasoning or switch):
        return None, max_tokens
    adaptive = switch == "adaptive" or (
        limits.thinking_enabled is False and limits.thinking_adaptive is True
    )
    if adaptive:
        return {"type": "adaptive"}, max_tokens
    budget = _positive_int(request.reasoning_budget) or options.thinking_budget
    if budget is None:
        budget = min(DEFAULT_THINKING_BUDGET, max_tokens // 2)
    # max_tokens caps thinking + answer: the budget shrinks to fit under it, and
    # max_tokens grows only when even the minimum budget does not fit.
    budget = max(MIN_THINKING_BUDGET, min(budget, max_tokens - 1))
    return {"type": "enabled", "budget_tokens": budget}, max(max_tokens, budget + 1)


def build_anthropic_body(
    request: ChatRequest,
    *,
    options: AnthropicOptions | None = None,
    limits: ModelLimits | None = None,
    provider: str | None = None,
) -> dict[str, Any]:
    """The JSON body of a streaming ``POST /v1/messages``.

    ``options`` are the provider's switches (``thinking``: true or ``"adaptive"``,
    ``thinking_budget``); ``max_tokens`` comes from the request (a provider default
    reaches it through the agent loop), else from the model. Keys of
    ``request.extra`` override the result; an extra key set to ``None`` removes it.
    """
    options = options or AnthropicOptions()
    limits = limits or ModelLimits()
    messages, system_texts = messages_to_anthropic(request.messages, provider=provider)
    if request.system and request.system.strip():
        system_texts.insert(0, request.system)
    max_tokens = (
        _positive_int(request.max_tokens)
        or default_max_tokens(request.model, limits.max_tokens)
    )
    thinking, max_tokens = _thinking(request, options, limits, max_tokens)
    body: dict[str, Any] = {"model": request.model, "max_tokens": max_tokens}
    if system_texts:
        body["system"] = "\n\n".join(system_texts)
    body["messages"] = messages
    if request.tools:
        body["tools"] = [_tool_spec(t.name, t.description, t.parameters) for t in request.tools]
        body["tool_choice"] = {"type": "auto"}
    if request.web_search:
        body.setdefault("tools", []).append(anthropic_tool())
    if thinking is not None:
        body["thinking"] = thinking  # temperature must not be sent with thinking
    elif request.temperature is not None:
        body["temperature"] = request.temperature
    body["stream"] = True
    for key, value in request.extra.items():
        if value is None:
            body.pop(key, None)
        else:
            body[key] = value
    return body


def _tool_spec(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    schema = dict(parameters) if parameters else {}
    schema.setdefault("type", "object")
    if schema["type"] == "object":
        schema.setdefault("properties", {})
    spec: dict[str, Any] = {"name": name}
    if description:
        spec["description"] = description
    spec["input_schema"] = schema
    return spec
