"""Differential tests against the official ``ollama`` Python client (httpx underneath).

Responses: the client is fed the same recorded bytes through ``httpx.MockTransport``
and its streamed ``ChatResponse`` parts are assembled the way Ollama's own docs do
(concatenate ``thinking`` and ``content``, extend ``tool_calls``). Our events must
assemble to the same message, done reason and token counts; error transcripts must
fail in both. Requests: the same conversation sent through the client and through
us must produce the same JSON body.
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
    ReasoningDelta,
    TextDelta,
    ToolCallComplete,
    UsageEvent,
)
from desktop.core.messages import (
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from desktop.core.provider import ChatRequest, ToolSpec
from desktop.core.provider_options import OllamaOptions
from desktop.providers.ollama import OllamaProvider
from desktop.providers.ollama_format import build_ollama_body
from desktop.providers.ollama_stream import normalize_done_reason
from tests.support.lazy_import import lazy
from tests.support.openai_server import split_bytes

ollama = lazy("ollama")

DATA = Path(__file__).parent / "data"
TRANSCRIPTS = sorted(p.name for p in DATA.glob("ollama_*.ndjson"))


@dataclass
class Assembled:
    text: str = ""
    thinking: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    done_reason: str | None = None
    usage: tuple[int, int] | None = None
    error: str | None = None


def sdk_client(handler: Any) -> Any:
    return ollama.Client(host="http://test:11434", transport=httpx.MockTransport(handler))


def sdk_assemble(chunks: list[bytes]) -> Assembled:
    def handler(request: httpx.Request) -> httpx.Response:
        def body() -> Iterator[bytes]:
            yield from chunks

        return httpx.Response(200, headers={"content-type": "application/x-ndjson"},
                              content=body())  # fmt: skip

    out = Assembled()
    client = sdk_client(handler)
    try:
        for part in client.chat(model="m", messages=[{"role": "user", "content": "Hi"}],
                                stream=True):  # fmt: skip
            message = part.message
            out.thinking += message.thinking or ""
            out.text += message.content or ""
            for call in message.tool_calls or []:
                out.calls.append((call.function.name, dict(call.function.arguments)))
            if part.done:
                out.done_reason = part.done_reason
                out.usage = (part.prompt_eval_count or 0, part.eval_count or 0)
    except ollama.ResponseError as exc:  # an {"error": ...} line
        out.error = exc.error
    except json.JSONDecodeError:  # a cut stream: its last line is half a JSON object
        out.error = "cut"
    finally:
        client.close()
    return out


async def ours_assemble(chunks: list[bytes]) -> Assembled:
    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "application/x-ndjson"},
                              content=body())  # fmt: skip

    out = Assembled()
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        provider = OllamaProvider("http://test:11434", name="Ours", client=client)
        request = ChatRequest(model="m", messages=[Message.user("Hi")])
        async for event in provider.stream(request):
            if isinstance(event, TextDelta):
                out.text += event.text
            elif isinstance(event, ReasoningDelta):
                out.thinking += event.text
            elif isinstance(event, ToolCallComplete):
                out.calls.append((event.name, json.loads(event.arguments)))
            elif isinstance(event, UsageEvent):
                out.usage = (event.usage.input_tokens, event.usage.output_tokens)
            elif isinstance(event, EndEvent):
                out.done_reason = event.provider_data.get("raw_finish_reason", event.finish_reason)
            elif isinstance(event, ErrorEvent):
                out.error = event.message
    return out


def compare(ours: Assembled, sdk: Assembled) -> None:
    if sdk.error is not None:  # the client raises and keeps nothing; we keep the text
        assert ours.error is not None and ours.done_reason is None
        if sdk.error != "cut":
            assert ours.error == f"Ours: {sdk.error}"
        assert sdk.text in ours.text
        return
    assert ours.error is None
    assert (ours.text, ours.thinking, ours.calls, ours.usage) == (
        sdk.text, sdk.thinking, sdk.calls, sdk.usage)  # fmt: skip
    assert normalize_done_reason(ours.done_reason) == normalize_done_reason(sdk.done_reason)


@pytest.mark.parametrize("size", [1, 7, None], ids=["1-byte", "7-bytes", "whole"])
@pytest.mark.parametrize("name", TRANSCRIPTS)
async def test_transcript_matches_the_ollama_client(name: str, size: int | None) -> None:
    data = (DATA / name).read_bytes()
    chunks = split_bytes(data, size) if size else [data]
    compare(await ours_assemble(chunks), sdk_assemble(chunks))


# ---------------------------------------------------------------- request bodies

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "City name"}},
    "required": ["city"],
}


def test_request_body_matches_the_ollama_client() -> None:
    """One conversation with every message shape, sent both ways."""
    conversation = [
        Message(role="user", parts=[TextPart(text="What is in this photo, and the weather?"),
                                    ImagePart(media_type="image/png", data="iVBORw0KGgo=")]),
        Message(role="assistant", parts=[
            ReasoningPart(text="Look, then call the tool twice."),
            TextPart(text="A harbour. Checking the weather."),
            ToolCallPart(id="call_1", name="get_weather", arguments='{"city": "Oslo"}'),
            ToolCallPart(id="call_2", name="get_weather", arguments='{"city": "Bergen"}'),
        ]),
        Message(role="tool", parts=[
            ToolResultPart(tool_call_id="call_1", name="get_weather", content="4 °C"),
            ToolResultPart(tool_call_id="call_2", name="get_weather", content="7 °C, rain"),
        ]),
        Message.user("Thanks!"),
    ]  # fmt: skip
    request = ChatRequest(model="qwen2.5vl:7b", messages=conversation, system="Be brief.",
                          tools=[ToolSpec("get_weather", "Current weather", SCHEMA)],
                          temperature=0.3, max_tokens=256, reasoning=True)  # fmt: skip
    ours = build_ollama_body(request, OllamaOptions(keep_alive="10m"))

    sent: list[Any] = []

    def handler(http_request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(http_request.content))
        return httpx.Response(200, json={"model": "m", "created_at": "2025-07-07T20:22:19Z",
                                         "message": {"role": "assistant", "content": "ok"},
                                         "done": True})  # fmt: skip

    client = sdk_client(handler)
    try:
        client.chat(
            model="qwen2.5vl:7b",
            messages=[
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "What is in this photo, and the weather?",
                 "images": ["iVBORw0KGgo="]},
                {"role": "assistant", "content": "A harbour. Checking the weather.",
                 "thinking": "Look, then call the tool twice.",
                 "tool_calls": [
                     {"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}},
                     {"function": {"name": "get_weather", "arguments": {"city": "Bergen"}}},
                 ]},
                {"role": "tool", "content": "4 °C", "tool_name": "get_weather"},
                {"role": "tool", "content": "7 °C, rain", "tool_name": "get_weather"},
                {"role": "user", "content": "Thanks!"},
            ],
            tools=[{"type": "function", "function": {"name": "get_weather",
                                                     "description": "Current weather",
                                                     "parameters": SCHEMA}}],
            think=True,
            options={"temperature": 0.3, "num_predict": 256},
            keep_alive="10m",
            stream=True,
        ).__next__()
    finally:
        client.close()
    assert ours == sent[0]
