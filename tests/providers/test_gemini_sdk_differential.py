"""Differential tests against Google's official ``google-genai`` SDK (test-only dependency).

The SDK takes a caller's ``httpx.Client`` (``HttpOptions(httpx_client=...)``), so it is
fed the very bytes our provider reads, through ``httpx.MockTransport``; what
``client.models.generate_content_stream`` parses (text, thoughts, function calls with
ids and thought signatures, usage, finish reason, grounding) is the reference for
what we assemble. Streams that fail must fail in both.

On the request side, every content, tool and generation config we build validates
against the SDK's pydantic types (which forbid unknown fields), and the request the
SDK sends for the same conversation, built from its own types, equals ours once the
SDK's encoding choices are normalized (it mixes snake_case keys in and re-encodes
bytes as URL-safe base64; we send signatures verbatim, as Google returned them).
"""

from __future__ import annotations

import base64
import functools
import json
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from desktop.core.accumulator import MessageBuilder
from desktop.core.events import (
    EndEvent,
    ErrorEvent,
    ReasoningComplete,
    ReasoningDelta,
    SourcesEvent,
    TextDelta,
    ToolCallComplete,
    UsageEvent,
)
from desktop.core.messages import ImagePart, Message, TextPart, ToolResultPart, Usage
from desktop.core.provider import ChatRequest, ToolSpec
from desktop.core.provider_options import GeminiOptions
from desktop.providers.gemini import GeminiProvider
from desktop.providers.gemini_format import SERVER_ID, SIGNATURE, SIGNED_TEXT, build_gemini_body
from desktop.providers.gemini_stream import GeminiStreamParser
from tests.support.gemini_server import gemini_chunk, gemini_sse, gemini_text_stream
from tests.support.lazy_import import lazy
from tests.support.openai_server import split_bytes

genai = lazy("google.genai")
types = lazy("google.genai.types")
genai_errors = lazy("google.genai.errors")

DATA = Path(__file__).parent / "data" / "gemini"
FIXTURES = sorted(p.name for p in DATA.glob("*.sse"))
KEY = "AIzaSyD-test0123456789abcdefghijklmnopq"


@dataclass
class Assembled:
    text: str = ""
    reasoning: str = ""
    calls: list[tuple[str | None, str, dict[str, Any], bytes | None]] = field(default_factory=list)
    signatures: list[tuple[str, bytes]] = field(default_factory=list)  # (thought|text, bytes)
    usage: Usage | None = None
    finish_reason: str | None = None
    sources: list[tuple[str, str | None]] = field(default_factory=list)
    blocked: str | None = None
    error: str | None = None


def sdk_usage(meta: Any) -> Usage:
    """The SDK's raw counts, normalized the way our adapter documents it."""
    thoughts = meta.thoughts_token_count or 0
    return Usage(
        input_tokens=(meta.prompt_token_count or 0) + (meta.tool_use_prompt_token_count or 0),
        output_tokens=(meta.candidates_token_count or 0) + thoughts,
        reasoning_tokens=thoughts,
        cached_tokens=meta.cached_content_token_count or 0,
    )


def sdk_fold(out: Assembled, response: Any) -> None:
    """Fold one SDK ``GenerateContentResponse`` into ``out``."""
    if response.prompt_feedback is not None and response.prompt_feedback.block_reason:
        out.blocked = response.prompt_feedback.block_reason.value
    if response.usage_metadata is not None:
        out.usage = sdk_usage(response.usage_metadata)
    if not response.candidates:
        return
    candidate = response.candidates[0]
    content = candidate.content
    for part in (content.parts or []) if content is not None else []:
        signature = part.thought_signature
        if part.thought:
            out.reasoning += part.text or ""
            if signature:
                out.signatures.append(("thought", signature))
        elif part.function_call is not None:
            call = part.function_call
            out.calls.append((call.id, call.name or "", dict(call.args or {}), signature))
        elif part.text is not None:
            out.text += part.text
            if signature:
                out.signatures.append(("text", signature))
    grounding = candidate.grounding_metadata
    for chunk in (grounding.grounding_chunks or []) if grounding is not None else []:
        if chunk.web is not None:
            out.sources.append((chunk.web.title or "", chunk.web.uri))
    if candidate.finish_reason is not None:
        out.finish_reason = candidate.finish_reason.value


