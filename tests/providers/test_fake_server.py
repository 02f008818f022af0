"""The loopback fake server (tests.support.openai_server) behaves as documented."""

from __future__ import annotations

import json
import threading

import httpx
import pytest

from tests.support.openai_server import (
    FakeOpenAIServer,
    ScriptedResponse,
    sse_chunks,
    text_stream,
    tool_call_stream,
)
from tests.support.sse_builders import chat_chunk, split_bytes, sse_event, usage_chunk


def test_context_manager_and_base_url() -> None:
    with FakeOpenAIServer() as server:
        assert server.base_url == f"http://127.0.0.1:{server.port}/v1"
        response = httpx.get(f"{server.base_url}/models")
        assert response.json()["data"][0]["id"] == "gpt-test"
        url = f"{server.base_url}/models"
    with pytest.raises(httpx.ConnectError):
        httpx.get(url)


def test_records_requests(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue_text("hi")
    httpx.post(
        f"{openai_server.base_url}/chat/completions",
        json={"model": "m", "messages": []},
        headers={"Authorization": "Bearer k"},
    )
    request = openai_server.wait_for_requests(1)[0]
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.headers["authorization"] == "Bearer k"
    assert request.json == {"model": "m", "messages": []}
    assert openai_server.last_chat_body == {"model": "m", "messages": []}
    assert openai_server.pending() == 0


def test_queue_order_and_empty_queue(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(
        ScriptedResponse.error(429, "first"), ScriptedResponse.error(400, "second")
    )
    url = f"{openai_server.base_url}/chat/completions"
    assert httpx.post(url, json={}).status_code == 429
    assert httpx.post(url, json={}).status_code == 400
    empty = httpx.post(url, json={})
    assert empty.status_code == 500
    assert "no scripted response left" in empty.json()["error"]["message"]
    assert empty.headers["retry-after"] == "0"
    assert httpx.get(f"{openai_server.url}/elsewhere").status_code == 404


def test_chunks_are_streamed_with_chunked_encoding(openai_server: FakeOpenAIServer) -> None:
    chunks = text_stream("Hello", chunk_size=2)
    openai_server.enqueue(ScriptedResponse(chunks=chunks))
    with httpx.stream("POST", f"{openai_server.base_url}/chat/completions", json={}) as response:
        assert response.headers["transfer-encoding"] == "chunked"
        assert response.headers["content-type"] == "text/event-stream"
        body = b"".join(response.iter_bytes())
    assert body == b"".join(chunks)
    assert body.endswith(b"data: [DONE]\n\n")


def test_cut_closes_mid_body(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(ScriptedResponse(chunks=[b"data: {}\n\n", b"data: {"], cut=True))
    with (
        pytest.raises(httpx.RemoteProtocolError),
        httpx.stream("POST", f"{openai_server.base_url}/chat/completions") as response,
    ):
        b"".join(response.iter_bytes())


def test_hold_and_release(openai_server: FakeOpenAIServer) -> None:
    scripted = ScriptedResponse(chunks=[b"a", b"b"], hold_after=1)
    openai_server.enqueue(scripted)
    got: list[bytes] = []

    def read() -> None:
        with httpx.stream("POST", f"{openai_server.base_url}/chat/completions") as response:
            got.extend(response.iter_bytes())

    thread = threading.Thread(target=read)
    thread.start()
    assert scripted.holding.wait(5)
    scripted.release()
    thread.join(5)
    assert b"".join(got) == b"ab"
    assert scripted.first_byte_at is not None


def test_stop_releases_held_responses() -> None:
    server = FakeOpenAIServer().start()
    scripted = ScriptedResponse(chunks=[b"a", b"b"], hold_after=1)
    server.enqueue(scripted)
    errors: list[Exception] = []

    def read() -> None:
        try:
            with httpx.stream("POST", f"{server.base_url}/chat/completions") as response:
                b"".join(response.iter_bytes())
        except httpx.HTTPError as exc:
            errors.append(exc)

    thread = threading.Thread(target=read)
    thread.start()
    assert scripted.holding.wait(5)
    server.stop()
    thread.join(5)
    assert not thread.is_alive()


def test_models_configurable(openai_server: FakeOpenAIServer) -> None:
    openai_server.models = ["b", {"id": "a", "owned_by": "me"}]
    data = httpx.get(f"{openai_server.base_url}/models").json()["data"]
    assert [m["id"] for m in data] == ["b", "a"]


def test_builders() -> None:
    assert sse_event({"a": 1}) == b'data: {"a":1}\n\n'
    assert sse_event("x\ny", event="error") == b"event: error\ndata: x\ndata: y\n\n"
    assert sse_chunks([], done=True) == [b"data: [DONE]\n\n"]
    assert split_bytes([b"abc", b"de"], 2) == [b"ab", b"cd", b"e"]
    chunk = chat_chunk({"content": "x"}, "stop")
    assert chunk["object"] == "chat.completion.chunk"
    assert chunk["choices"][0] == {
        "index": 0,
        "delta": {"content": "x"},
        "logprobs": None,
        "finish_reason": "stop",
    }
    assert usage_chunk(3, 4, cost=0.5)["usage"]["cost"] == 0.5
    events = tool_call_stream([("f", '{"a": 1}')], split=3, ids=["call_x"])
    payloads = [json.loads(e[6:]) for e in events[:-1]]
    first_call = payloads[1]["choices"][0]["delta"]["tool_calls"][0]
    assert first_call["id"] == "call_x" and first_call["function"]["name"] == "f"
    args = "".join(
        p["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]
        for p in payloads[1:]
        if p["choices"] and p["choices"][0]["delta"].get("tool_calls")
    )
    assert args == '{"a": 1}'
