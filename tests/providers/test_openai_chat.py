"""OpenAIChatProvider end to end against the loopback fake server."""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import gc
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from desktop.core.errors import ProviderError
from desktop.core.events import (
    EndEvent,
    ErrorEvent,
    ReasoningComplete,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    ToolCallStarted,
    UsageEvent,
)
from desktop.core.messages import Message, Usage
from desktop.core.provider import ChatRequest, ModelInfo, Provider
from desktop.providers.openai_chat import OpenAIChatProvider
from desktop.providers.retry import RetryPolicy
from tests.support.fixtures import RecordingSleep
from tests.support.openai_server import (
    FakeOpenAIServer,
    ScriptedResponse,
    split_bytes,
    text_stream,
    unused_port,
)

DATA = Path(__file__).parent / "data"
KEY = "sk-test-abcdefghijklmnop0123456789"
REQUEST = ChatRequest(model="gpt-test", messages=[Message.user("Hi")])


def fixture_bytes(name: str) -> bytes:
    return (DATA / name).read_bytes()


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
    def calls(self) -> list[tuple[str, str, str]]:
        return [(e.id, e.name, e.arguments) for e in self.events if isinstance(e, ToolCallComplete)]

    @property
    def usage(self) -> Usage | None:
        found = [e.usage for e in self.events if isinstance(e, UsageEvent)]
        return found[-1] if found else None

    @property
    def last(self) -> StreamEvent:
        return self.events[-1]

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


async def collect(provider: OpenAIChatProvider, request: ChatRequest = REQUEST) -> Outcome:
    return Outcome([event async for event in provider.stream(request)])


def make(server: FakeOpenAIServer, **kwargs: Any) -> OpenAIChatProvider:
    kwargs.setdefault("retry", RetryPolicy(sleep=RecordingSleep()))
    return OpenAIChatProvider(server.base_url, kwargs.pop("api_key", KEY), name="Fake", **kwargs)


def assert_terminal(outcome: Outcome) -> None:
    """Exactly one EndEvent or ErrorEvent, and it is the last event."""
    terminal = [e for e in outcome.events if isinstance(e, EndEvent | ErrorEvent)]
    assert len(terminal) == 1 and terminal[0] is outcome.last


# ---------------------------------------------------------------- recorded fixtures

TEXT_ONLY = (
    "Sure! Here’s a quick summary:\n\n- **Paris** is the capital of France 🇫🇷.\n- It is "
    "known as *la Ville Lumière* (光の都).\n\nWant more détails?"
)
EXPECTED: dict[str, dict[str, Any]] = {
    "text_only.sse": {
        "text": TEXT_ONLY,
        "usage": Usage(input_tokens=26, output_tokens=38),
        "end": "stop",
    },
    "tool_calls_split.sse": {
        "calls": [
            (
                "call_8Yq2kPz1wXb4LmN0rT5vJc7D",
                "get_weather",
                '{"location":"São Paulo, Brazil","unit":"celsius","days":3}',
            )
        ],
        "usage": Usage(input_tokens=84, output_tokens=24),
        "end": "tool_calls",
    },
    "parallel_tool_calls.sse": {
        "calls": [
            ("call_fT3nK8pQ2vL5xM9zR1wB7cYd", "read_file", '{"path": "src/main.py"}'),
            (
                "call_Jh6sW2eR9tY4uI1oP8aS3dFg",
                "search_files",
                '{"pattern": "def main(", "glob": "**/*.py"}',
            ),
        ],
        "usage": Usage(input_tokens=152, output_tokens=53, cached_tokens=128),
        "end": "tool_calls",
    },
    "reasoning_content.sse": {
        "text": "**9.8** is larger than 9.11.",
        "reasoning": "Okay, the user asks 9.11 vs 9.8. Compare decimals: 0.11 < 0.80, so 9.8 is "
        "larger.",
        "usage": Usage(input_tokens=17, output_tokens=46, reasoning_tokens=33),
        "end": "stop",
    },
    "openrouter_reasoning.sse": {
        "text": "Hi there! 👋 How can I help?",
        "reasoning": "The user greets me; reply warmly.",
        "usage": Usage(input_tokens=12, output_tokens=21, reasoning_tokens=8, cost=0.0000513),
        "end": "stop",
    },
    "legacy_function_call.sse": {
        "calls": [(None, "get_current_weather", '{\n  "location": "Boston, MA"\n}')],
        "end": "tool_calls",
    },
    "error_in_stream.sse": {
        "text": "The answer is",
        "error": ("The server had an error while processing your request.", "server_error"),
    },
    "openrouter_error.sse": {
        "text": "Partial",
        "error": ("Provider disconnected unexpectedly", "502"),
    },
    "cut_midway.sse": {
        "text": "Once upon a time, in a",
        "error": ("ended unexpectedly", "stream_interrupted"),
    },
}


