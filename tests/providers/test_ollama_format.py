"""The Ollama wire format without I/O: request bodies, stream parsing, hosts, tags."""

from __future__ import annotations

from typing import Any

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
from desktop.core.messages import (
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)
from desktop.core.provider import ChatRequest, ModelInfo, ToolSpec
from desktop.core.provider_options import OllamaOptions
from desktop.providers.ollama import ollama_host, parse_tags, preferred_model
from desktop.providers.ollama_format import SERVER_ID, build_ollama_body
from desktop.providers.ollama_stream import OllamaStreamParser, normalize_done_reason
from tests.support.ollama_server import chat_line, done_line, tag_entry

# ---------------------------------------------------------------- request body


def body(*messages: Message, **kwargs: Any) -> dict[str, Any]:
    options = OllamaOptions.model_validate(kwargs.pop("options", None) or {})
    return build_ollama_body(ChatRequest(model="m", messages=list(messages), **kwargs), options)


def test_minimal_body() -> None:
    assert body(Message.user("Hi")) == {
        "model": "m",
        "messages": [{"role": "user", "content": "Hi"}],
        "stream": True,
    }


def test_user_images_are_bare_base64() -> None:
    user = Message(role="user", parts=[
        TextPart(text="What is this?"),
        ImagePart(media_type="image/png", data="iVBORw0KGgo="),
        ImagePart(media_type="image/jpeg", data="/9j/4AAQ"),
        ImagePart(data=""),  # an empty attachment is skipped
    ])  # fmt: skip
    assert body(user)["messages"] == [
        {"role": "user", "content": "What is this?", "images": ["iVBORw0KGgo=", "/9j/4AAQ"]}
    ]
    only_image = Message(role="user", parts=[ImagePart(data="AAAA")])
    assert body(only_image)["messages"] == [{"role": "user", "content": "", "images": ["AAAA"]}]


def test_assistant_with_thinking_text_and_calls() -> None:
    assistant = Message(role="assistant", parts=[
        ReasoningPart(text="Need the "), ReasoningPart(text="weather."),
        TextPart(text="Checking."),
        ToolCallPart(id="call_1", name="get_weather", arguments='{"city": "Paris"}'),
        ToolCallPart(id="call_2", name="get_weather", arguments='{"city": "Oslo"}',
                     provider_data={SERVER_ID: True}),
        ToolCallPart(id="call_3", name="noop", arguments=""),
        ToolCallPart(id="call_4", name="bad", arguments="{not json"),
        ToolCallPart(id="call_5", name="list", arguments="[1, 2]"),
    ])  # fmt: skip
    results = Message(role="tool", parts=[
        ToolResultPart(tool_call_id=f"call_{i}", name=n, content=f"r{i}")
        for i, n in enumerate(["get_weather", "get_weather", "noop", "bad", "list"], start=1)
    ])  # fmt: skip
    messages = body(assistant, results)["messages"]
    assert messages[0] == {
        "role": "assistant",
        "content": "Checking.",
        "thinking": "Need the weather.",
        "tool_calls": [
            {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
            {"id": "call_2", "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}},
            {"function": {"name": "noop", "arguments": {}}},
            {"function": {"name": "bad", "arguments": {}}},  # unreadable: Ollama needs an object
            {"function": {"name": "list", "arguments": {}}},
        ],
    }
    assert messages[1:] == [
        {"role": "tool", "content": "r1", "tool_name": "get_weather"},
        {"role": "tool", "content": "r2", "tool_name": "get_weather", "tool_call_id": "call_2"},
        {"role": "tool", "content": "r3", "tool_name": "noop"},
        {"role": "tool", "content": "r4", "tool_name": "bad"},
        {"role": "tool", "content": "r5", "tool_name": "list"},
    ]


def test_empty_assistant_is_dropped_and_results_in_user_message_come_first() -> None:
    empty = Message(role="assistant", parts=[])
    mixed = Message(role="user", parts=[
        ToolResultPart(tool_call_id="c", name="t", content="out"), TextPart(text="and then?"),
    ])  # fmt: skip
    assert body(empty, mixed)["messages"] == [
        {"role": "tool", "content": "out", "tool_name": "t"},
        {"role": "user", "content": "and then?"},
    ]


def test_tools_think_options_and_extra() -> None:
    spec = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {}})
    got = body(Message.user("x"), tools=[spec], temperature=0.0, max_tokens=64,
               options={"keep_alive": -1, "model_options": {"top_k": 20, "num_ctx": 2048},
                        "num_ctx": 16384, "think": False},
               extra={"format": "json", "stream": None})  # fmt: skip
    assert got == {
        "model": "m",
        "messages": [{"role": "user", "content": "x"}],
        "tools": [{"type": "function", "function": {
            "name": "read_file", "description": "Read a file",
            "parameters": {"type": "object", "properties": {}}}}],
        "think": False,
        "options": {"top_k": 20, "num_ctx": 16384, "temperature": 0.0, "num_predict": 64},
        "keep_alive": -1,
        "format": "json",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("reasoning", "effort", "option", "expected"),
    [
        (False, None, None, None),  # the server's default (thinking models think)
        (True, None, None, True),
        (True, "high", None, "high"),
        (True, "extreme", None, True),  # not an Ollama level
        (True, None, "low", "low"),
        (True, None, False, True),  # the request asks for reasoning: it wins
        (False, None, "medium", "medium"),
        (False, None, True, True),
    ],
)
def test_think(reasoning: bool, effort: str | None, option: Any, expected: Any) -> None:
    options = {} if option is None else {"think": option}
    got = body(Message.user("x"), reasoning=reasoning, reasoning_effort=effort, options=options)
    assert got.get("think") == expected


