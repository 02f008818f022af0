"""The streaming contract, checked for every wire API against its loopback fake server.

Every adapter (Chat Completions, Responses, Anthropic, Gemini, Ollama) streams
through the one template in ``desktop.providers.http_base``, so each promise here is
tested once, parametrized over all five (``tests.support.provider_cases``): any
chunking and line ending gives the same events, a cut stream keeps what arrived and
is never retried, error replies become one short ErrorEvent (retried when they may
succeed later), in-stream errors end the stream, keys never show, and the HTTP
machinery is left clean. What only one API does is tested in its own module.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import gc
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from desktop.core.errors import ProviderError
from desktop.core.events import EndEvent, ErrorEvent, StreamEvent, TextDelta
from desktop.core.provider import Provider
from desktop.providers.http_base import HttpProvider
from desktop.providers.retry import RetryPolicy
from tests.support.fixtures import RecordingSleep
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, split_bytes, unused_port
from tests.support.provider_cases import CASES, KEY, ApiCase, index_of, normalized

PAGE = "<html><head><title>Open WebUI</title></head><body>Sign in</body></html>"
BAD_GATEWAY = (
    "<!DOCTYPE html><html><head><title>502 Bad Gateway</title><style>body{color:red}"
    "</style></head><body><center><h1>502 Bad Gateway</h1></center><hr>"
    "<center>nginx/1.25.3</center>" + "<!-- padding -->" * 500 + "</body></html>"
)


@pytest.fixture(params=CASES, ids=lambda case: case.id)
def case(request: pytest.FixtureRequest) -> ApiCase:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def server(case: ApiCase) -> Iterator[FakeOpenAIServer]:
    with case.server() as running:
        yield running


def text_of(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def assert_terminal(events: list[StreamEvent]) -> None:
    """Exactly one EndEvent or ErrorEvent, and it is the last event."""
    terminal = [e for e in events if isinstance(e, EndEvent | ErrorEvent)]
    assert len(terminal) == 1 and terminal[0] is events[-1]


async def collect(provider: HttpProvider, case: ApiCase) -> list[StreamEvent]:
    events = [event async for event in provider.stream(case.request)]
    assert_terminal(events)
    return events


def mock_client(case: ApiCase, chunks: list[bytes]) -> httpx.AsyncClient:
    """A client whose response body arrives in exactly these chunks."""

    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": case.content_type}, content=body())

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def mock_run(case: ApiCase, chunks: list[bytes]) -> list[StreamEvent]:
    async with mock_client(case, chunks) as client:
        return await collect(case.offline(client=client), case)


def quick(case: ApiCase, server: FakeOpenAIServer, sleep: RecordingSleep | None = None,
          **kwargs: Any) -> HttpProvider:  # fmt: skip
    kwargs.setdefault("retry", RetryPolicy(sleep=sleep or RecordingSleep()))
    return case.make(server, **kwargs)


# ---------------------------------------------------------------- chunkings and line endings

TRANSCRIPTS = [pytest.param(case, path, id=f"{case.id}-{path.stem}")
               for case in CASES for path in case.transcripts]  # fmt: skip


async def test_every_transcript_over_loopback_in_any_chunking(case: ApiCase) -> None:
    """Each recorded transcript of the API, served whole, a byte at a time and seven
    bytes at a time over one loopback server (a new connection after a cut one)."""
    with case.server() as server:
        async with quick(case, server) as provider:
            for number, path in enumerate(case.transcripts, start=1):
                data = path.read_bytes()
                for chunks in ([data], split_bytes(data, 1), split_bytes(data, 7)):
                    case.enqueue(server, case.response(chunks, cut="cut" in path.name))
                whole = normalized(await collect(provider, case))
                for size in (1, 7):
                    pieces = normalized(await collect(provider, case))
                    assert pieces == whole, (path.name, size)
                assert case.requests(server) == 3 * number  # nothing is retried mid-stream


@pytest.mark.parametrize(("api", "path"), TRANSCRIPTS)
async def test_transcript_in_exact_chunkings(api: ApiCase, path: Path) -> None:
    data = path.read_bytes()
    whole = normalized(await mock_run(api, [data]))
    for size in (2, 3, 5, 13, 64):
        assert normalized(await mock_run(api, split_bytes(data, size))) == whole, size


EOLS = [pytest.param(case, eol, id=f"{case.id}-{eol!r}")
        for case in CASES for eol in case.eols if eol != b"\n"]  # fmt: skip


@pytest.mark.parametrize(("api", "eol"), EOLS)
async def test_line_endings(api: ApiCase, eol: bytes) -> None:
    data = api.rich_transcript.read_bytes().replace(b"\r\n", b"\n")
    reference = await mock_run(api, split_bytes(data, 5))
    assert isinstance(reference[-1], EndEvent)
    other = await mock_run(api, split_bytes(data.replace(b"\n", eol), 5))
    assert normalized(other) == normalized(reference)


async def test_a_last_item_without_its_line_end_counts(case: ApiCase) -> None:
    data = case.rich_transcript.read_bytes()
    reference = await mock_run(case, [data])
    assert normalized(await mock_run(case, [data.rstrip(b"\r\n")])) == normalized(reference)


async def test_events_are_yielded_before_the_stream_ends(
    case: ApiCase, server: FakeOpenAIServer
) -> None:
    chunks = case.text("Hello world", 5)
    scripted = case.response(chunks, hold_after=index_of(chunks, b'"Hello"') + 1)
    case.enqueue(server, scripted)
    async with quick(case, server) as provider:
        stream = provider.stream(case.request)
        first = await anext(stream)
        assert first == TextDelta("Hello")
        scripted.release()
        rest = [e async for e in stream]
    assert text_of([first, *rest]) == "Hello world" and isinstance(rest[-1], EndEvent)


# ---------------------------------------------------------------- cut streams


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "close-delimited"])
async def test_cut_stream_keeps_the_text_and_is_not_retried(
    case: ApiCase, server: FakeOpenAIServer, chunked: bool
) -> None:
    chunks = case.text("abcdef", 2)
    chunks = chunks[: index_of(chunks, b'"cd"') + 1]
    case.enqueue(server, case.response(chunks, cut=True, chunked=chunked))
    case.enqueue(server, case.response(case.text("must not be used", 4)))
    sleep = RecordingSleep()
    async with quick(case, server, sleep) as provider:
        events = await collect(provider, case)
    assert text_of(events) == "abcd"
    last = events[-1]
    assert isinstance(last, ErrorEvent) and last.code == "stream_interrupted"
    assert last.message.startswith("Fake: the stream ended unexpectedly")
    assert case.requests(server) == 1 and sleep.delays == []


async def test_stalled_stream_times_out(case: ApiCase, server: FakeOpenAIServer) -> None:
    chunks = case.text("abc", 1)
    case.enqueue(server, case.response(chunks, hold_after=index_of(chunks, b'"a"') + 1))
    async with quick(case, server, timeout=0.2) as provider:
        events = await collect(provider, case)
    last = events[-1]
    assert text_of(events) == "a"
    assert isinstance(last, ErrorEvent) and last.code == "timeout"
    assert "stalled" in last.message and "0.2 s" in last.message


# ---------------------------------------------------------------- error replies


async def test_client_error_is_reported_once_and_not_retried(
    case: ApiCase, server: FakeOpenAIServer
) -> None:
    case.enqueue(server, case.error_reply(400, "Invalid value for 'model'"),
                 case.response(case.text("never", 5)))  # fmt: skip
    sleep = RecordingSleep()
    async with quick(case, server, sleep) as provider:
        events = await collect(provider, case)
    assert events == [ErrorEvent("Fake (HTTP 400): Invalid value for 'model'",
                                 code=case.error_code, status=400, provider="Fake")]  # fmt: skip
    assert case.requests(server) == 1 and sleep.delays == []


async def test_keys_are_redacted_from_error_replies(
    case: ApiCase, server: FakeOpenAIServer
) -> None:
    other_secret = "tok-Zq8LmV3pXr7"
    case.enqueue(server, case.error_reply(401, f"Incorrect API key provided: {KEY}."),
                 case.error_reply(403, f"header value {other_secret} rejected"))  # fmt: skip
    provider = quick(case, server, headers={"X-Api-Key": other_secret, "X-Title": "Assista"})
    first, second = (await collect(provider, case))[-1], (await collect(provider, case))[-1]
    await provider.aclose()
    assert isinstance(first, ErrorEvent) and isinstance(second, ErrorEvent)
    assert first.message == "Fake (HTTP 401): Incorrect API key provided: ***. (check the API key)"
    assert other_secret not in second.message and "***" in second.message


async def test_html_error_page_gives_a_short_message(
    case: ApiCase, server: FakeOpenAIServer
) -> None:
    case.enqueue(server, ScriptedResponse.text(502, BAD_GATEWAY))
    async with quick(case, server, retry=RetryPolicy.disabled()) as provider:
        events = await collect(provider, case)
    assert events == [ErrorEvent("Fake (HTTP 502): 502 Bad Gateway nginx/1.25.3", status=502,
                                 provider="Fake")]  # fmt: skip


async def test_plain_text_and_empty_error_bodies(case: ApiCase, server: FakeOpenAIServer) -> None:
    case.enqueue(server, ScriptedResponse.text(404, "404 page not found", "text/plain"),
                 ScriptedResponse(status=401, headers={}, chunks=[]))  # fmt: skip
    async with quick(case, server) as provider:
        not_found = (await collect(provider, case))[-1]
        unauthorized = (await collect(provider, case))[-1]
    assert isinstance(not_found, ErrorEvent) and isinstance(unauthorized, ErrorEvent)
    assert not_found.message == (
        "Fake (HTTP 404): 404 page not found (check the base URL and the model name)"
    )
    assert unauthorized.message == "Fake (HTTP 401): Unauthorized (check the API key)"


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 529])
async def test_retryable_status_then_success(
    case: ApiCase, server: FakeOpenAIServer, status: int
) -> None:
    case.enqueue(server, case.error_reply(status, "temporary"),
                 case.response(case.text("recovered", 4)))  # fmt: skip
    sleep = RecordingSleep()
    retry = RetryPolicy(sleep=sleep, random=lambda: 1.0)
    async with quick(case, server, retry=retry) as provider:
        events = await collect(provider, case)
    assert text_of(events) == "recovered" and isinstance(events[-1], EndEvent)
    assert sleep.delays == [0.5]  # the first backoff step (jitter pinned to its maximum)


@pytest.mark.parametrize(
    ("header", "value", "wait"),
    [("Retry-After", "2", (2.0, 2.0)), ("retry-after-ms", "150", (0.15, 0.15)),
     ("Retry-After", "date", (3.0, 5.0))],
    ids=["seconds", "ms", "http-date"],
)  # fmt: skip
async def test_retry_after_is_obeyed_and_announced(
    case: ApiCase, server: FakeOpenAIServer, header: str, value: str, wait: tuple[float, float]
) -> None:
    low, high = wait
    if value == "date":
        value = email.utils.formatdate(time.time() + 5, usegmt=True)
    reply = case.error_reply(429, "Rate limit reached")
    reply.headers[header] = value
    case.enqueue(server, reply, case.response(case.text("after wait", 4)))
    sleep = RecordingSleep()
    seen: list[tuple[int, float, str]] = []
    provider = quick(case, server, sleep, on_retry=lambda *a: seen.append(a))
    assert text_of(await collect(provider, case)) == "after wait"
    await provider.aclose()
    assert len(sleep.delays) == 1 and low <= sleep.delays[0] <= high
    assert seen == [(0, sleep.delays[0], "HTTP 429")]


async def test_real_sleep_with_tiny_delays(case: ApiCase, server: FakeOpenAIServer) -> None:
    reply = case.error_reply(429, "x")
    reply.headers["retry-after-ms"] = "20"
    case.enqueue(server, reply, case.response(case.text("ok", 4)))
    start = time.perf_counter()
    async with case.make(server) as provider:
        assert text_of(await collect(provider, case)) == "ok"
    assert time.perf_counter() - start >= 0.02


async def test_retries_exhausted_report_the_last_status(
    case: ApiCase, server: FakeOpenAIServer
) -> None:
    case.enqueue(server, *(case.error_reply(500, "The server had an error") for _ in range(3)))
    sleep = RecordingSleep()
    async with quick(case, server, retry=RetryPolicy(max_retries=2, sleep=sleep)) as provider:
        events = await collect(provider, case)
    assert case.requests(server) == 3 and len(sleep.delays) == 2
    assert events == [ErrorEvent("Fake (HTTP 500): The server had an error",
                                 code=case.error_code, status=500, provider="Fake")]  # fmt: skip


async def test_redirect_is_reported(case: ApiCase, server: FakeOpenAIServer) -> None:
    case.enqueue(server, ScriptedResponse(status=307, headers={"Location": "https://else.test/"}))
    async with quick(case, server) as provider:
        last = (await collect(provider, case))[-1]
    assert isinstance(last, ErrorEvent) and last.status == 307
    assert "redirect to https://else.test/" in last.message


async def test_web_page_instead_of_a_stream(case: ApiCase, server: FakeOpenAIServer) -> None:
    case.enqueue(server, ScriptedResponse.text(200, PAGE))
    async with quick(case, server) as provider:
        last = (await collect(provider, case))[-1]
    assert isinstance(last, ErrorEvent) and last.code == "unexpected_content"
    assert last.message.startswith("Fake: expected ")
    assert last.message.endswith("but got a web page (Open WebUI: Sign in); check the base URL")


# ---------------------------------------------------------------- errors inside the stream


def answer_then(case: ApiCase, item: bytes) -> list[bytes]:
    """The start of an answer ("The answer is"), then ``item``, then the rest of it."""
    chunks = case.text("The answer is!", 13)
    at = index_of(chunks, b'"The answer is"') + 1
    return [*chunks[:at], item, *chunks[at:]]


async def test_in_stream_error_ends_the_stream(case: ApiCase, server: FakeOpenAIServer) -> None:
    case.enqueue(server, case.response(answer_then(case, case.stream_error(f"key {KEY} broke"))))
    async with quick(case, server) as provider:
        events = await collect(provider, case)
    assert text_of(events) == "The answer is"
    last = events[-1]
    assert isinstance(last, ErrorEvent) and last.provider == "Fake"
    assert (last.message, last.code) == ("Fake: key *** broke", case.stream_error_code)
    assert case.requests(server) == 1


async def test_malformed_item_ends_the_stream(case: ApiCase, server: FakeOpenAIServer) -> None:
    case.enqueue(server, case.response(answer_then(case, case.malformed)))
    async with quick(case, server) as provider:
        events = await collect(provider, case)
    last = events[-1]
    assert text_of(events) == "The answer is"
    assert isinstance(last, ErrorEvent) and last.code == "malformed_stream"
    assert last.message.startswith("Fake: malformed stream data: ")


# ---------------------------------------------------------------- before the first byte


async def test_connection_refused_is_retried_then_one_error(case: ApiCase) -> None:
    sleep = RecordingSleep()
    url = f"http://127.0.0.1:{unused_port()}"
    async with case.offline(url, retry=RetryPolicy(max_retries=2, sleep=sleep)) as provider:
        events = await collect(provider, case)
    assert len(events) == 1 and isinstance(events[0], ErrorEvent)
    assert events[0].code == "connection_error" and events[0].message.startswith("Fake: ")
    assert url in events[0].message and len(sleep.delays) == 2


async def test_invalid_base_url_is_an_error_event(case: ApiCase) -> None:
    async with case.offline("http://localhost:notaport") as provider:
        events = await collect(provider, case)
    assert isinstance(events[0], ErrorEvent) and events[0].code == "invalid_url"
    assert events[0].message.startswith("Fake: invalid base URL")


async def test_key_in_the_url_is_redacted_from_connection_errors(case: ApiCase) -> None:
    url = f"http://127.0.0.1:{unused_port()}/v1?key=AIzaSecretSecretSecret123"
    async with case.offline(url, retry=RetryPolicy.disabled()) as provider:
        event = (await collect(provider, case))[-1]
        with pytest.raises(ProviderError) as info:
            await provider.list_models()  # type: ignore[attr-defined]
    assert isinstance(event, ErrorEvent) and "SecretSecret" not in event.message
    assert "SecretSecret" not in str(info.value)


@pytest.mark.parametrize(
    ("exc", "code", "fragment"),
    [(httpx.ReadTimeout("timed out"), "timeout", "no response from http://test for 30 s"),
     (httpx.ConnectTimeout("timed out"), "timeout", "timed out connecting"),
     (httpx.ProxyError("407 Proxy Authentication Required"), "proxy_error", "proxy")],
    ids=["read-timeout", "connect-timeout", "proxy"],
)  # fmt: skip
async def test_transport_failures_before_the_first_byte(
    case: ApiCase, exc: Exception, code: str, fragment: str
) -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        raise exc

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        retry = RetryPolicy(max_retries=2, sleep=RecordingSleep())
        events = await collect(case.offline(timeout=30, retry=retry, client=client), case)
    assert len(events) == 1 and isinstance(events[0], ErrorEvent)
    assert events[0].code == code and fragment in events[0].message
    # Neither a refusing proxy nor a server silent for the whole timeout is asked again.
    assert calls == (1 if isinstance(exc, httpx.ProxyError | httpx.ReadTimeout) else 3)


# ---------------------------------------------------------------- lifecycle


def test_is_a_provider_and_hides_the_key(case: ApiCase) -> None:
    provider = case.offline("http://localhost:1234")
    assert isinstance(provider, Provider)
    assert provider.supports_tools and provider.supports_reasoning
    assert KEY not in repr(provider)


async def test_cancellation_propagates_and_the_provider_stays_usable(
    case: ApiCase, server: FakeOpenAIServer
) -> None:
    chunks = case.text("Hello world", 5)
    scripted = case.response(chunks, hold_after=index_of(chunks, b'"Hello"') + 1)
    case.enqueue(server, scripted)
    provider = quick(case, server)
    got_first = asyncio.Event()
    seen: list[StreamEvent] = []

    async def consume() -> None:
        async for event in provider.stream(case.request):
            seen.append(event)
            got_first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_first.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == [TextDelta("Hello")]
    scripted.release()
    case.enqueue(server, case.response(case.text("again", 4)))
    assert text_of(await collect(provider, case)) == "again"
    await provider.aclose()


async def test_connection_is_reused_after_a_complete_answer(
    case: ApiCase, server: FakeOpenAIServer
) -> None:
    case.enqueue(server, *(case.response(case.text("Hello world", 2)) for _ in range(3)))
    async with quick(case, server) as provider:
        for _ in range(3):
            assert text_of(await collect(provider, case)) == "Hello world"
    ports = {r.client_port for r in server.requests if r.path.split("?")[0] == case.path}
    assert len(ports) == 1  # the body was read to its end: the connection went back to the pool


async def test_injected_client_is_not_closed(case: ApiCase, server: FakeOpenAIServer) -> None:
    case.enqueue(server, case.response(case.text("ok", 4)))
    async with httpx.AsyncClient() as client:
        provider = quick(case, server, client=client)
        assert text_of(await collect(provider, case)) == "ok"
        await provider.aclose()
        assert not client.is_closed


async def test_no_httpx_generator_left_suspended(case: ApiCase, server: FakeOpenAIServer) -> None:
    """Under a loop without asyncgen hooks (qasync), nothing is left for the GC to
    finalize outside the loop: completed, failed and abandoned streams alike."""
    chunks = case.text("abcdef", 1)
    case.enqueue(server, case.response(case.text("Hello world", 2)),
                 case.error_reply(400, "bad request"),
                 case.response(answer_then(case, case.stream_error("boom"))),
                 case.response(chunks, hold_after=index_of(chunks, b'"b"')))  # fmt: skip
    unraisable: list[Any] = []
    old_hooks, old_unraisable = sys.get_asyncgen_hooks(), sys.unraisablehook
    sys.set_asyncgen_hooks(firstiter=None, finalizer=None)
    sys.unraisablehook = unraisable.append
    try:
        provider = quick(case, server)
        for _ in range(3):
            await collect(provider, case)
        async with contextlib.aclosing(provider.stream(case.request)) as stream:
            async for event in stream:
                assert event == TextDelta("a")
                break  # the consumer stops early (the Stop button)
        await provider.aclose()
        gc.collect()
    finally:
        sys.set_asyncgen_hooks(*old_hooks)
        sys.unraisablehook = old_unraisable
    assert unraisable == []
