"""GeminiProvider end to end against the loopback fake Gemini server.

Recorded transcripts live in ``data/gemini/`` (written by hand in the documented
``GenerateContentResponse`` format, with Google's CRLF SSE framing; every chunk is
checked against the official SDK's pydantic types in the differential test):

| file | what it exercises |
| --- | --- |
| ``gemini_text.sse`` | text in three chunks, multi-byte UTF-8, hidden thinking tokens |
| ``gemini_thoughts.sse`` | thoughts, text, then an empty signed text part (Gemini 3) |
| ``gemini_signed_parts.sse`` | a signed thought part, a signed non-empty text part, unsigned text |
| ``gemini_function_call.sse`` | text, then one ``functionCall`` without id in the finishing chunk |
| ``gemini_two_calls.sse`` | two calls to one function in separate chunks, no ids; cached tokens |
| ``gemini_call_signature.sse`` | thought, two parallel calls with ids, the first signed |
| ``gemini_safety.sse`` | text, then ``finishReason: SAFETY`` with blocked safety ratings |
| ``gemini_malformed_call.sse`` | ``MALFORMED_FUNCTION_CALL`` with a ``finishMessage`` |
| ``gemini_grounding.sse`` | Google Search grounding: chunks, supports, tool-use prompt tokens |
| ``gemini_cut.sse`` | text, then the body stops inside a ``data:`` line (served cut) |
| ``gemini_prompt_blocked.sse`` | ``promptFeedback.blockReason`` and no candidates |
| ``gemini_error_in_stream.sse`` | text, then ``{"error": {...}}`` inside the stream |
| ``gemini_max_tokens.sse`` | ``finishReason: MAX_TOKENS`` |
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from desktop.core.accumulator import MessageBuilder
from desktop.core.errors import ProviderError
from desktop.core.events import (
    EndEvent,
    ErrorEvent,
    ReasoningComplete,
    ReasoningDelta,
    SourcesEvent,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    ToolCallStarted,
    UsageEvent,
)
from desktop.core.messages import Message, Source, ToolCallPart, ToolResultPart, Usage
from desktop.core.orchestrator import Orchestrator
from desktop.core.provider import ChatRequest, ModelCapabilities, ModelInfo, Provider, ToolSpec
from desktop.core.settings import ProviderConfig
from desktop.core.tooling import NoTools
from desktop.providers.factory import create_provider
from desktop.providers.gemini import GeminiProvider, model_path
from desktop.providers.gemini_format import SERVER_ID, SIGNATURE, SIGNED_TEXT
from desktop.providers.presets import config_from_preset
from desktop.providers.registry import wire_api
from desktop.providers.retry import RetryPolicy
from tests.support.fixtures import RecordingSleep
from tests.support.gemini_server import (
    GEMINI_MODELS_PATH,
    FakeGeminiServer,
    gemini_chunk,
    gemini_error,
    gemini_model,
    gemini_sse,
    gemini_text_stream,
)
from tests.support.openai_server import ScriptedResponse, split_bytes

DATA = Path(__file__).parent / "data" / "gemini"
KEY = "AIzaSyD-test0123456789abcdefghijklmnopq"
MODEL = "gemini-test"
REQUEST = ChatRequest(model=MODEL, messages=[Message.user("Hi")])


@pytest.fixture
def server() -> Iterator[FakeGeminiServer]:
    with FakeGeminiServer() as fake:
        yield fake


def fixture_bytes(name: str) -> bytes:
    return (DATA / name).read_bytes()


def raw_chunks(name: str) -> list[dict[str, Any]]:
    """The fixture's complete ``data:`` JSON objects, read without our decoder."""
    out = []
    for block in fixture_bytes(name).decode().split("\r\n\r\n"):
        with contextlib.suppress(ValueError):
            out.append(json.loads(block.removeprefix("data: ")))
    return out


def raw_part(name: str, chunk: int, part: int = 0) -> dict[str, Any]:
    parts: list[dict[str, Any]] = raw_chunks(name)[chunk]["candidates"][0]["content"]["parts"]
    return parts[part]