def check_expected(outcome: Outcome, expected: dict[str, Any]) -> None:
    assert outcome.text == expected.get("text", "")
    assert outcome.reasoning == expected.get("reasoning", "")
    calls = expected.get("calls", [])
    assert len(outcome.calls) == len(calls)
    for (got_id, got_name, got_args), (want_id, want_name, want_args) in zip(
        outcome.calls, calls, strict=True
    ):
        assert got_id == want_id if want_id else got_id.startswith("call_")
        assert (got_name, got_args) == (want_name, want_args)
    # Every completed call was announced first, with the same id and name.
    started = {(e.index, e.id, e.name) for e in outcome.of(ToolCallStarted)}
    assert {(e.index, e.id, e.name) for e in outcome.of(ToolCallComplete)} <= started
    if expected.get("reasoning"):
        assert outcome.of(ReasoningComplete) == [ReasoningComplete(expected["reasoning"])]
    assert outcome.usage == expected.get("usage", outcome.usage)
    assert_terminal(outcome)
    if "error" in expected:
        fragment, code = expected["error"]
        assert isinstance(outcome.last, ErrorEvent)
        assert fragment in outcome.last.message and outcome.last.code == code
        assert outcome.last.message.startswith("Fake: ")
    else:
        assert outcome.last == EndEvent(expected["end"], outcome.last.provider_data)


@pytest.mark.parametrize("size", [1, 7, None], ids=["1-byte", "7-bytes", "whole"])
@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_recorded_fixture_over_loopback(
    openai_server: FakeOpenAIServer, name: str, size: int | None
) -> None:
    data = fixture_bytes(name)
    chunks = split_bytes(data, size) if size else [data]
    openai_server.enqueue(ScriptedResponse(chunks=chunks, cut=name.startswith("cut")))
    async with make(openai_server) as provider:
        outcome = await collect(provider)
    check_expected(outcome, EXPECTED[name])


def mock_client(chunks: list[bytes], status: int = 200) -> httpx.AsyncClient:
    """An httpx client whose response body arrives in exactly these chunks."""

    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    def handler(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(status, headers=headers, content=body())

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 13, 64])
@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_recorded_fixture_exact_chunkings(name: str, size: int) -> None:
    async with mock_client(split_bytes(fixture_bytes(name), size)) as client:
        provider = OpenAIChatProvider("http://test/v1", KEY, name="Fake", client=client)
        check_expected(await collect(provider), EXPECTED[name])


@pytest.mark.parametrize("eol", [b"\r\n", b"\r"])
async def test_other_line_endings(eol: bytes) -> None:
    data = fixture_bytes("parallel_tool_calls.sse").replace(b"\n", eol)
    async with mock_client(split_bytes(data, 5)) as client:
        provider = OpenAIChatProvider("http://test/v1", name="Fake", client=client)
        check_expected(await collect(provider), EXPECTED["parallel_tool_calls.sse"])


async def test_events_are_yielded_before_the_stream_ends(openai_server: FakeOpenAIServer) -> None:
    scripted = ScriptedResponse(chunks=text_stream("Hello world", chunk_size=5), hold_after=2)
    openai_server.enqueue(scripted)
    async with make(openai_server) as provider:
        stream = provider.stream(REQUEST)
        first = await anext(stream)
        assert first == TextDelta("Hello")
        scripted.release()
        rest = [e async for e in stream]
    assert Outcome([first, *rest]).text == "Hello world"