#: What the SDK's client is served next (one client for the module: building one loads
#: the certificate store twice, ~50 ms, more than reading a stream costs).
_SERVED: list[list[bytes]] = []


@functools.cache
def sdk_client() -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        chunks = _SERVED.pop()

        def body() -> Iterator[bytes]:
            yield from chunks

        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    http_client = httpx.Client(transport=httpx.MockTransport(handler))
    options = types.HttpOptions(base_url="http://test/", api_version="v1beta",
                                httpx_client=http_client)  # fmt: skip
    return genai.Client(api_key=KEY, http_options=options)


def sdk_assemble(chunks: list[bytes]) -> Assembled:
    _SERVED[:] = [chunks]
    out = Assembled()
    try:
        for response in sdk_client().models.generate_content_stream(model="gemini-test",
                                                                    contents="Hi"):
            sdk_fold(out, response)
    except (genai_errors.APIError, genai_errors.UnknownApiResponseError) as exc:
        out.error = str(getattr(exc, "message", None) or exc)
    assert _SERVED == []  # (one request, not retried)
    return out


async def ours_assemble(chunks: list[bytes]) -> Assembled:
    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    out = Assembled()
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        provider = GeminiProvider("http://test/v1beta", KEY, name="Ours", client=client)
        request = ChatRequest(model="gemini-test", messages=[Message.user("Hi")])
        async for event in provider.stream(request):
            ours_fold(out, event)
    return out


def ours_fold(out: Assembled, event: Any) -> None:
    if isinstance(event, TextDelta):
        out.text += event.text
    elif isinstance(event, ReasoningDelta):
        out.reasoning += event.text
    elif isinstance(event, ReasoningComplete) and SIGNATURE in event.provider_data:
        kind = "text" if SIGNED_TEXT in event.provider_data else "thought"
        out.signatures.append((kind, base64.b64decode(event.provider_data[SIGNATURE])))
    elif isinstance(event, ToolCallComplete):
        data = event.provider_data
        signature = base64.b64decode(data[SIGNATURE]) if SIGNATURE in data else None
        out.calls.append((data.get(SERVER_ID), event.name, json.loads(event.arguments), signature))
    elif isinstance(event, UsageEvent):
        out.usage = event.usage
    elif isinstance(event, SourcesEvent):
        out.sources += [(s.title, s.url) for s in event.sources]
    elif isinstance(event, EndEvent):
        out.finish_reason = event.provider_data["raw_finish_reason"]
    elif isinstance(event, ErrorEvent):
        out.error = event.message
        if event.code == "prompt_blocked":
            out.blocked = event.message.rsplit("(", 1)[1].rstrip(")")
        elif event.code and event.code.isupper():  # a failure finish reason, e.g. SAFETY
            out.finish_reason = event.code


def compare(ours: Assembled, sdk: Assembled) -> None:
    assert ours.text == sdk.text  # the SDK yields chunk by chunk, so partial text counts too
    assert ours.reasoning == sdk.reasoning
    assert ours.calls == sdk.calls
    assert ours.signatures == sdk.signatures
    assert ours.sources == sdk.sources
    assert ours.blocked == sdk.blocked
    if sdk.error is not None:  # an error chunk, or a cut JSON line the SDK cannot parse
        assert ours.error is not None
        assert ours.usage in (sdk.usage, None)
        return
    assert ours.usage == sdk.usage
    if sdk.blocked is not None:  # the SDK reports it in prompt_feedback; we end with an error
        assert ours.error is not None and f"({sdk.blocked})" in ours.error
        return
    if sdk.finish_reason is None:  # the SDK does not notice a stream that just stops; we must
        assert ours.error is not None and "ended unexpectedly" in ours.error
        return
    assert ours.finish_reason == sdk.finish_reason
    if sdk.finish_reason in ("STOP", "MAX_TOKENS") and sdk.blocked is None:
        assert ours.error is None
    else:
        assert ours.error is not None and sdk.finish_reason in ours.error


@pytest.mark.parametrize("size", [1, 7, None], ids=["1-byte", "7-bytes", "whole"])
@pytest.mark.parametrize("name", FIXTURES)
async def test_recorded_fixture_matches_sdk(name: str, size: int | None) -> None:
    data = (DATA / name).read_bytes()
    chunks = split_bytes(data, size) if size else [data]
    compare(await ours_assemble(chunks), sdk_assemble(chunks))