@dataclass
class Outcome:
    """Everything one stream produced, assembled."""

    events: list[StreamEvent]

    @property
    def text(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, TextDelta))

    @property
    def reasoning(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, ReasoningDelta))

    @property
    def calls(self) -> list[ToolCallComplete]:
        return self.of(ToolCallComplete)

    @property
    def usage(self) -> Usage | None:
        found = [e.usage for e in self.events if isinstance(e, UsageEvent)]
        assert len(found) <= 1
        return found[0] if found else None

    @property
    def signatures(self) -> list[tuple[str, str, Any]]:
        """(kind, signature, text or signed length) of every signed reasoning event."""
        out = []
        for e in self.of(ReasoningComplete):
            sig = e.provider_data.get(SIGNATURE)
            if sig and SIGNED_TEXT in e.provider_data:
                out.append(("text", sig, e.provider_data[SIGNED_TEXT]))
            elif sig:
                out.append(("thought", sig, e.text))
        return out

    @property
    def last(self) -> StreamEvent:
        return self.events[-1]

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


async def collect(provider: GeminiProvider, request: ChatRequest = REQUEST) -> Outcome:
    return Outcome([event async for event in provider.stream(request)])


def make(server: FakeGeminiServer, **kwargs: Any) -> GeminiProvider:
    kwargs.setdefault("retry", RetryPolicy(sleep=RecordingSleep()))
    return GeminiProvider(server.base_url, kwargs.pop("api_key", KEY), name="Gem", **kwargs)


def assert_terminal(outcome: Outcome) -> None:
    """Exactly one EndEvent or ErrorEvent, and it is the last event."""
    terminal = [e for e in outcome.events if isinstance(e, EndEvent | ErrorEvent)]
    assert len(terminal) == 1 and terminal[0] is outcome.last


# ---------------------------------------------------------------- recorded fixtures

TEXT = (
    "Sure! Here’s a quick summary:\n\n- **Paris** is the capital of France 🇫🇷.\n- It is "
    "known as *la Ville Lumière* (光の都).\n\nWant more détails?"
)
THOUGHTS = (
    "**Comparing decimals**\n\nThe user asks which is larger, 9.11 or 9.8. Compare the "
    "fractional parts: 0.11 < 0.80."
)
PLANNING = "**Planning a greeting**\n\nA short, friendly reply in French."
SP = "São Paulo, Brazil"
UEFA = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQH9kqJ3wV0y2"
ALJ = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQFz8p1LmT4k"
EXPECTED: dict[str, dict[str, Any]] = {
    "gemini_text.sse": {"text": TEXT, "usage": Usage(input_tokens=9, output_tokens=303,
                                                      reasoning_tokens=265), "end": "stop"},
    "gemini_thoughts.sse": {
        "text": "**9.8** is larger than 9.11, because 0.8 > 0.11.",
        "reasoning": THOUGHTS,
        "signatures": [("text", (4, 0), 0)],
        "usage": Usage(input_tokens=17, output_tokens=109, reasoning_tokens=88),
        "end": "stop",
    },
    "gemini_signed_parts.sse": {
        "text": "Bonjour ! Comment puis-je vous aider aujourd’hui ?",
        "reasoning": PLANNING,
        "signatures": [("thought", (0, 0), PLANNING), ("text", (1, 0), len("Bonjour ! "))],
        "usage": Usage(input_tokens=11, output_tokens=64, reasoning_tokens=52),
        "end": "stop",
    },
    "gemini_function_call.sse": {
        "text": "I'll check the forecast.",
        "calls": [(None, "get_weather", {"location": SP, "unit": "celsius", "days": 3}, None)],
        "usage": Usage(input_tokens=84, output_tokens=24),
        "end": "tool_calls",
    },
    "gemini_two_calls.sse": {
        "calls": [
            (None, "read_file", {"path": "src/main.py"}, None),
            (None, "read_file", {"path": "README.md"}, None),
        ],
        "usage": Usage(input_tokens=152, output_tokens=31, cached_tokens=128),
        "end": "tool_calls",
    },
    "gemini_call_signature.sse": {
        "reasoning": "**Checking both cities**\n\nI need the weather for Paris and London.",
        "calls": [
            ("k2f8q1zw", "get_weather", {"location": "Paris, France"}, (1, 0)),
            ("p7d3m0xa", "get_weather", {"location": "London, UK"}, None),
        ],
        "usage": Usage(input_tokens=96, output_tokens=179, reasoning_tokens=141),
        "end": "tool_calls",
    },
    "gemini_safety.sse": {
        "text": "Here is how",
        "usage": Usage(input_tokens=23, output_tokens=3),
        "error": ("Gem: Gemini stopped: the answer was blocked for safety (SAFETY)", "SAFETY"),
    },
    "gemini_malformed_call.sse": {
        "usage": Usage(input_tokens=130),
        "error": (
            "Gem: Gemini stopped: the model produced a malformed function call "
            "(MALFORMED_FUNCTION_CALL): Malformed function call: "
            "print(default_api.get_weather(location='Paris'",
            "MALFORMED_FUNCTION_CALL",
        ),
    },
    "gemini_grounding.sse": {
        "text": "Spain won UEFA Euro 2024, beating England 2–1 in the final in Berlin.",
        "sources": [Source(title="uefa.com", url=UEFA), Source(title="aljazeera.com", url=ALJ)],
        "usage": Usage(input_tokens=172, output_tokens=19),
        "end": "stop",
    },
    "gemini_cut.sse": {
        "text": "Once upon a time, in a land far away",
        "usage": Usage(input_tokens=6),
        "error": ("Gem: the stream ended unexpectedly", "stream_interrupted"),
    },
    "gemini_prompt_blocked.sse": {
        "usage": Usage(input_tokens=12),
        "error": (
            "Gem: Gemini blocked the prompt: it may contain prohibited content "
            "(PROHIBITED_CONTENT)",
            "prompt_blocked",
        ),
    },
    "gemini_error_in_stream.sse": {
        "text": "The answer is",
        "error": ("Gem: The model is overloaded. Please try again later.", "UNAVAILABLE"),
    },
    "gemini_max_tokens.sse": {
        "text": "The history of Rome begins with",
        "usage": Usage(input_tokens=10, output_tokens=8),
        "end": "length",
    },
}  # fmt: skip