# ---------------------------------------------------------------- stream parsing


def feed(*lines: Any) -> list[StreamEvent]:
    parser = OllamaStreamParser("P")
    events = [event for line in lines for event in parser.feed(line)]
    return events + parser.finish()


def call(name: str, arguments: Any, id: str | None = None, index: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {"function": {"index": index, "name": name, "arguments": arguments}}
    if id is not None:
        out["id"] = id
    return out


def test_same_tool_twice_in_one_line_stays_two_calls() -> None:
    events = feed(chat_line(tool_calls=[call("f", {"a": 1}), call("f", {"a": 1})]), done_line())
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    completed = [e for e in events if isinstance(e, ToolCallComplete)]
    assert [(e.index, e.name) for e in started] == [(0, "f"), (1, "f")]
    assert [(e.id, e.arguments) for e in completed] == [(s.id, '{"a": 1}') for s in started]
    assert started[0].id != started[1].id
    assert events[-1] == EndEvent("tool_calls", {"raw_finish_reason": "stop"})


def test_repeated_server_id_gets_a_fresh_one() -> None:
    lines = [chat_line(tool_calls=[call("f", {}, id="call_x")]),
             chat_line(tool_calls=[call("g", {}, id="call_x"), call("h", {}, id="")])]
    events = feed(*lines, done_line())
    completed = [e for e in events if isinstance(e, ToolCallComplete)]
    assert completed[0].id == "call_x" and completed[0].provider_data == {SERVER_ID: True}
    assert completed[1].id not in ("call_x", "") and completed[1].provider_data == {}
    assert completed[2].id.startswith("call_") and completed[2].provider_data == {}
    assert len({c.id for c in completed}) == 3


def test_arguments_as_text_null_or_odd() -> None:
    lines = [chat_line(tool_calls=[call("a", '{"q": "já"}'), call("b", None), call("c", [1]),
                                   call("d", "")]),
             chat_line(tool_calls=[{"function": {"arguments": {}}}, "junk", {"id": "x"}])]
    events = feed(*lines, done_line())
    completed = [(e.name, e.arguments) for e in events if isinstance(e, ToolCallComplete)]
    assert completed == [("a", '{"q": "já"}'), ("b", "{}"), ("c", "[1]"), ("d", "{}")]


def test_thinking_then_content_in_one_line_and_usage() -> None:
    events = feed(chat_line(thinking="hmm"), chat_line("Hi", thinking=" ok"),
                  done_line(prompt_eval_count=5, eval_count=7))  # fmt: skip
    assert events == [
        ReasoningDelta("hmm"),
        ReasoningDelta(" ok"),
        ReasoningComplete("hmm ok"),
        TextDelta("Hi"),
        UsageEvent(Usage(input_tokens=5, output_tokens=7)),
        EndEvent("stop"),
    ]


def test_thinking_closed_at_done_and_by_tool_calls() -> None:
    assert feed(chat_line(thinking="a"), done_line(eval_count=None, prompt_eval_count=None)) == [
        ReasoningDelta("a"), ReasoningComplete("a"), EndEvent("stop")]  # fmt: skip
    events = feed(chat_line(thinking="b"), chat_line(tool_calls=[call("f", {})]), done_line())
    assert [type(e).__name__ for e in events] == [
        "ReasoningDelta", "ReasoningComplete", "ToolCallStarted", "ToolCallComplete",
        "UsageEvent", "EndEvent"]  # fmt: skip


@pytest.mark.parametrize(
    ("raw", "end"),
    [
        ("stop", EndEvent("stop")),
        ("length", EndEvent("length")),
        (None, EndEvent("stop")),  # older servers send no done_reason
        ("", EndEvent("stop")),
        ("load", EndEvent("stop", {"raw_finish_reason": "load"})),
        ("unload", EndEvent("stop", {"raw_finish_reason": "unload"})),
        ("content_filter", EndEvent("content_filter")),
    ],
)
def test_done_reasons(raw: str | None, end: EndEvent) -> None:
    assert feed(done_line(raw, prompt_eval_count=None, eval_count=None)) == [end]
    assert normalize_done_reason(raw) == end.finish_reason


def test_done_line_may_carry_the_last_text() -> None:
    last = done_line(eval_count=3)
    last["message"]["content"] = "tail"
    events = feed(chat_line("head "), last)
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["head ", "tail"]
    assert events[-1] == EndEvent("stop")


def test_length_with_calls_stays_length() -> None:
    events = feed(chat_line(tool_calls=[call("f", {})]), done_line("length"))
    assert events[-1] == EndEvent("length")


def test_errors_close_the_parser() -> None:
    parser = OllamaStreamParser("P", secrets=["sekrit-token-1234"])
    assert parser.feed({"error": "bad sekrit-token-1234", "status": 500}) == [
        ErrorEvent("P: bad ***", status=500, provider="P")]  # fmt: skip
    assert parser.closed and parser.feed(chat_line("late")) == [] and parser.finish() == []
    assert feed(["not", "an", "object"])[0] == ErrorEvent(
        "P: malformed stream data: \"['not', 'an', 'object']\"", code="malformed_stream",
        provider="P")  # fmt: skip
    assert feed({"error": {"message": "nested", "code": "x"}}) == [
        ErrorEvent("P: nested", code="x", provider="P")]  # fmt: skip
    assert feed(chat_line("x"))[-1] == ErrorEvent(
        "P: the stream ended unexpectedly before the response was complete",
        code="stream_interrupted", provider="P")  # fmt: skip


def test_nothing_after_done() -> None:
    parser = OllamaStreamParser()
    assert parser.feed(done_line())[-1] == EndEvent("stop") and parser.done and parser.closed
    assert parser.feed(chat_line("more")) == [] and parser.finish() == []


# ---------------------------------------------------------------- OLLAMA_HOST


@pytest.mark.parametrize(
    ("value", "url"),
    [
        (None, "http://localhost:11434"),
        ("", "http://localhost:11434"),
        ("  ", "http://localhost:11434"),
        ("0.0.0.0", "http://localhost:11434"),
        ("0.0.0.0:12345", "http://localhost:12345"),
        (":8080", "http://localhost:8080"),
        ("::", "http://localhost:11434"),
        ("[::]:11434", "http://localhost:11434"),
        ("127.0.0.1", "http://127.0.0.1:11434"),
        ("127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("gpu-box", "http://gpu-box:11434"),
        ("gpu-box:11500", "http://gpu-box:11500"),
        ("http://gpu-box:11434", "http://gpu-box:11434"),
        ("http://gpu-box", "http://gpu-box"),  # Ollama: an explicit http:// means port 80
        ("https://ollama.example.org", "https://ollama.example.org"),
        ("https://ollama.example.org:8443/", "https://ollama.example.org:8443"),
        ("HTTP://Gpu-Box:11434", "http://gpu-box:11434"),
        ("example.com/ollama/", "http://example.com:11434/ollama"),
        ("[::1]:11434", "http://[::1]:11434"),
        ("::1", "http://[::1]:11434"),
        ("gpu-box:notaport", "http://gpu-box:11434"),  # invalid: the default, as Ollama does
        ("ollama.com", "https://ollama.com"),
    ],
)
def test_ollama_host(value: str | None, url: str) -> None:
    assert ollama_host(value) == url


# ---------------------------------------------------------------- tags


def test_parse_tags_and_preferred_model() -> None:
    payload = {"models": [tag_entry("nomic-embed-text:latest", "nomic-bert", "137M"),
                          tag_entry("mxbai-embed-large:latest", "bert", "334M"),
                          tag_entry("qwen3:8b", "qwen3", "8.2B")]}  # fmt: skip
    assert parse_tags(payload, "O")[2] == ModelInfo("qwen3:8b", "qwen3:8b (qwen3, 8.2B, Q4_K_M)")
    assert preferred_model(payload) == "qwen3:8b"
    only_embeddings = {"models": payload["models"][:1]}
    assert preferred_model(only_embeddings) == "nomic-embed-text:latest"
    assert preferred_model({"models": []}) == ""
    for bad in ({}, [], {"models": {}}, None, "x"):
        with pytest.raises(ProviderError, match="no model list"):
            parse_tags(bad, "O")
        with pytest.raises(ProviderError):
            preferred_model(bad)