GENERATED = {
    "long-text": gemini_text_stream("The quick brown fox 🦊 jumps over the lazy dog. " * 40, 5),
    "thoughts-calls-text": gemini_sse([
        gemini_chunk([{"text": "Plan… ", "thought": True}]),
        gemini_chunk([{"text": "ok", "thought": True, SIGNATURE: "c2lnLXRob3VnaHQ="}]),
        gemini_chunk([{"functionCall": {"name": "a", "args": {"x": [1, 2.5, None]}}},
                      {"functionCall": {"name": "a", "args": {}}, SIGNATURE: "c2lnLWNhbGw="}]),
        gemini_chunk([{"text": "é" * 300}, {"text": "", SIGNATURE: "c2lnLXRleHQ="}], "STOP",
                     usage={"promptTokenCount": 5, "candidatesTokenCount": 9,
                            "thoughtsTokenCount": 4, "cachedContentTokenCount": 2,
                            "totalTokenCount": 18}),
    ]),
    "max-tokens-mid-call": gemini_sse([gemini_chunk([{"text": "abc"}], "MAX_TOKENS",
                                                    usage=(3, 1))]),
    "recitation": gemini_sse([gemini_chunk([{"text": "To be"}]), gemini_chunk(None, "RECITATION")]),
}  # fmt: skip


@pytest.mark.parametrize("size", [3, 64])
@pytest.mark.parametrize("case", sorted(GENERATED))
async def test_generated_streams_match_sdk(case: str, size: int) -> None:
    chunks = split_bytes(GENERATED[case], size)
    compare(await ours_assemble(chunks), sdk_assemble(chunks))


# ---------------------------------------------------------------- per-chunk validation


def data_lines(name: str) -> list[str]:
    blocks = (DATA / name).read_bytes().decode().split("\r\n\r\n")
    return [b.removeprefix("data: ") for b in blocks if b.startswith("data: ")]


@pytest.mark.parametrize("name", FIXTURES)
def test_each_chunk_is_a_valid_sdk_response(name: str) -> None:
    """Every chunk follows Google's published schema (the SDK's models forbid unknown
    fields), and our parser reads from it what the SDK reads."""
    checked = 0
    for line in data_lines(name):
        try:
            data = json.loads(line)
        except ValueError:
            assert name == "gemini_cut.sse"  # the line the connection cut
            continue
        if "error" in data:
            continue  # a google.rpc.Status, not a GenerateContentResponse
        response = types.GenerateContentResponse.model_validate(data)
        reference = Assembled()
        sdk_fold(reference, response)
        ours = Assembled()
        for event in GeminiStreamParser().feed_chunk(data):
            ours_fold(ours, event)
        assert (ours.text, ours.reasoning, ours.calls, ours.signatures, ours.sources) == (
            reference.text, reference.reasoning, reference.calls, reference.signatures,
            reference.sources,
        )  # fmt: skip
        checked += 1
    assert checked >= 1


# ---------------------------------------------------------------- the request side

SCHEMA = {"type": "object",
          "properties": {"location": {"type": "string"}, "days": {"type": ["integer", "null"]}},
          "required": ["location"], "additionalProperties": False}  # fmt: skip
SIG_CALL = base64.b64encode(b"\x12\x0asignature-of-the-call+/").decode()
SIG_TEXT = base64.b64encode(b"\x12\x0asignature-of-text??").decode()
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n-image-bytes").decode()