def check_expected(name: str, outcome: Outcome) -> None:
    expected = EXPECTED[name]
    assert outcome.text == expected.get("text", "")
    assert outcome.reasoning == expected.get("reasoning", "")
    calls = expected.get("calls", [])
    assert len(outcome.calls) == len(calls)
    for got, (want_id, want_name, want_args, sig_at) in zip(outcome.calls, calls, strict=True):
        if want_id:
            assert got.id == want_id and got.provider_data[SERVER_ID] == want_id
        else:
            assert got.id.startswith("call_") and SERVER_ID not in got.provider_data
        assert (got.name, json.loads(got.arguments)) == (want_name, want_args)
        want_sig = raw_part(name, *sig_at)[SIGNATURE] if sig_at else None
        assert got.provider_data.get(SIGNATURE) == want_sig
    assert len({c.id for c in outcome.calls}) == len(calls)  # two calls stay two calls
    started = [(e.index, e.id, e.name) for e in outcome.of(ToolCallStarted)]
    assert [(e.index, e.id, e.name) for e in outcome.calls] == started
    signatures = [
        (kind, raw_part(name, *where)[SIGNATURE], extra)
        for kind, where, extra in expected.get("signatures", [])
    ]
    assert outcome.signatures == signatures
    sources = [s for e in outcome.of(SourcesEvent) for s in e.sources]
    assert sources == expected.get("sources", [])
    assert outcome.usage == expected.get("usage")
    assert_terminal(outcome)
    if "error" in expected:
        message, code = expected["error"]
        assert isinstance(outcome.last, ErrorEvent)
        assert outcome.last.code == code
        if code == "stream_interrupted":  # worded by the transport error or by the parser
            assert outcome.last.message.startswith(message)
        else:
            assert outcome.last.message == message
        assert outcome.last.provider == "Gem"
    else:
        assert isinstance(outcome.last, EndEvent)
        assert outcome.last.finish_reason == expected["end"]
        assert outcome.last.provider_data["raw_finish_reason"] in ("STOP", "MAX_TOKENS")
        assert outcome.last.provider_data["gemini_response_id"] == raw_chunks(name)[0]["responseId"]
        assert "response_id" not in outcome.last.provider_data  # the Responses adapter's key


@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_recorded_fixture_over_loopback(server: FakeGeminiServer, name: str) -> None:
    """What each transcript means (any chunking gives the same: test_stream_contract)."""
    data = fixture_bytes(name)
    server.enqueue_stream(ScriptedResponse(chunks=[data], cut=name == "gemini_cut.sse"))
    async with make(server) as provider:
        outcome = await collect(provider)
    check_expected(name, outcome)


