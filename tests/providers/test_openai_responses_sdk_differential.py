"""Differential test: our assembly of Responses transcripts equals the official SDK's.

The SDK (openai 3.x, on ``httpx2``) is fed the same bytes through
``httpx2.MockTransport``; ``client.responses.stream(...)`` and its final response
(``get_final_response()``, or the ``response.incomplete`` / ``response.failed``
snapshot, or the ``error`` event) are the reference for text, reasoning summary,
function calls (call_id, name, arguments), url citations, usage and status.
"""

from __future__ import annotations

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
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest
from desktop.providers.openai_responses import OpenAIResponsesProvider
from desktop.providers.openai_responses_stream import SUMMARY_SEPARATOR
from tests.support.lazy_import import lazy
from tests.support.openai_server import split_bytes
from tests.support.responses_server import function_call_response, text_response

openai = lazy("openai")
httpx2 = lazy("httpx2")

DATA = Path(__file__).parent / "data" / "responses"
TRANSCRIPTS = sorted(p.name for p in DATA.glob("*.sse"))
STATUS = {
    "stop": "completed",
    "tool_calls": "completed",
    "length": "incomplete",
    "content_filter": "incomplete",
}


@dataclass
class Assembled:
    text: str = ""
    reasoning: str = ""
    calls: list[tuple[str, str, str]] = field(default_factory=list)
    sources: list[tuple[str, str]] = field(default_factory=list)
    usage: tuple[int, int, int, int] | None = None
    status: str | None = None
    response_id: str | None = None
    error: str | None = None


def from_sdk_response(response: Any, out: Assembled) -> None:
    out.status, out.response_id = response.status, response.id
    out.text = response.output_text
    summaries = []
    for item in response.output:
        if item.type == "reasoning":
            summaries.append(SUMMARY_SEPARATOR.join(s.text for s in item.summary if s.text))
        elif item.type == "function_call" and item.status != "incomplete":
            out.calls.append((item.call_id, item.name, item.arguments))
        elif item.type == "message":
            for part in item.content:
                for note in getattr(part, "annotations", None) or []:
                    if note.type == "url_citation" and all(u != note.url for u, _ in out.sources):
                        out.sources.append((note.url, note.title))
    out.reasoning = "|".join(summaries)
    usage = response.usage
    if usage is not None:
        out.usage = (
            usage.input_tokens,
            usage.output_tokens,
            usage.output_tokens_details.reasoning_tokens,
            usage.input_tokens_details.cached_tokens,
        )


def sdk_assemble(chunks: list[bytes]) -> Assembled:
    def handler(request: Any) -> Any:
        def body() -> Iterator[bytes]:
            yield from chunks

        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    http_client = httpx2.Client(transport=httpx2.MockTransport(handler))
    client = openai.OpenAI(
        api_key="sk-test", base_url="http://test/v1", http_client=http_client, max_retries=0
    )
    out = Assembled()
    terminal: Any = None
    try:
        with client.responses.stream(model="gpt-test", input="Hi") as stream:
            for event in stream:
                if event.type in ("response.incomplete", "response.failed"):
                    terminal = event.response
                elif event.type == "error":
                    out.error = event.message
            if terminal is None and out.error is None:
                try:
                    terminal = stream.get_final_response()
                except RuntimeError as exc:  # no response.completed: a cut stream
                    out.error = str(exc)
    finally:
        client.close()
    if terminal is not None:
        from_sdk_response(terminal, out)
        if terminal.status == "failed":
            out.error = terminal.error.message
    return out


async def ours_assemble(chunks: list[bytes]) -> Assembled:
    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    out = Assembled()
    reasoning: list[str] = []
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        provider = OpenAIResponsesProvider("http://test/v1", "sk-test", name="Ours", client=client)
        request = ChatRequest(model="gpt-test", messages=[Message.user("Hi")])
        async for event in provider.stream(request):
            if isinstance(event, TextDelta):
                out.text += event.text
            elif isinstance(event, ReasoningComplete):
                reasoning.append(event.text)
            elif isinstance(event, ToolCallComplete):
                out.calls.append((event.id, event.name, event.arguments))
            elif isinstance(event, SourcesEvent):
                out.sources += [(s.url or "", s.title) for s in event.sources]
            elif isinstance(event, UsageEvent):
                u = event.usage
                out.usage = (u.input_tokens, u.output_tokens, u.reasoning_tokens, u.cached_tokens)
            elif isinstance(event, EndEvent):
                out.status = STATUS[event.finish_reason]
                out.response_id = event.provider_data["response_id"]
            elif isinstance(event, ErrorEvent):
                out.error = event.message
    out.reasoning = "|".join(reasoning)
    return out


def compare(ours: Assembled, sdk: Assembled) -> None:
    if sdk.error is not None:
        assert ours.error is not None and ours.status is None
        if sdk.status == "failed" or not sdk.error.startswith("Didn't receive"):
            assert ours.error == f"Ours: {sdk.error}"
        else:  # the SDK only notices a cut stream when asked for the final response
            assert "ended unexpectedly" in ours.error
        if sdk.status == "failed":
            assert (ours.text, ours.calls) == (sdk.text, sdk.calls)
        return
    assert ours.error is None
    assert (ours.status, ours.response_id) == (sdk.status, sdk.response_id)
    assert ours.text == sdk.text
    assert ours.reasoning == sdk.reasoning
    assert ours.calls == sdk.calls
    assert ours.sources == sdk.sources
    assert ours.usage == sdk.usage


@pytest.mark.parametrize("size", [1, 7, None], ids=["1-byte", "7-bytes", "whole"])
@pytest.mark.parametrize("name", TRANSCRIPTS)
async def test_transcript_matches_sdk(name: str, size: int | None) -> None:
    data = (DATA / name).read_bytes()
    chunks = split_bytes(data, size) if size else [data]
    sdk = sdk_assemble(chunks)
    compare(await ours_assemble(chunks), sdk)
    assert sdk.error is not None or sdk.status in ("completed", "incomplete")


GENERATED = {
    "long-text": text_response("The quick brown fox 🦊 jumps over the lazy dog. " * 40, 4),
    "calls-with-reasoning": function_call_response(
        [("call_a", "a", '{"x": 1}'), ("call_b", "b", '{"long": "' + "é" * 300 + '"}')],
        reasoning=("Two lookups are needed.", "gAAAAABoZm9v"),
        split=3,
    ),
}


@pytest.mark.parametrize("size", [3, 64])
@pytest.mark.parametrize("case", sorted(GENERATED))
async def test_generated_streams_match_sdk(case: str, size: int) -> None:
    chunks = split_bytes(GENERATED[case], size)
    compare(await ours_assemble(chunks), sdk_assemble(chunks))
