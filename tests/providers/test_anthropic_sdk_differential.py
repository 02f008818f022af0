"""Differential test: our assembly of recorded streams equals the official anthropic SDK's.

The SDK (anthropic 2.x, on ``httpx2``) is fed the same bytes through
``httpx2.MockTransport``; its ``messages.stream(...).get_final_message()`` is the
reference for text, thinking blocks (text + signature, redacted data), tool calls
(id, name, input), citations, stop reason and usage. Where the SDK is lenient and
we are strict (a cut stream, tool input cut off by max_tokens) we must report an
error; an ``event: error`` must fail in both, with the same type and message.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from desktop.core.events import (
    EndEvent,
    ErrorEvent,
    ReasoningComplete,
    SourcesEvent,
    TextDelta,
    ToolCallComplete,
    UsageEvent,
)
from desktop.core.messages import Message, Source, Usage
from desktop.core.provider import ChatRequest
from desktop.providers.anthropic import AnthropicProvider
from desktop.providers.anthropic_stream import normalize_stop_reason
from tests.support.anthropic_server import message_stream, split_bytes, tool_use_message
from tests.support.lazy_import import lazy

anthropic = lazy("anthropic")
httpx2 = lazy("httpx2")

DATA = Path(__file__).parent / "data" / "anthropic"
FIXTURES = sorted(p.name for p in DATA.glob("anthropic_*.sse"))
MODEL = "claude-test"  # not in the SDK's deprecation list


@dataclass
class Assembled:
    text: str = ""
    thinking: list[tuple[str, str | None]] = field(default_factory=list)
    redacted: list[str] = field(default_factory=list)
    calls: list[tuple[str, str, Any]] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    stop_reason: str | None = None
    usage: Usage | None = None
    error: str | None = None
    error_code: str | None = None


def sdk_assemble(chunks: list[bytes]) -> Assembled:
    def handler(request: Any) -> Any:
        def body() -> Iterator[bytes]:
            yield from chunks

        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    http_client = httpx2.Client(transport=httpx2.MockTransport(handler))
    client = anthropic.Anthropic(
        api_key="sk-ant-test", base_url="http://test", http_client=http_client, max_retries=0
    )
    out = Assembled()
    try:
        with client.messages.stream(
            model=MODEL, max_tokens=1024, messages=[{"role": "user", "content": "Hi"}]
        ) as stream:
            for _event in stream:
                pass
            message = stream.get_final_message()
    except anthropic.APIStatusError as exc:
        error = exc.body.get("error", {}) if isinstance(exc.body, dict) else {}
        out.error, out.error_code = error.get("message"), error.get("type")
        return out
    finally:
        client.close()
    for block in message.content:
        if block.type == "text":
            out.text += block.text
            for citation in block.citations or []:
                data = citation.to_dict()
                source = Source(
                    title=data.get("title") or data.get("document_title") or "",
                    url=data.get("url") or data.get("source"),
                    snippet=data.get("cited_text"),
                )
                if source not in out.sources:
                    out.sources.append(source)
        elif block.type == "thinking":
            out.thinking.append((block.thinking, block.signature or None))
        elif block.type == "redacted_thinking":
            out.redacted.append(block.data)
        elif block.type == "tool_use":
            out.calls.append((block.id, block.name, block.input))
    out.stop_reason = message.stop_reason
    u = message.usage
    read, written = u.cache_read_input_tokens or 0, u.cache_creation_input_tokens or 0
    details = u.output_tokens_details
    out.usage = Usage(
        input_tokens=u.input_tokens + read + written,
        output_tokens=u.output_tokens,
        reasoning_tokens=details.thinking_tokens if details else 0,
        cached_tokens=read,
    )
    return out


async def ours_assemble(chunks: list[bytes]) -> Assembled:
    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    out = Assembled()
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        provider = AnthropicProvider("http://test", "sk-ant-test", name="Ours", client=client)
        request = ChatRequest(model=MODEL, messages=[Message.user("Hi")])
        async for event in provider.stream(request):
            if isinstance(event, TextDelta):
                out.text += event.text
            elif isinstance(event, ReasoningComplete):
                if event.redacted:
                    out.redacted.append(event.provider_data["data"])
                else:
                    out.thinking.append((event.text, event.signature))
            elif isinstance(event, ToolCallComplete):
                out.calls.append((event.id, event.name, json.loads(event.arguments)))
            elif isinstance(event, SourcesEvent):
                out.sources += [s for s in event.sources if s not in out.sources]
            elif isinstance(event, UsageEvent):
                assert out.usage is None, "usage is reported once"
                out.usage = event.usage
            elif isinstance(event, EndEvent):
                out.stop_reason = event.provider_data.get("raw_finish_reason", event.finish_reason)
            elif isinstance(event, ErrorEvent):
                out.error, out.error_code = event.message, event.code
    return out


def compare(ours: Assembled, sdk: Assembled) -> None:
    if sdk.error is not None:  # an `event: error`: both fail the same way
        assert ours.error == f"Ours: {sdk.error}" and ours.error_code == sdk.error_code
        return
    assert ours.text == sdk.text
    assert ours.thinking == sdk.thinking
    assert ours.redacted == sdk.redacted
    assert ours.sources == sdk.sources
    if ours.error_code == "max_tokens":  # cut tool input: the SDK keeps a partial one
        assert sdk.stop_reason == "max_tokens" and sdk.calls and ours.calls == []
        return
    assert ours.calls == sdk.calls
    assert ours.usage == sdk.usage
    if sdk.stop_reason is None:  # the SDK does not notice a cut stream; we must
        assert ours.error is not None and "ended unexpectedly" in ours.error
    else:
        assert ours.error is None
        assert normalize_stop_reason(ours.stop_reason) == normalize_stop_reason(sdk.stop_reason)


def test_every_transcript_is_covered() -> None:
    assert len(FIXTURES) >= 10


@pytest.mark.parametrize("size", [1, 7, None], ids=["1-byte", "7-bytes", "whole"])
@pytest.mark.parametrize("name", FIXTURES)
async def test_recorded_transcript_matches_sdk(name: str, size: int | None) -> None:
    data = (DATA / name).read_bytes()
    chunks = split_bytes(data, size) if size else [data]
    compare(await ours_assemble(chunks), sdk_assemble(chunks))


GENERATED = {
    "long-text": message_stream(
        [("text", "The quick brown fox 🦊 jumps over the lazy dog. " * 30)]
    ),
    "thinking-then-call": message_stream(
        [
            ("thinking", ("Let me think… ünïcödé " * 5, "c2lnbmF0dXJl" * 20)),
            ("tool_use", ("toolu_01Gen", "search", '{"q": "ünïcödé", "n": [1, 2.5, null]}')),
        ],
        stop_reason="tool_use",
        usage=(120, 44),
    ),
    "three-calls": tool_use_message(
        [("a", '{"x": 1}'), ("b", '{"long": "' + "é" * 300 + '"}'), ("c", "{}")],
        text="Running three tools…",
        chunk_size=4,
    ),
}


@pytest.mark.parametrize("size", [3, 64])
@pytest.mark.parametrize("case", sorted(GENERATED))
async def test_generated_streams_match_sdk(case: str, size: int) -> None:
    chunks = split_bytes(GENERATED[case], size)
    compare(await ours_assemble(chunks), sdk_assemble(chunks))