def test_every_fixture_is_checked() -> None:
    assert sorted(p.name for p in DATA.glob("*.sse")) == sorted(EXPECTED)


def mock_client(chunks: list[bytes], content_type: str = "text/event-stream") -> httpx.AsyncClient:
    """An httpx client whose response body arrives in exactly these chunks."""

    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": content_type}, content=body())

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def test_whole_stream_as_a_json_array() -> None:
    """A proxy that ignores ``alt=sse`` sends the chunks as one JSON array."""
    body = json.dumps(raw_chunks("gemini_function_call.sse")).encode()
    async with mock_client([body], "application/json; charset=UTF-8") as client:
        provider = GeminiProvider("http://test/v1beta", name="Gem", client=client)
        check_expected("gemini_function_call.sse", await collect(provider))


async def test_cut_after_finish_reason_is_a_complete_answer(server: FakeGeminiServer) -> None:
    server.enqueue_stream(ScriptedResponse(chunks=gemini_text_stream("Done.", 2), cut=True))
    async with make(server) as provider:
        outcome = await collect(provider)
    assert outcome.text == "Done." and outcome.last == EndEvent("stop", outcome.last.provider_data)
    assert outcome.usage == Usage(input_tokens=5, output_tokens=3)


# ---------------------------------------------------------------- request shape


async def test_request_url_headers_and_body(server: FakeGeminiServer) -> None:
    server.enqueue_text("ok")
    provider = make(server, headers={"X-Title": "Assista Desktop"})
    request = ChatRequest(model=MODEL, messages=[Message.user("Hi")], system="Be brief",
                          temperature=0.5, max_tokens=256)  # fmt: skip
    assert (await collect(provider, request)).text == "ok"
    await provider.aclose()
    sent = server.stream_requests[0]
    assert sent.method == "POST"
    assert sent.path == f"/v1beta/models/{MODEL}:streamGenerateContent?alt=sse"
    assert sent.headers["x-goog-api-key"] == KEY
    assert KEY not in sent.path and KEY not in sent.body.decode()  # never in the URL
    assert "authorization" not in sent.headers
    assert sent.headers["x-title"] == "Assista Desktop"
    assert sent.headers["accept"] == "text/event-stream"
    assert sent.headers["content-type"] == "application/json"
    assert sent.headers["user-agent"].startswith("AssistaDesktop/")
    assert sent.json == {
        "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
        "systemInstruction": {"parts": [{"text": "Be brief"}]},
        "generationConfig": {"temperature": 0.5, "maxOutputTokens": 256},
    }


async def test_no_key_no_key_header(server: FakeGeminiServer) -> None:
    server.enqueue_text("ok")
    async with make(server, api_key=None) as provider:
        assert (await collect(provider)).text == "ok"
    assert "x-goog-api-key" not in server.stream_requests[0].headers


async def test_base_url_query_string_is_kept(server: FakeGeminiServer) -> None:
    server.enqueue_text("ok")
    async with GeminiProvider(f"{server.base_url}/?$alt=json;enum-encoding=int") as provider:
        await collect(provider)
    path = server.requests[0].path
    assert path.startswith(f"/v1beta/models/{MODEL}:streamGenerateContent?")
    assert "alt=sse" in path and "enum-encoding" in path


@pytest.mark.parametrize(
    ("model", "path"),
    [
        ("gemini-2.5-flash", "models/gemini-2.5-flash"),
        ("models/gemini-2.5-pro", "models/gemini-2.5-pro"),
        (" gemini-3-pro-preview ", "models/gemini-3-pro-preview"),
        ("tunedModels/my-model-7x2", "tunedModels/my-model-7x2"),
        ("odd name?x", "models/odd%20name%3Fx"),
    ],
)
def test_model_path(model: str, path: str) -> None:
    assert model_path(model) == path


async def test_thinking_defaults_and_search_reach_the_body(server: FakeGeminiServer) -> None:
    """Thinking defaults go through the agent loop, the Search switch to the adapter."""
    server.enqueue_text("ok")
    config = ProviderConfig(name="G", kind="gemini", base_url=server.base_url,
                            options={"reasoning": True, "reasoning_budget": 2048,
                                     "google_search": True})  # fmt: skip
    provider = create_provider(config, KEY)
    orchestrator = Orchestrator(provider, NoTools(),
                                request_options=config.options.request_options())
    await orchestrator.run([Message.user("Hi")], model=MODEL)
    await provider.aclose()
    body = server.last_body
    assert body["generationConfig"] == {
        "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 2048}
    }
    assert body["tools"] == [{"googleSearch": {}}]


