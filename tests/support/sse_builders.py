"""Builders for Chat Completions SSE byte streams (used by the fake server and tests).

Each builder returns ``list[bytes]``, one element per SSE event, so the fake server
writes (and flushes) one event at a time like a real server; use
:func:`split_bytes` to re-chunk into awkward sizes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

__all__ = [
    "chat_chunk",
    "split_bytes",
    "sse_chunks",
    "sse_event",
    "text_stream",
    "tool_call_stream",
    "usage_chunk",
]

DEFAULT_MODEL = "gpt-test"
DEFAULT_ID = "chatcmpl-test"
CREATED = 1_700_000_000


def chat_chunk(
    delta: dict[str, Any] | None = None,
    finish_reason: str | None = None,
    *,
    id: str = DEFAULT_ID,
    model: str = DEFAULT_MODEL,
    usage: dict[str, Any] | None = None,
    choices: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A ``chat.completion.chunk`` with one choice (or the given ``choices``)."""
    if choices is None:
        choices = [
            {"index": 0, "delta": delta or {}, "logprobs": None, "finish_reason": finish_reason}
        ]
    chunk: dict[str, Any] = {
        "id": id,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": model,
        "system_fingerprint": "fp_test",
        "choices": choices,
    }
    if usage is not None:
        chunk["usage"] = usage
    return chunk


def usage_chunk(
    prompt_tokens: int,
    completion_tokens: int,
    *,
    reasoning_tokens: int = 0,
    cached_tokens: int = 0,
    cost: float | None = None,
    id: str = DEFAULT_ID,
    model: str = DEFAULT_MODEL,
) -> dict[str, Any]:
    """The final ``stream_options.include_usage`` chunk (``choices: []``)."""
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": cached_tokens, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": reasoning_tokens,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }
    if cost is not None:
        usage["cost"] = cost
    return chat_chunk(id=id, model=model, usage=usage, choices=[])


def sse_event(data: dict[str, Any] | str, *, event: str | None = None) -> bytes:
    """``[event: X\\n]data: <json or text>\\n\\n``."""
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    body = "".join(f"data: {line}\n" for line in text.split("\n"))
    return (head + body + "\n").encode("utf-8")


def sse_chunks(chunks: Sequence[dict[str, Any] | str], *, done: bool = True) -> list[bytes]:
    """One SSE event per chunk, then ``data: [DONE]`` when ``done``."""
    events = [sse_event(c) for c in chunks]
    if done:
        events.append(b"data: [DONE]\n\n")
    return events


def _pieces(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


def text_stream(
    text: str,
    chunk_size: int = 3,
    *,
    reasoning: str | None = None,
    finish_reason: str = "stop",
    usage: tuple[int, int] | None = (10, 5),
    model: str = DEFAULT_MODEL,
    done: bool = True,
) -> list[bytes]:
    """A streamed answer: role chunk, optional ``reasoning_content`` pieces, text pieces,
    a finish chunk, a usage chunk (``usage=(prompt, completion)``) and ``[DONE]``."""
    chunks = [chat_chunk({"role": "assistant", "content": ""}, model=model)]
    for piece in _pieces(reasoning or "", chunk_size):
        chunks.append(chat_chunk({"reasoning_content": piece}, model=model))
    for piece in _pieces(text, chunk_size):
        chunks.append(chat_chunk({"content": piece}, model=model))
    chunks.append(chat_chunk({}, finish_reason, model=model))
    if usage is not None:
        chunks.append(usage_chunk(*usage, model=model))
    return sse_chunks(chunks, done=done)


def tool_call_stream(
    calls: Sequence[tuple[str, str]],
    split: int = 5,
    *,
    text: str = "",
    ids: Sequence[str] | None = None,
    usage: tuple[int, int] | None = (10, 5),
    model: str = DEFAULT_MODEL,
    done: bool = True,
) -> list[bytes]:
    """Streamed tool calls ``[(name, arguments_json), ...]``, OpenAI style: the first
    fragment of each call carries index, id, type and name; arguments follow in
    ``split``-character pieces. ``text`` is streamed before the calls."""
    chunks = [chat_chunk({"role": "assistant", "content": text or None}, model=model)]
    for i, (name, arguments) in enumerate(calls):
        call_id = ids[i] if ids else f"call_{i:02d}test"
        first = {
            "index": i,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        chunks.append(chat_chunk({"tool_calls": [first]}, model=model))
        for piece in _pieces(arguments, split):
            fragment = {"index": i, "function": {"arguments": piece}}
            chunks.append(chat_chunk({"tool_calls": [fragment]}, model=model))
    chunks.append(chat_chunk({}, "tool_calls", model=model))
    if usage is not None:
        chunks.append(usage_chunk(*usage, model=model))
    return sse_chunks(chunks, done=done)


def split_bytes(data: bytes | Sequence[bytes], size: int) -> list[bytes]:
    """Re-chunk ``data`` (bytes or a list of chunks) into ``size``-byte pieces."""
    blob = data if isinstance(data, bytes) else b"".join(data)
    size = max(1, size)
    return [blob[i : i + size] for i in range(0, len(blob), size)]


def image_stream(text: str, images: Sequence[bytes | str], *,
                 model: str = "google/gemini-2.5-flash-image") -> list[bytes]:
    """OpenRouter's image answer: text deltas, then a delta with ``images`` (bytes become
    ``data:image/png;base64,...`` URLs, a str is sent as it is), then the finish."""
    import base64

    urls = [f"data:image/png;base64,{base64.b64encode(i).decode()}" if isinstance(i, bytes)
            else i for i in images]
    chunks: list[dict[str, Any] | str] = [chat_chunk({"role": "assistant", "content": text},
                                                     model=model)]
    chunks.append(chat_chunk({"role": "assistant", "content": "", "images": [
        {"type": "image_url", "image_url": {"url": url}, "index": n}
        for n, url in enumerate(urls)]}, model=model))
    chunks.append(chat_chunk({}, "stop", model=model))
    return sse_chunks(chunks)
