"""Differential test: our assembly of recorded streams equals the official openai SDK's.

The SDK (openai 3.x, on ``httpx2``) is fed the same bytes through
``httpx2.MockTransport``; its ``chat.completions.stream(...).get_final_completion()``
is the reference for text, reasoning, tool calls (ids, names, arguments), finish
reason and usage. Error transcripts must fail in both, with the same message.
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
    ReasoningDelta,
    TextDelta,
    ToolCallComplete,
    UsageEvent,
)
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest
from desktop.providers.openai_chat import OpenAIChatProvider
from desktop.providers.openai_chat_stream import normalize_finish_reason
from tests.support.lazy_import import lazy
from tests.support.sse_builders import split_bytes, text_stream, tool_call_stream

openai = lazy("openai")
httpx2 = lazy("httpx2")

DATA = Path(__file__).parent / "data"
FIXTURES = sorted(p.name for p in DATA.glob("*.sse"))


@dataclass
class Assembled:
    text: str = ""
    reasoning: str = ""
    calls: list[tuple[str | None, str, str]] = field(default_factory=list)
    finish_reason: str | None = None
    usage: tuple[int, int, int, int, float | None] | None = None
    error: str | None = None


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
    try:
        with client.chat.completions.stream(
            model="gpt-test", messages=[{"role": "user", "content": "Hi"}]
        ) as stream:
            for _event in stream:
                pass
            completion = stream.get_final_completion()
    except openai.APIError as exc:
        out.error = exc.message
        return out
    finally:
        client.close()
    if not completion.choices:
        return out
    choice = completion.choices[0]
    message = choice.message
    out.text = message.content or ""
    extra = message.model_extra or {}
    out.reasoning = extra.get("reasoning_content") or extra.get("reasoning") or ""
    out.calls = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []]
    if message.function_call is not None:
        out.calls.append((None, message.function_call.name, message.function_call.arguments))
    out.finish_reason = choice.finish_reason
    usage = completion.usage
    if usage is not None:
        details = usage.completion_tokens_details
        prompt_details = usage.prompt_tokens_details
        out.usage = (
            usage.prompt_tokens,
            usage.completion_tokens,
            (details.reasoning_tokens or 0) if details else 0,
            (prompt_details.cached_tokens or 0) if prompt_details else 0,
            (usage.model_extra or {}).get("cost"),
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
        provider = OpenAIChatProvider("http://test/v1", "sk-test", name="Ours", client=client)
        request = ChatRequest(model="gpt-test", messages=[Message.user("Hi")])
        async for event in provider.stream(request):
            if isinstance(event, TextDelta):
                out.text += event.text
            elif isinstance(event, ReasoningDelta):
                out.reasoning += event.text
            elif isinstance(event, ToolCallComplete):
                out.calls.append((event.id, event.name, event.arguments))
            elif isinstance(event, UsageEvent):
                u = event.usage
                out.usage = (
                    u.input_tokens,
                    u.output_tokens,
                    u.reasoning_tokens,
                    u.cached_tokens,
                    u.cost,
                )
            elif isinstance(event, EndEvent):
                out.finish_reason = event.provider_data.get(
                    "raw_finish_reason", event.finish_reason
                )
            elif isinstance(event, ErrorEvent):
                out.error = event.message
    return out


def compare(ours: Assembled, sdk: Assembled) -> None:
    if sdk.error is not None:
        assert ours.error is not None and ours.error.endswith(sdk.error)
        assert sdk.text in (ours.text, "")  # the SDK discards partial output
        return
    assert ours.text == sdk.text
    assert ours.reasoning == sdk.reasoning
    assert len(ours.calls) == len(sdk.calls)
    for (our_id, our_name, our_args), (sdk_id, sdk_name, sdk_args) in zip(
        ours.calls, sdk.calls, strict=True
    ):
        assert our_id == sdk_id if sdk_id is not None else our_id.startswith("call_")
        assert (our_name, our_args) == (sdk_name, sdk_args)
    assert ours.usage == sdk.usage
    if sdk.finish_reason is None:  # the SDK does not notice a cut stream; we must
        assert ours.error is not None and "ended unexpectedly" in ours.error
    else:
        assert ours.error is None
        assert normalize_finish_reason(ours.finish_reason) == normalize_finish_reason(
            sdk.finish_reason
        )


@pytest.mark.parametrize("size", [1, 7, None], ids=["1-byte", "7-bytes", "whole"])
@pytest.mark.parametrize("name", FIXTURES)
async def test_recorded_fixture_matches_sdk(name: str, size: int | None) -> None:
    data = (DATA / name).read_bytes()
    chunks = split_bytes(data, size) if size else [data]
    sdk = sdk_assemble(chunks)
    ours = await ours_assemble(chunks)
    compare(ours, sdk)


GENERATED = {
    "long-text": text_stream("The quick brown fox 🦊 jumps over the lazy dog. " * 40, 4),
    "text-and-reasoning": text_stream("Answer: 42", 2, reasoning="Let me think… yes."),
    "three-calls": tool_call_stream(
        [("a", '{"x": 1}'), ("b", '{"long": "' + "é" * 300 + '"}'), ("c", "{}")], split=3
    ),
    "text-then-call": tool_call_stream([("search", '{"q": "ünïcödé"}')], 2, text="Searching…"),
}


@pytest.mark.parametrize("size", [3, 64])
@pytest.mark.parametrize("case", sorted(GENERATED))
async def test_generated_streams_match_sdk(case: str, size: int) -> None:
    chunks = split_bytes(GENERATED[case], size)
    compare(await ours_assemble(chunks), sdk_assemble(chunks))