def test_is_a_provider_and_registered() -> None:
    provider = GeminiProvider("https://generativelanguage.googleapis.com/v1beta", KEY)
    assert isinstance(provider, Provider)
    assert provider.name == "Google Gemini"
    assert provider.supports_tools and provider.supports_reasoning
    assert KEY not in repr(provider)
    assert wire_api("gemini") is GeminiProvider


async def test_created_from_the_preset() -> None:
    config = config_from_preset("gemini")
    provider = create_provider(config, KEY)
    assert isinstance(provider, GeminiProvider)
    assert provider.base_url == "https://generativelanguage.googleapis.com/v1beta"
    await provider.aclose()


# ---------------------------------------------------------------- tool round trip


class WeatherTools:
    """A ToolRunner with one tool, for the agent loop."""

    def specs(self) -> list[ToolSpec]:
        schema = {"type": "object", "properties": {"location": {"type": "string"}}}
        return [ToolSpec("get_weather", "Current weather", schema)]

    async def run(self, call: ToolCallPart) -> ToolResultPart:
        city = json.loads(call.arguments)["location"].split(",")[0]
        return ToolResultPart(tool_call_id=call.id, name=call.name, content=f"{city}: sunny")


async def test_agent_loop_sends_the_signed_call_back(server: FakeGeminiServer) -> None:
    name = "gemini_call_signature.sse"
    server.enqueue_stream(ScriptedResponse(chunks=split_bytes(fixture_bytes(name), 7)))
    server.enqueue_text("Sunny in both.")
    history = [Message.user("Weather in Paris and London?")]
    async with make(server) as provider:
        result = await Orchestrator(provider, WeatherTools()).run(history, model=MODEL)
    assert (result.status, result.text) == ("complete", "Sunny in both.")
    first, second = (r.json for r in server.stream_requests)
    assert first["tools"] == [{"functionDeclarations": [{
        "name": "get_weather", "description": "Current weather",
        "parametersJsonSchema": {"type": "object", "properties": {"location": {"type": "string"}}},
    }]}]  # fmt: skip
    model, answers = second["contents"][1:]
    assert model["parts"][0]["thoughtSignature"] == raw_part(name, 1)[SIGNATURE]
    assert [p["functionResponse"] for p in answers["parts"]] == [
        {"name": "get_weather", "id": "k2f8q1zw", "response": {"result": "Paris: sunny"}},
        {"name": "get_weather", "id": "p7d3m0xa", "response": {"result": "London: sunny"}},
    ]


async def turn(provider: GeminiProvider, history: list[Message]) -> Message:
    """One streamed answer assembled as the orchestrator does it."""
    builder = MessageBuilder(model=MODEL, provider=provider.name)
    end = None
    async for event in provider.stream(ChatRequest(model=MODEL, messages=list(history))):
        builder.feed(event)
        end = event
    assert isinstance(end, EndEvent), end
    return builder.finish("complete", finish_reason=end.finish_reason)


def results_for(message: Message, contents: list[str]) -> Message:
    parts = [
        ToolResultPart(tool_call_id=c.id, name=c.name, content=content)
        for c, content in zip(message.tool_calls, contents, strict=True)
    ]
    return Message(role="tool", parts=parts)


async def test_round_trip_keeps_signature_and_ids(server: FakeGeminiServer) -> None:
    name = "gemini_call_signature.sse"
    server.enqueue_stream(ScriptedResponse(chunks=split_bytes(fixture_bytes(name), 7)))
    server.enqueue_text("Paris 18 °C, London 14 °C.")
    async with make(server) as provider:
        history = [Message.user("Weather in Paris and London?")]
        assistant = await turn(provider, history)
        history += [assistant, results_for(assistant, ['{"temp": 18}', '{"temp": 14}'])]
        final = await turn(provider, history)
    assert final.text == "Paris 18 °C, London 14 °C."
    signature = raw_part(name, 1)[SIGNATURE]
    assert server.stream_requests[1].json["contents"] == [
        {"role": "user", "parts": [{"text": "Weather in Paris and London?"}]},
        {
            "role": "model",
            "parts": [  # the unsigned thought summary is not sent back
                {
                    "functionCall": {"name": "get_weather", "args": {"location": "Paris, France"},
                                     "id": "k2f8q1zw"},
                    "thoughtSignature": signature,
                },
                {"functionCall": {"name": "get_weather", "args": {"location": "London, UK"},
                                  "id": "p7d3m0xa"}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "get_weather", "id": "k2f8q1zw",
                                      "response": {"result": '{"temp": 18}'}}},
                {"functionResponse": {"name": "get_weather", "id": "p7d3m0xa",
                                      "response": {"result": '{"temp": 14}'}}},
            ],
        },
    ]  # fmt: skip