async def conversation() -> tuple[ChatRequest, list[Any]]:
    """A two-round conversation assembled from a real stream, and the same one in SDK types."""
    stream = gemini_sse([
        gemini_chunk([{"text": "Let me check", SIGNATURE: SIG_TEXT}]),
        gemini_chunk([{"functionCall": {"id": "fc1", "name": "get_weather",
                                        "args": {"location": "Paris", "days": 2}},
                       SIGNATURE: SIG_CALL}], "STOP"),
    ])  # fmt: skip
    parser = GeminiStreamParser()
    builder = MessageBuilder(model="gemini-test", provider="Gemini")
    for sse in [json.loads(line.decode()[6:]) for line in stream]:
        for event in parser.feed_chunk(sse):
            builder.feed(event)
    for event in parser.finish():
        builder.feed(event)
    assistant = builder.finish("complete")
    call = assistant.tool_calls[0]
    messages = [
        Message(role="user", parts=[TextPart(text="Weather?"),
                                    ImagePart(media_type="image/png", data=PNG)]),
        assistant,
        Message(role="tool", parts=[ToolResultPart(tool_call_id=call.id, name=call.name,
                                                   content="sunny")]),
        Message.user("Thanks"),
    ]  # fmt: skip
    request = ChatRequest(model="gemini-test", messages=messages, system="Be brief",
                          tools=[ToolSpec("get_weather", "Weather for a place", SCHEMA)],
                          temperature=0.4, max_tokens=512, reasoning=True,
                          reasoning_budget=2048)  # fmt: skip
    sdk_contents = [
        types.Content(role="user", parts=[
            types.Part.from_text(text="Weather?"),
            types.Part(inline_data=types.Blob(mime_type="image/png",
                                              data=base64.b64decode(PNG))),
        ]),
        types.Content(role="model", parts=[
            types.Part(text="Let me check", thought_signature=base64.b64decode(SIG_TEXT)),
            types.Part(function_call=types.FunctionCall(
                id="fc1", name="get_weather", args={"location": "Paris", "days": 2}),
                thought_signature=base64.b64decode(SIG_CALL)),
        ]),
        types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
            id="fc1", name="get_weather", response={"result": "sunny"}))]),
        types.Content(role="user", parts=[types.Part.from_text(text="Thanks")]),
    ]  # fmt: skip
    return request, sdk_contents


def sdk_request(contents: list[Any]) -> httpx.Request:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        body = gemini_sse([gemini_chunk([{"text": "ok"}], "STOP")])[0]
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    config = types.GenerateContentConfig(
        system_instruction="Be brief",
        temperature=0.4,
        max_output_tokens=512,
        thinking_config=types.ThinkingConfig(include_thoughts=True, thinking_budget=2048),
        tools=[types.Tool(function_declarations=[types.FunctionDeclaration(
            name="get_weather", description="Weather for a place",
            parameters_json_schema=SCHEMA)])],
    )  # fmt: skip
    with httpx.Client(transport=httpx.MockTransport(handler)) as http_client:
        options = types.HttpOptions(base_url="http://test/", api_version="v1beta",
                                    httpx_client=http_client)  # fmt: skip
        client = genai.Client(api_key=KEY, http_options=options)
        list(client.models.generate_content_stream(model="gemini-test", contents=contents,
                                                   config=config))  # fmt: skip
    return seen[0]


_OPAQUE = {"args", "response", "parametersJsonSchema", "parameters_json_schema"}
_BYTES = {"thoughtSignature", "thought_signature", "data"}


def _camel(key: str) -> str:
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), key)


def normalize(node: Any) -> Any:
    """camelCase keys (not inside opaque JSON values), bytes fields decoded."""
    if isinstance(node, list):
        return [normalize(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _BYTES and isinstance(value, str):
            standard = value.replace("-", "+").replace("_", "/").rstrip("=")
            out[_camel(key)] = base64.b64decode(standard + "=" * (-len(standard) % 4))
        else:
            out[_camel(key)] = value if key in _OPAQUE else normalize(value)
    return out


async def test_request_matches_the_sdk_request() -> None:
    request, sdk_contents = await conversation()
    ours_body = build_gemini_body(request)
    sent = sdk_request(sdk_contents)
    theirs = normalize(json.loads(sent.content))
    theirs["systemInstruction"].pop("role", None)  # optional; Google's REST examples omit it
    assert normalize(ours_body) == theirs
    assert ours_body["contents"][1]["parts"][1][SIGNATURE] == SIG_CALL  # verbatim, not re-encoded
    assert sent.url.path == "/v1beta/models/gemini-test:streamGenerateContent"
    assert sent.url.params["alt"] == "sse" and sent.headers["x-goog-api-key"] == KEY


async def test_request_parts_validate_against_sdk_types() -> None:
    request, _ = await conversation()
    body = build_gemini_body(request, GeminiOptions(google_search=True, thinking_level="low"))
    for content in body["contents"]:
        types.Content.model_validate(content)
    types.Content.model_validate(body["systemInstruction"])
    for tool in body["tools"]:
        types.Tool.model_validate(tool)
    types.GenerationConfig.model_validate(body["generationConfig"])
