"""OllamaProvider end to end against the loopback fake Ollama (recorded NDJSON)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from desktop.core.errors import ProviderError
from desktop.core.events import (
    EndEvent,
    ErrorEvent,
    ReasoningComplete,
    ToolCallComplete,
    ToolCallStarted,
)
from desktop.core.messages import Message, Usage
from desktop.core.provider import ChatRequest, ModelCapabilities, ModelInfo, Provider
from desktop.providers.ollama import OllamaProvider
from desktop.providers.retry import RetryPolicy
from tests.providers.test_openai_chat import Outcome, assert_terminal
from tests.support.fixtures import RecordingSleep
from tests.support.ollama_server import (
    FakeOllamaServer,
    chat_line,
    done_line,
    ndjson_response,
    ollama_error,
    tag_entry,
    unused_port,
)
from tests.support.openai_server import ScriptedResponse

DATA = Path(__file__).parent / "data"
KEY = "ollama-test-key-abcdefghijklmnop0123"
REQUEST = ChatRequest(model="llama3.2", messages=[Message.user("Hi")])


@pytest.fixture
def ollama() -> Iterator[FakeOllamaServer]:
    with FakeOllamaServer() as server:
        yield server


def fixture_bytes(name: str) -> bytes:
    return (DATA / name).read_bytes()


async def collect(provider: OllamaProvider, request: ChatRequest = REQUEST) -> Outcome:
    return Outcome([event async for event in provider.stream(request)])


def make(server: FakeOllamaServer, **kwargs: Any) -> OllamaProvider:
    kwargs.setdefault("retry", RetryPolicy(sleep=RecordingSleep()))
    return OllamaProvider(server.base_url, kwargs.pop("api_key", None), name="Fake", **kwargs)


# ---------------------------------------------------------------- recorded transcripts

TEXT = (
    "Sure! Here’s a quick summary:\n\n- **Paris** is the capital of France 🇫🇷.\n- Known as "
    "*la Ville Lumière* (光の都).\n\nUse `<b>` & co."
)
EXPECTED: dict[str, dict[str, Any]] = {
    "ollama_text.ndjson": {"text": TEXT, "usage": (26, 38), "end": "stop"},
    "ollama_thinking.ndjson": {
        "reasoning": "Okay, the user asks 9.11 vs 9.8. Compare decimals: 0.11 < 0.80, so 9.8 is "
        "larger.",
        "text": "**9.8** is larger than 9.11.",
        "usage": (17, 46),
        "end": "stop",
    },
    "ollama_tool_call.ndjson": {  # a newer server: it sends the call id
        "reasoning": "The user wants the weather in São Paulo; I should call get_weather.",
        "calls": [("call_k3v9x2qa", "get_weather", {"city": "São Paulo", "unit": "celsius"})],
        "usage": (169, 15),
        "end": "tool_calls",
    },
    "ollama_same_tool_twice.ndjson": {  # the "merged tool calls" bug: index 0, no ids
        "calls": [
            (None, "get_weather", {"city": "Paris"}),
            (None, "get_weather", {"city": "London"}),
        ],
        "usage": (194, 33),
        "end": "tool_calls",
    },
    "ollama_same_tool_one_line.ndjson": {
        "calls": [
            (None, "read_file", {"path": "src/main.py"}),
            (None, "read_file", {"path": "src/util.py", "max_lines": 200}),
        ],
        "usage": (211, 41),
        "end": "tool_calls",
    },
    "ollama_tool_answer.ndjson": {
        "text": "It’s 18 °C in Paris and 15 °C in London.",
        "usage": (260, 14),
        "end": "stop",
    },
    "ollama_error_in_stream.ndjson": {
        "text": "The answer is",
        "error": "Fake: an error was encountered while running the model: unexpected EOF",
    },
    "ollama_cut.ndjson": {"text": "Once upon a time, in a", "error": "ended unexpectedly"},
}


def check_expected(outcome: Outcome, expected: dict[str, Any]) -> None:
    assert outcome.text == expected.get("text", "")
    assert outcome.reasoning == expected.get("reasoning", "")
    if expected.get("reasoning"):
        assert outcome.of(ReasoningComplete) == [ReasoningComplete(expected["reasoning"])]
    calls = expected.get("calls", [])
    assert len(outcome.calls) == len(calls)
    for (got_id, got_name, got_args), (want_id, want_name, want_args) in zip(
        outcome.calls, calls, strict=True
    ):
        assert got_id == want_id if want_id else got_id.startswith("call_")
        assert got_name == want_name and json.loads(got_args) == want_args
    assert len({call_id for call_id, _, _ in outcome.calls}) == len(calls)  # never merged
    started = [(e.index, e.id, e.name) for e in outcome.of(ToolCallStarted)]
    assert [(e.index, e.id, e.name) for e in outcome.of(ToolCallComplete)] == started
    assert [index for index, _, _ in started] == list(range(len(calls)))
    if "usage" in expected:
        prompt, output = expected["usage"]
        assert outcome.usage == Usage(input_tokens=prompt, output_tokens=output)
    assert_terminal(outcome)
    if "error" in expected:
        assert isinstance(outcome.last, ErrorEvent)
        assert expected["error"] in outcome.last.message and outcome.last.provider == "Fake"
    else:
        assert outcome.last == EndEvent(expected["end"], outcome.last.provider_data)


@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_recorded_transcript_over_loopback(ollama: FakeOllamaServer, name: str) -> None:
    """What each transcript means (any chunking gives the same: test_stream_contract)."""
    ollama.enqueue_ndjson(fixture_bytes(name), cut=name == "ollama_cut.ndjson")
    async with make(ollama) as provider:
        outcome = await collect(provider)
    check_expected(outcome, EXPECTED[name])


async def test_request_headers_and_body(ollama: FakeOllamaServer) -> None:
    ollama.enqueue_ndjson([chat_line("ok"), done_line()])
    provider = make(ollama, api_key=KEY, headers={"X-Proxy": "on"},
                    options={"keep_alive": "10m", "num_ctx": 8192})  # fmt: skip
    request = ChatRequest(model="llama3.2", messages=[Message.user("Hi")], system="Be brief",
                          temperature=0.2, max_tokens=100)  # fmt: skip
    assert (await collect(provider, request)).text == "ok"
    await provider.aclose()
    recorded = ollama.chat_requests[0]
    assert (recorded.method, recorded.path) == ("POST", "/api/chat")
    assert recorded.headers["authorization"] == f"Bearer {KEY}"
    assert recorded.headers["x-proxy"] == "on"
    assert recorded.headers["accept"] == "application/x-ndjson"
    assert recorded.headers["content-type"] == "application/json"
    assert recorded.headers["user-agent"].startswith("AssistaDesktop/")
    assert recorded.json == {
        "model": "llama3.2",
        "messages": [{"role": "system", "content": "Be brief"}, {"role": "user", "content": "Hi"}],
        "stream": True,
        "options": {"num_ctx": 8192, "temperature": 0.2, "num_predict": 100},
        "keep_alive": "10m",
    }


async def test_no_key_no_authorization_header(ollama: FakeOllamaServer) -> None:
    ollama.enqueue_ndjson([chat_line("ok"), done_line()])
    async with make(ollama) as provider:
        assert (await collect(provider)).text == "ok"
    assert "authorization" not in ollama.chat_requests[0].headers


@pytest.mark.parametrize("suffix", ["", "/", "/api", "/api/", "/v1", "/V1/"])
async def test_base_url_suffixes_are_tolerated(ollama: FakeOllamaServer, suffix: str) -> None:
    ollama.enqueue_ndjson([chat_line("ok"), done_line()])
    async with OllamaProvider(ollama.url + suffix) as provider:
        assert provider.base_url == ollama.url
        assert (await collect(provider)).text == "ok"
    assert ollama.requests[0].path == "/api/chat"


def test_is_a_provider() -> None:
    provider = OllamaProvider("http://localhost:11434", KEY)
    assert isinstance(provider, Provider)
    assert provider.supports_tools and provider.supports_reasoning
    assert KEY not in repr(provider) and provider.timeout == 300.0


# ---------------------------------------------------------------- Ollama's errors
# (statuses, retries, cut streams, redaction, hygiene: test_stream_contract, for every API)


async def test_model_not_found_404(ollama: FakeOllamaServer) -> None:
    sleep = RecordingSleep()
    ollama.enqueue_chat(ollama_error(404, "model 'llama9' not found, try pulling it first"))
    async with make(ollama, retry=RetryPolicy(sleep=sleep)) as provider:
        outcome = await collect(provider, ChatRequest(model="llama9", messages=[Message.user("x")]))
    assert outcome.events == [
        ErrorEvent(
            "Fake (HTTP 404): model 'llama9' not found, try pulling it first "
            "(run `ollama pull llama9`)",
            status=404,
            provider="Fake",
        )
    ]
    assert sleep.delays == [] and len(ollama.chat_requests) == 1


async def test_plain_404_from_something_else(ollama: FakeOllamaServer) -> None:
    ollama.enqueue_chat(ScriptedResponse.text(404, "404 page not found", "text/plain"))
    async with make(ollama) as provider:
        event = (await collect(provider)).last
    assert isinstance(event, ErrorEvent)
    assert event.message == (
        "Fake (HTTP 404): 404 page not found (check the base URL and the model name)"
    )


async def test_400_does_not_support_tools(ollama: FakeOllamaServer) -> None:
    ollama.enqueue_chat(ollama_error(400, 'registry.ollama.ai/library/gemma:2b does not support '
                                          'tools'))  # fmt: skip
    async with make(ollama) as provider:
        event = (await collect(provider)).last
    assert event == ErrorEvent(
        "Fake (HTTP 400): registry.ollama.ai/library/gemma:2b does not support tools",
        status=400,
        provider="Fake",
    )


async def test_connection_refused_says_ollama_is_not_running() -> None:
    sleep = RecordingSleep()
    url = f"http://127.0.0.1:{unused_port()}"
    provider = OllamaProvider(url, name="Ollama", retry=RetryPolicy(max_retries=2, sleep=sleep))
    outcome = await collect(provider)
    await provider.aclose()
    assert len(sleep.delays) == 2  # retried before giving up, like every adapter
    assert outcome.events == [
        ErrorEvent(
            f"Ollama: Ollama is not running at {url} (connection refused); start the Ollama "
            "app or run `ollama serve`",
            code="connection_error",
            provider="Ollama",
        )
    ]


async def test_unknown_host_is_not_called_not_running() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno -2] Name or service not known")

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        provider = OllamaProvider("http://nowhere.test:11434", name="Fake", client=client,
                                  retry=RetryPolicy.disabled())  # fmt: skip
        event = (await collect(provider)).last
    assert isinstance(event, ErrorEvent) and event.code == "connection_error"
    assert "not running" not in event.message
    assert event.message.startswith("Fake: could not connect to http://nowhere.test:11434")


async def test_in_stream_error_with_status(ollama: FakeOllamaServer) -> None:
    message = "model requires more system memory (9.1 GiB) than is available"
    error = {"error": message, "status": 500}
    ollama.enqueue_ndjson([chat_line("Par"), error, chat_line("ignored"), done_line()])
    async with make(ollama) as provider:
        outcome = await collect(provider)
    assert outcome.text == "Par"
    assert outcome.last == ErrorEvent(
        "Fake: model requires more system memory (9.1 GiB) than is available",
        status=500,
        provider="Fake",
    )
    assert_terminal(outcome)


async def test_stream_ending_cleanly_without_done(ollama: FakeOllamaServer) -> None:
    ollama.enqueue_ndjson([chat_line("partial")])  # the body ends, no "done": true
    async with make(ollama) as provider:
        outcome = await collect(provider)
    assert outcome.text == "partial"
    assert isinstance(outcome.last, ErrorEvent) and outcome.last.code == "stream_interrupted"
    assert outcome.last.message == (
        "Fake: the stream ended unexpectedly before the response was complete"
    )


# ---------------------------------------------------------------- list_models


def show(
    capabilities: list[str] | None, arch: str = "llama", context: int = 131072
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "modelfile": "FROM x",
        "details": {"family": arch, "parameter_size": "8.0B"},
        "model_info": {"general.architecture": arch, f"{arch}.context_length": context},
    }
    if capabilities is not None:
        payload["capabilities"] = capabilities
    return payload


async def test_list_models_with_capabilities() -> None:
    models = [
        tag_entry("qwen3:8b", "qwen3", "8.2B"),
        tag_entry("nomic-embed-text:latest", "nomic-bert", "137M"),
        tag_entry("llava:7b", "llama", "7B"),
        tag_entry("old:latest", "llama", "3B"),
        tag_entry("broken:latest", "llama", "1B"),
    ]
    shows = {
        "qwen3:8b": show(["completion", "tools", "thinking"], "qwen3", 40960),
        "nomic-embed-text:latest": show(["embedding"], "nomic-bert", 2048),
        "llava:7b": show(["completion", "vision"], "llama", 32768),
        "old:latest": show(None, "llama", 4096),  # Ollama before 0.6.4: no capabilities
    }  # broken:latest: /api/show answers 404
    with FakeOllamaServer(models=models, show=shows) as server:
        async with make(server, api_key=KEY) as provider:
            listed = await provider.list_models()
        paths = sorted((r.method, r.path) for r in server.requests)
        assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert listed == [
        ModelInfo("broken:latest", "broken:latest (llama, 1B, Q4_K_M)"),
        ModelInfo("llava:7b", "llava:7b (llama, 7B, Q4_K_M)",
                  capabilities=ModelCapabilities(tools=False, vision=True, reasoning=False,
                                                 context_window=32768)),
        ModelInfo("old:latest", "old:latest (llama, 3B, Q4_K_M)",
                  capabilities=ModelCapabilities(context_window=4096)),
        ModelInfo("qwen3:8b", "qwen3:8b (qwen3, 8.2B, Q4_K_M)",
                  capabilities=ModelCapabilities(tools=True, vision=False, reasoning=True,
                                                 context_window=40960)),
    ]  # fmt: skip
    assert paths == [("GET", "/api/tags")] + [("POST", "/api/show")] * 5


async def test_list_models_entries_without_details() -> None:
    payload = {"models": [{"name": "b:latest"}, {"model": "a:latest"}, {"nope": 1}, "x"]}
    with FakeOllamaServer() as server:
        server.enqueue(ScriptedResponse.json_body(payload), path="/api/tags")
        async with make(server) as provider:
            listed = await provider.list_models()
    assert [m.id for m in listed] == ["a:latest", "b:latest"]
    assert all(m.name is None and m.capabilities is None for m in listed)


@pytest.mark.parametrize(
    ("response", "fragment"),
    [
        (ollama_error(401, "unauthorized"), "Fake (HTTP 401): unauthorized"),
        (ScriptedResponse.text(200, "<html>Open WebUI</html>"), "/api/tags did not return JSON"),
        (ScriptedResponse.json_body({"data": []}), "no model list"),
    ],
)
async def test_list_models_errors(
    ollama: FakeOllamaServer, response: ScriptedResponse, fragment: str
) -> None:
    ollama.enqueue(response, path="/api/tags")
    async with make(ollama) as provider:
        with pytest.raises(ProviderError) as info:
            await provider.list_models()
    assert fragment in str(info.value)


async def test_list_models_connection_refused() -> None:
    url = f"http://127.0.0.1:{unused_port()}"
    provider = OllamaProvider(url, retry=RetryPolicy.disabled())
    with pytest.raises(ProviderError) as info:
        await provider.list_models()
    assert str(info.value).startswith(f"Ollama: Ollama is not running at {url}")
    assert info.value.retryable


async def test_list_models_retries_tags_not_show(ollama: FakeOllamaServer) -> None:
    sleep = RecordingSleep()
    ollama.enqueue(ollama_error(503, "loading"), path="/api/tags")
    ollama.enqueue(ollama_error(500, "show failed"), path="/api/show")
    async with make(ollama, retry=RetryPolicy(sleep=sleep)) as provider:
        listed = await provider.list_models()
    assert [m.id for m in listed] == ["llama3.2:latest"] and listed[0].capabilities is None
    assert len(sleep.delays) == 1  # /api/tags retried once; /api/show never


def test_ndjson_response_helper_splits_like_ollama() -> None:
    response = ndjson_response([chat_line("a"), done_line()])
    assert len(response.chunks) == 2 and all(c.endswith(b"\n") for c in response.chunks)
    assert response.headers["Content-Type"] == "application/x-ndjson"