async def test_round_trip_without_ids(server: FakeGeminiServer) -> None:
    server.enqueue_stream(ScriptedResponse(chunks=[fixture_bytes("gemini_two_calls.sse")]))
    server.enqueue_text("Both read.")
    async with make(server) as provider:
        history = [Message.user("Read both")]
        assistant = await turn(provider, history)
        tool = results_for(assistant, ["print('hi')", "# Readme"])
        tool.parts[1] = tool.parts[1].model_copy(update={"is_error": True, "content": "denied"})
        await turn(provider, [*history, assistant, tool])
    contents = server.stream_requests[1].json["contents"]
    assert contents[1] == {"role": "model", "parts": [
        {"functionCall": {"name": "read_file", "args": {"path": "src/main.py"}}},
        {"functionCall": {"name": "read_file", "args": {"path": "README.md"}}},
    ]}  # fmt: skip
    assert contents[2] == {"role": "user", "parts": [
        {"functionResponse": {"name": "read_file", "response": {"result": "print('hi')"}}},
        {"functionResponse": {"name": "read_file", "response": {"error": "denied"}}},
    ]}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "model_parts"),
    [
        (
            "gemini_thoughts.sse",
            [
                {"text": "**9.8** is larger than 9.11, because 0.8 > 0.11."},
                {"text": "", SIGNATURE: ("gemini_thoughts.sse", 4)},
            ],
        ),
        (
            "gemini_signed_parts.sse",
            [
                {"text": PLANNING, "thought": True, SIGNATURE: ("gemini_signed_parts.sse", 0)},
                {"text": "Bonjour ! ", SIGNATURE: ("gemini_signed_parts.sse", 1)},
                {"text": "Comment puis-je vous aider aujourd’hui ?"},
            ],
        ),
    ],
)
async def test_round_trip_of_signed_text_and_thoughts(
    server: FakeGeminiServer, name: str, model_parts: list[dict[str, Any]]
) -> None:
    """Signed parts go back as received: each with its own signature, never merged."""
    server.enqueue_stream(ScriptedResponse(chunks=split_bytes(fixture_bytes(name), 1)))
    server.enqueue_text("ok")
    async with make(server) as provider:
        first = await turn(provider, [Message.user("Q1")])
        await turn(provider, [Message.user("Q1"), first, Message.user("Q2")])
    for part in model_parts:
        if SIGNATURE in part:
            part[SIGNATURE] = raw_part(*part[SIGNATURE])[SIGNATURE]
    assert server.stream_requests[1].json["contents"] == [
        {"role": "user", "parts": [{"text": "Q1"}]},
        {"role": "model", "parts": model_parts},
        {"role": "user", "parts": [{"text": "Q2"}]},
    ]
    stored = Message.model_validate_json(first.model_dump_json())  # survives storage
    assert stored == first


# ---------------------------------------------------------------- Google's error forms
# (statuses, retries, cut streams, redaction, hygiene: test_stream_contract, for every API)


async def test_404_model_and_list_form_error_body(server: FakeGeminiServer) -> None:
    body = [{"error": {"code": 404, "status": "NOT_FOUND", "message": "models/gemini-nope is "
                       "not found for API version v1beta"}}]  # fmt: skip
    server.enqueue_stream(ScriptedResponse.json_body(body, 404))
    async with make(server) as provider:
        event = (await collect(provider)).last
    assert isinstance(event, ErrorEvent) and event.code == "NOT_FOUND"
    assert event.message == (
        "Gem (HTTP 404): models/gemini-nope is not found for API version v1beta "
        "(check the base URL and the model name)"
    )