# ---------------------------------------------------------------- request shape


async def test_request_headers_and_body(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue_text("ok")
    provider = make(openai_server, headers={"X-Title": "Assista Desktop"})
    await collect(provider, ChatRequest(model="gpt-test", messages=[Message.user("Hi")],
                                        system="Be brief", temperature=0.5))  # fmt: skip
    await provider.aclose()
    request = openai_server.chat_requests[0]
    assert request.method == "POST" and request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["x-title"] == "Assista Desktop"
    assert request.headers["accept"] == "text/event-stream"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["user-agent"].startswith("AssistaDesktop/")
    assert request.json == {
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": "Be brief"},
            {"role": "user", "content": "Hi"},
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": 0.5,
    }


async def test_no_key_no_authorization_header(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue_text("ok")
    async with make(openai_server, api_key=None) as provider:
        assert (await collect(provider)).text == "ok"
    assert "authorization" not in openai_server.chat_requests[0].headers


async def test_base_url_query_string_is_kept(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue_text("ok")
    provider = OpenAIChatProvider(f"{openai_server.base_url}/?api-version=2024-10-21")
    await collect(provider)
    await provider.aclose()
    assert openai_server.requests[0].path == "/v1/chat/completions?api-version=2024-10-21"


def test_is_a_provider() -> None:
    provider = OpenAIChatProvider("http://localhost:1234/v1", KEY)
    assert isinstance(provider, Provider)
    assert provider.supports_tools and provider.supports_reasoning
    assert KEY not in repr(provider)


async def test_server_ignoring_stream_flag(openai_server: FakeOpenAIServer) -> None:
    completion = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Whole"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
    }
    openai_server.enqueue(ScriptedResponse.json_body(completion))
    async with make(openai_server) as provider:
        outcome = await collect(provider)
    assert outcome.text == "Whole"
    assert outcome.usage == Usage(input_tokens=3, output_tokens=1)
    assert outcome.last == EndEvent("stop")


# ---------------------------------------------------------------- retries


async def test_429_with_retry_after_then_success(openai_server: FakeOpenAIServer) -> None:
    sleep = RecordingSleep()
    openai_server.enqueue_error(429, "Rate limit reached", headers={"Retry-After": "2"})
    openai_server.enqueue_text("after wait")
    async with make(openai_server, retry=RetryPolicy(sleep=sleep)) as provider:
        outcome = await collect(provider)
    assert outcome.text == "after wait" and outcome.last == EndEvent("stop")
    assert len(openai_server.chat_requests) == 2
    assert sleep.delays == [2.0]  # waited at least (exactly) what the server asked


async def test_retry_after_http_date(openai_server: FakeOpenAIServer) -> None:
    sleep = RecordingSleep()
    date = email.utils.formatdate(time.time() + 5, usegmt=True)
    openai_server.enqueue_error(503, "busy", headers={"Retry-After": date})
    openai_server.enqueue_text("ok")
    async with make(openai_server, retry=RetryPolicy(sleep=sleep)) as provider:
        assert (await collect(provider)).text == "ok"
    assert len(sleep.delays) == 1 and 3.0 <= sleep.delays[0] <= 5.0


async def test_retry_after_ms(openai_server: FakeOpenAIServer) -> None:
    sleep = RecordingSleep()
    openai_server.enqueue_error(429, "slow down", headers={"retry-after-ms": "150"})
    openai_server.enqueue_text("ok")
    async with make(openai_server, retry=RetryPolicy(sleep=sleep)) as provider:
        assert (await collect(provider)).text == "ok"
    assert sleep.delays == [0.15]


async def test_real_sleep_with_tiny_delays(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue_error(429, "x", headers={"retry-after-ms": "20"})
    openai_server.enqueue_text("ok")
    start = time.perf_counter()
    async with OpenAIChatProvider(openai_server.base_url) as provider:
        assert (await collect(provider)).text == "ok"
    assert time.perf_counter() - start >= 0.02


@pytest.mark.parametrize("status", [500, 502, 503, 408, 409, 529])
async def test_retryable_status_then_success(openai_server: FakeOpenAIServer, status: int) -> None:
    sleep = RecordingSleep()
    openai_server.enqueue_error(status, "temporary")
    openai_server.enqueue_text("recovered")
    async with make(openai_server, retry=RetryPolicy(sleep=sleep, random=lambda: 1.0)) as provider:
        outcome = await collect(provider)
    assert outcome.text == "recovered"
    assert sleep.delays == [0.5]  # first backoff step: base delay (jitter pinned to max)


async def test_retries_exhausted_reports_last_status(openai_server: FakeOpenAIServer) -> None:
    sleep = RecordingSleep()
    for _ in range(3):
        openai_server.enqueue_error(500, "The server had an error", type="server_error")
    async with make(openai_server, retry=RetryPolicy(max_retries=2, sleep=sleep)) as provider:
        outcome = await collect(provider)
    assert len(openai_server.chat_requests) == 3 and len(sleep.delays) == 2
    assert outcome.events == [
        ErrorEvent(
            "Fake (HTTP 500): The server had an error",
            code="server_error",
            status=500,
            provider="Fake",
        )
    ]


async def test_400_is_not_retried(openai_server: FakeOpenAIServer) -> None:
    sleep = RecordingSleep()
    openai_server.enqueue_error(
        400, "Invalid value for 'model'", code="model_not_found", type="invalid_request_error"
    )
    openai_server.enqueue_text("never")
    async with make(openai_server, retry=RetryPolicy(sleep=sleep)) as provider:
        outcome = await collect(provider)
    assert len(openai_server.chat_requests) == 1 and sleep.delays == []
    assert outcome.events == [
        ErrorEvent(
            "Fake (HTTP 400): Invalid value for 'model'",
            code="model_not_found",
            status=400,
            provider="Fake",
        )
    ]


async def test_connection_refused_retried_then_reported() -> None:
    sleep = RecordingSleep()
    url = f"http://127.0.0.1:{unused_port()}/v1"
    provider = OpenAIChatProvider(
        url, KEY, name="Local", retry=RetryPolicy(max_retries=3, sleep=sleep)
    )
    outcome = await collect(provider)
    await provider.aclose()
    assert len(sleep.delays) == 3
    assert len(outcome.events) == 1 and isinstance(outcome.last, ErrorEvent)
    assert outcome.last.code == "connection_error"
    assert outcome.last.message.startswith(f"Local: could not connect to {url}")


async def test_error_after_first_byte_is_not_retried(openai_server: FakeOpenAIServer) -> None:
    sleep = RecordingSleep()
    openai_server.enqueue(ScriptedResponse(chunks=text_stream("abcdef", 2)[:3], cut=True))
    openai_server.enqueue_text("must not be used")
    async with make(openai_server, retry=RetryPolicy(sleep=sleep)) as provider:
        outcome = await collect(provider)
    assert outcome.text == "abcd"
    assert isinstance(outcome.last, ErrorEvent) and outcome.last.code == "stream_interrupted"
    assert len(openai_server.chat_requests) == 1 and sleep.delays == []
    assert_terminal(outcome)


async def test_close_delimited_body_cut(openai_server: FakeOpenAIServer) -> None:
    chunks = text_stream("abcdef", 2)[:3]
    openai_server.enqueue(ScriptedResponse(chunks=chunks, chunked=False, cut=True))
    async with make(openai_server) as provider:
        outcome = await collect(provider)
    assert outcome.text == "abcd"
    assert isinstance(outcome.last, ErrorEvent) and "ended unexpectedly" in outcome.last.message


# ---------------------------------------------------------------- error reporting


async def test_html_error_page_gives_short_message(openai_server: FakeOpenAIServer) -> None:
    page = (
        "<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{color:red}"
        "</style></head><body><center><h1>502 Bad Gateway</h1></center><hr>"
        "<center>nginx/1.25.3</center>" + "<!-- padding -->" * 500 + "</body></html>"
    )
    openai_server.enqueue(ScriptedResponse.text(502, page))
    async with make(openai_server, retry=RetryPolicy.disabled()) as provider:
        outcome = await collect(provider)
    event = outcome.last
    assert isinstance(event, ErrorEvent) and event.status == 502
    assert event.message == "Fake (HTTP 502): 502 Bad Gateway nginx/1.25.3"
    assert "<" not in event.message


async def test_plain_text_and_empty_error_bodies(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(ScriptedResponse.text(404, "404 page not found", "text/plain"))
    openai_server.enqueue(ScriptedResponse(status=401, headers={}, chunks=[]))
    async with make(openai_server, retry=RetryPolicy.disabled()) as provider:
        not_found = (await collect(provider)).last
        unauthorized = (await collect(provider)).last
    assert isinstance(not_found, ErrorEvent) and isinstance(unauthorized, ErrorEvent)
    assert not_found.message == (
        "Fake (HTTP 404): 404 page not found (check the base URL and the model name)"
    )
    assert unauthorized.message == "Fake (HTTP 401): Unauthorized (check the API key)"


async def test_openrouter_style_error_with_metadata(openai_server: FakeOpenAIServer) -> None:
    body = {"error": {"message": "Provider returned error", "code": 400,
                      "metadata": {"raw": '{"error":{"message":"context too long"}}',
                                   "provider_name": "Foo"}}}  # fmt: skip
    openai_server.enqueue(ScriptedResponse.json_body(body, 400))
    async with make(openai_server) as provider:
        event = (await collect(provider)).last
    assert isinstance(event, ErrorEvent)
    assert event.message == "Fake (HTTP 400): Provider returned error: context too long"
    assert event.code == "400"


async def test_key_is_redacted_from_errors(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue_error(401, f"Incorrect API key provided: {KEY}. Check your key.")
    other_secret = "tok-Zq8LmV3pXr7"
    openai_server.enqueue_error(403, f"header value {other_secret} rejected")
    in_stream = {"error": {"message": f"key {KEY} is over quota", "code": "quota"}}
    openai_server.enqueue(ScriptedResponse.sse([in_stream]))
    provider = make(openai_server, headers={"X-Api-Key": other_secret, "X-Title": "Assista"})
    first = (await collect(provider)).last
    second = (await collect(provider)).last
    third = (await collect(provider)).last
    await provider.aclose()
    assert isinstance(first, ErrorEvent) and isinstance(second, ErrorEvent)
    assert isinstance(third, ErrorEvent)
    assert KEY not in first.message and "abcdefghijklmnop" not in first.message
    assert "***" in first.message
    assert other_secret not in second.message
    assert third.message == "Fake: key *** is over quota"


async def test_html_page_with_status_200(openai_server: FakeOpenAIServer) -> None:
    page = "<html><head><title>Open WebUI</title></head><body>Sign in</body></html>"
    openai_server.enqueue(ScriptedResponse.text(200, page))
    async with make(openai_server) as provider:
        event = (await collect(provider)).last
    assert isinstance(event, ErrorEvent) and event.code == "unexpected_content"
    assert "got a web page (Open WebUI: Sign in); check the base URL" in event.message


async def test_invalid_base_url_is_an_error_event() -> None:
    provider = OpenAIChatProvider("http://localhost:notaport/v1", name="Bad")
    event = (await collect(provider)).last
    assert isinstance(event, ErrorEvent) and event.code == "invalid_url"
    assert event.message.startswith("Bad: invalid base URL")
    await provider.aclose()


async def test_on_retry_callback(openai_server: FakeOpenAIServer) -> None:
    seen: list[tuple[int, float, str]] = []
    openai_server.enqueue_error(429, "slow down", headers={"Retry-After": "3"})
    openai_server.enqueue_text("ok")
    retry = RetryPolicy(sleep=RecordingSleep())
    provider = make(openai_server, retry=retry, on_retry=lambda *a: seen.append(a))
    assert (await collect(provider)).text == "ok"
    await provider.aclose()
    assert seen == [(0, 3.0, "HTTP 429")]


async def test_key_in_url_is_redacted_from_connection_errors() -> None:
    url = f"http://127.0.0.1:{unused_port()}/v1?key=AIzaSecretSecretSecret123"
    provider = OpenAIChatProvider(url, retry=RetryPolicy.disabled())
    event = (await collect(provider)).last
    assert isinstance(event, ErrorEvent) and "SecretSecret" not in event.message
    with pytest.raises(ProviderError) as info:
        await provider.list_models()
    assert "SecretSecret" not in str(info.value)


async def test_stalled_stream_times_out(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(ScriptedResponse(chunks=text_stream("abc", 1), hold_after=2))
    async with make(openai_server, timeout=0.2) as provider:
        outcome = await collect(provider)
    assert outcome.text == "a"
    assert isinstance(outcome.last, ErrorEvent) and outcome.last.code == "timeout"
    assert "stalled" in outcome.last.message and "0.2 s" in outcome.last.message


@pytest.mark.parametrize(
    ("exc", "code", "fragment"),
    [
        (httpx.ReadTimeout("timed out"), "timeout", "no response from http://test/v1 for 30 s"),
        (httpx.ConnectTimeout("timed out"), "timeout", "timed out connecting"),
        (httpx.ProxyError("407 Proxy Authentication Required"), "proxy_error", "proxy"),
    ],
)
async def test_transport_failures_before_first_byte(
    exc: Exception, code: str, fragment: str
) -> None:
    sleep = RecordingSleep()
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        raise exc

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        retry = RetryPolicy(max_retries=2, sleep=sleep)
        provider = OpenAIChatProvider(
            "http://test/v1", KEY, name="Fake", timeout=30, retry=retry, client=client
        )
        outcome = await collect(provider)
    assert len(outcome.events) == 1 and isinstance(outcome.last, ErrorEvent)
    assert outcome.last.code == code and fragment in outcome.last.message
    assert calls == (1 if isinstance(exc, httpx.ProxyError) else 3)


async def test_redirect_is_reported(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(
        ScriptedResponse(status=307, headers={"Location": "https://elsewhere.test/v1"})
    )
    async with make(openai_server) as provider:
        event = (await collect(provider)).last
    assert isinstance(event, ErrorEvent) and event.status == 307
    assert "redirect to https://elsewhere.test/v1" in event.message


async def test_empty_queue_message_from_fake_server(openai_server: FakeOpenAIServer) -> None:
    async with make(openai_server) as provider:
        event = (await collect(provider)).last
    assert isinstance(event, ErrorEvent) and "no scripted response left" in event.message


# ---------------------------------------------------------------- cancellation


async def test_cancellation_propagates_and_closes(openai_server: FakeOpenAIServer) -> None:
    scripted = ScriptedResponse(chunks=text_stream("Hello world", chunk_size=5), hold_after=2)
    openai_server.enqueue(scripted)
    provider = make(openai_server)
    got_first = asyncio.Event()
    seen: list[StreamEvent] = []

    async def consume() -> None:
        async for event in provider.stream(REQUEST):
            seen.append(event)
            got_first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_first.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == [TextDelta("Hello")]
    scripted.release()
    openai_server.enqueue_text("again")  # the provider is still usable afterwards
    assert (await collect(provider)).text == "again"
    await provider.aclose()


async def test_consumer_breaking_early_is_fine(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue_text("Hello world", chunk_size=1)
    async with make(openai_server) as provider:
        stream = provider.stream(REQUEST)
        async for _event in stream:
            break
        await stream.aclose()  # type: ignore[attr-defined]


# ---------------------------------------------------------------- list_models


async def test_list_models_sorted(openai_server: FakeOpenAIServer) -> None:
    openai_server.models = [
        "gpt-4o",
        {"id": "anthropic/claude", "name": "Claude", "context_length": 200000, "owned_by": "x"},
        "gpt-4o-mini",
    ]
    async with make(openai_server) as provider:
        models = await provider.list_models()
    assert models == [
        ModelInfo("anthropic/claude", "Claude", 200000, "x"),
        ModelInfo("gpt-4o", owned_by="fake"),
        ModelInfo("gpt-4o-mini", owned_by="fake"),
    ]
    request = openai_server.requests[0]
    assert (request.method, request.path) == ("GET", "/v1/models")
    assert request.headers["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize(
    ("response", "fragment"),
    [
        (ScriptedResponse.error(401, "Invalid API key"), "Fake (HTTP 401): Invalid API key"),
        (ScriptedResponse.text(200, "<html>LM Studio</html>"), "did not return JSON"),
        (ScriptedResponse.json_body({"object": "list"}), "no model list"),
    ],
)
async def test_list_models_errors(
    openai_server: FakeOpenAIServer, response: ScriptedResponse, fragment: str
) -> None:
    openai_server.enqueue(response, path="/v1/models")
    async with make(openai_server) as provider:
        with pytest.raises(ProviderError) as info:
            await provider.list_models()
    assert fragment in str(info.value)


async def test_list_models_connection_refused() -> None:
    provider = OpenAIChatProvider(f"http://127.0.0.1:{unused_port()}/v1", name="Local",
                                  retry=RetryPolicy.disabled())  # fmt: skip
    with pytest.raises(ProviderError) as info:
        await provider.list_models()
    assert str(info.value).startswith("Local: could not connect")
    assert info.value.retryable


async def test_list_models_retries_5xx(openai_server: FakeOpenAIServer) -> None:
    sleep = RecordingSleep()
    openai_server.enqueue(ScriptedResponse.error(503, "warming up"), path="/v1/models")
    async with make(openai_server, retry=RetryPolicy(sleep=sleep)) as provider:
        models = await provider.list_models()
    assert [m.id for m in models] == ["gpt-test"] and len(sleep.delays) == 1


async def test_injected_client_is_not_closed(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue_text("ok")
    async with httpx.AsyncClient() as client:
        provider = make(openai_server, client=client)
        assert (await collect(provider)).text == "ok"
        await provider.aclose()
        assert not client.is_closed


# ---------------------------------------------------------------- connection hygiene


async def test_connection_is_reused_after_done(openai_server: FakeOpenAIServer) -> None:
    for _ in range(3):
        openai_server.enqueue_text("Hello world", chunk_size=2)
    async with make(openai_server) as provider:
        for _ in range(3):
            assert (await collect(provider)).text == "Hello world"
    ports = {r.client_port for r in openai_server.chat_requests}
    assert len(ports) == 1  # the body was read to its end, so the connection went back to the pool


async def test_no_httpx_generator_left_suspended(openai_server: FakeOpenAIServer) -> None:
    """Under a loop without asyncgen hooks (qasync), nothing is left for the GC to
    finalize outside the loop: completed, failed and abandoned streams alike."""
    openai_server.enqueue_text("Hello world", chunk_size=2)
    openai_server.enqueue_error(400, "bad request")
    openai_server.enqueue(ScriptedResponse.sse([{"error": {"message": "boom"}}, {"x": 1}]))
    openai_server.enqueue(ScriptedResponse(chunks=text_stream("abcdef", 1), hold_after=3))
    unraisable: list[Any] = []
    old_hooks = sys.get_asyncgen_hooks()
    old_unraisable = sys.unraisablehook
    sys.set_asyncgen_hooks(firstiter=None, finalizer=None)
    sys.unraisablehook = unraisable.append
    try:
        provider = make(openai_server)
        for _ in range(3):
            outcome = await collect(provider)
            assert_terminal(outcome)
        async with contextlib.aclosing(provider.stream(REQUEST)) as stream:
            async for event in stream:
                assert event == TextDelta("a")
                break  # the consumer stops early (e.g. the Stop button)
        await provider.aclose()
        gc.collect()
    finally:
        sys.set_asyncgen_hooks(*old_hooks)
        sys.unraisablehook = old_unraisable
    assert unraisable == []