async def test_key_is_redacted_everywhere(server: FakeGeminiServer) -> None:
    other = "tok-Zq8LmV3pXr7"
    server.enqueue_error(403, f"key {KEY} and header {other} rejected",
                         google_status="PERMISSION_DENIED")  # fmt: skip
    in_stream = {"error": {"code": 500, "message": f"key {KEY} broke", "status": "INTERNAL"}}
    server.enqueue_stream(ScriptedResponse(chunks=gemini_sse([in_stream])))
    server.enqueue_stream(ScriptedResponse(chunks=gemini_sse([gemini_chunk(
        None, "OTHER", finishMessage=f"echo {KEY}")])))  # fmt: skip
    provider = make(server, headers={"X-Proxy-Token": other})
    events = [(await collect(provider)).last for _ in range(3)]
    await provider.aclose()
    for event in events:
        assert isinstance(event, ErrorEvent)
        assert KEY not in event.message and other not in event.message and "***" in event.message
    assert server.requests[0].headers["x-proxy-token"] == other


# ---------------------------------------------------------------- list_models


async def test_list_models_pages_filters_and_maps(server: FakeGeminiServer) -> None:
    server.gemini_models = [
        gemini_model("gemini-2.5-pro", input_limit=1_048_576, output_limit=65_536,
                     display="Gemini 2.5 Pro"),
        gemini_model("text-embedding-004", methods=["embedContent"], thinking=None),
        gemini_model("gemini-2.0-flash", output_limit=8192, thinking=None),
        gemini_model("imagen-4.0", methods=["predict"]),
        gemini_model("gemini-2.5-flash", thinking=True, display="gemini-2.5-flash"),
    ]  # fmt: skip
    server.max_page_size = 2
    async with make(server) as provider:
        models = await provider.list_models()
    assert models == [
        ModelInfo("gemini-2.0-flash", "Gemini 2.0 Flash", 1_048_576, "google",
                  ModelCapabilities(None, None, None, 8192, 1_048_576)),
        ModelInfo("gemini-2.5-flash", None, 1_048_576, "google",
                  ModelCapabilities(None, None, True, 65_536, 1_048_576)),
        ModelInfo("gemini-2.5-pro", "Gemini 2.5 Pro", 1_048_576, "google",
                  ModelCapabilities(None, None, True, 65_536, 1_048_576)),
    ]  # fmt: skip
    paths = [r.path for r in server.requests]
    assert paths == [
        f"{GEMINI_MODELS_PATH}?pageSize=1000",
        f"{GEMINI_MODELS_PATH}?pageSize=1000&pageToken=2",
        f"{GEMINI_MODELS_PATH}?pageSize=1000&pageToken=4",
    ]
    assert all(r.headers["x-goog-api-key"] == KEY and KEY not in r.path for r in server.requests)


async def test_list_models_stops_on_a_repeated_token(server: FakeGeminiServer) -> None:
    page = {"models": [gemini_model("gemini-x")], "nextPageToken": "same"}
    for _ in range(3):
        server.enqueue(ScriptedResponse.json_body(page), path=GEMINI_MODELS_PATH)
    async with make(server) as provider:
        assert [m.id for m in await provider.list_models()] == ["gemini-x"]
    assert len(server.requests) == 2


@pytest.mark.parametrize(
    ("response", "fragment"),
    [
        (gemini_error(403, "Method doesn't allow unregistered callers.", "PERMISSION_DENIED"),
         "Gem (HTTP 403): Method doesn't allow unregistered callers."),
        (ScriptedResponse.text(200, "<html>portal</html>"), "did not return JSON"),
        (ScriptedResponse.json_body({"models": "nope"}), "no model list"),
        (ScriptedResponse.json_body([]), "no model list"),
    ],
)  # fmt: skip
async def test_list_models_errors(
    server: FakeGeminiServer, response: ScriptedResponse, fragment: str
) -> None:
    server.enqueue(response, path=GEMINI_MODELS_PATH)
    async with make(server) as provider:
        with pytest.raises(ProviderError) as info:
            await provider.list_models()
    assert fragment in str(info.value)


async def test_list_models_retries_5xx(server: FakeGeminiServer) -> None:
    sleep = RecordingSleep()
    server.enqueue(gemini_error(503, "busy", "UNAVAILABLE"), path=GEMINI_MODELS_PATH)
    async with make(server, retry=RetryPolicy(sleep=sleep)) as provider:
        models = await provider.list_models()
    assert [m.id for m in models] == ["gemini-test"] and len(sleep.delays) == 1
