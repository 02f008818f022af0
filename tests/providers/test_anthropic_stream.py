"""AnthropicStreamParser on its own: the corners of the event format."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.core.events import (
    EndEvent,
    ErrorEvent,
    ReasoningComplete,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    ToolCallStarted,
    UsageEvent,
)
from desktop.core.messages import Source, Usage
from desktop.providers.anthropic_stream import (
    AnthropicStreamParser,
    normalize_stop_reason,
    source_from_citation,
    usage_from_anthropic,
)
from desktop.providers.sse import ServerSentEvent

START = {
    "type": "message_start",
    "message": {"id": "msg_1", "usage": {"input_tokens": 5, "output_tokens": 1}},
}
STOP = {"type": "message_stop"}


def delta(index: int, **fields: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": fields}


def block(index: int, **content: Any) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": content}


def end(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def message_delta(reason: str | None, **usage: Any) -> dict[str, Any]:
    return {
        "type": "message_delta",
        "delta": {"stop_reason": reason, "stop_sequence": None},
        "usage": usage,
    }


def feed(*events: dict[str, Any], parser: AnthropicStreamParser | None = None) -> list[StreamEvent]:
    parser = parser or AnthropicStreamParser("P")
    out: list[StreamEvent] = []
    for event in events:
        out += parser.feed_event(event)
    return out + parser.finish()


def test_ping_and_unknown_events_are_ignored() -> None:
    events = feed(
        START,
        {"type": "ping"},
        {"type": "brand_new_event", "x": 1},
        block(0, type="text", text=""),
        delta(0, type="text_delta", text="Hi"),
        delta(0, type="brand_new_delta", value=1),
        end(0),
        message_delta("end_turn", output_tokens=3),
        STOP,
    )
    assert events == [
        TextDelta("Hi"),
        UsageEvent(Usage(input_tokens=5, output_tokens=3)),
        EndEvent("stop", {"raw_finish_reason": "end_turn"}),
    ]


def test_cumulative_usage_replaces_and_nulls_are_skipped() -> None:
    later = {
        "input_tokens": 7,
        "cache_read_input_tokens": None,
        "output_tokens": 30,
        "output_tokens_details": {"thinking_tokens": 12},
    }
    start = {
        "type": "message_start",
        "message": {
            "usage": {
                "input_tokens": 5,
                "cache_read_input_tokens": 100,
                "cache_creation_input_tokens": 20,
                "output_tokens": 1,
            }
        },
    }
    events = feed(
        start, {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": later}, STOP
    )
    usage = Usage(input_tokens=127, output_tokens=30, reasoning_tokens=12, cached_tokens=100)
    assert events[0] == UsageEvent(usage)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("model_context_window_exceeded", "length"),
        ("tool_use", "tool_calls"),
        ("refusal", "content_filter"),
        ("pause_turn", "pause_turn"),
        ("something_new", "something_new"),
        (None, "stop"),
    ],
)
def test_stop_reasons(raw: str | None, expected: str) -> None:
    assert normalize_stop_reason(raw) == expected


def test_stop_sequence_is_reported() -> None:
    stop = {
        "type": "message_delta",
        "delta": {"stop_reason": "stop_sequence", "stop_sequence": "###"},
        "usage": {},
    }
    assert feed(START, stop, STOP)[-1] == EndEvent(
        "stop", {"raw_finish_reason": "stop_sequence", "stop_sequence": "###"}
    )


def test_tool_input_in_the_start_block_and_empty_input() -> None:
    events = feed(
        START,
        block(0, type="tool_use", id="toolu_a", name="f", input={"q": "é"}),
        end(0),
        block(1, type="tool_use", id="toolu_b", name="g", input={}),
        end(1),
        message_delta("tool_use"),
        STOP,
    )
    assert [e for e in events if isinstance(e, ToolCallStarted | ToolCallComplete)] == [
        ToolCallStarted(0, "toolu_a", "f"),
        ToolCallComplete(0, "toolu_a", "f", '{"q": "é"}'),
        ToolCallStarted(1, "toolu_b", "g"),
        ToolCallComplete(1, "toolu_b", "g", "{}"),
    ]
    assert events[-1] == EndEvent("tool_calls", {"raw_finish_reason": "tool_use"})


def test_invalid_tool_json_without_max_tokens() -> None:
    events = feed(
        START,
        block(0, type="tool_use", id="t", name="f", input={}),
        delta(0, type="input_json_delta", partial_json='{"a": tru'),
        end(0),
        message_delta("tool_use"),
        STOP,
    )
    assert events[-1] == ErrorEvent(
        "P: the arguments of tool call 'f' are not valid JSON",
        code="invalid_tool_arguments",
        provider="P",
    )
    assert not [e for e in events if isinstance(e, ToolCallComplete)]


def test_blocks_never_stopped_are_completed_at_message_stop() -> None:
    events = feed(
        START,
        block(0, type="thinking", thinking="", signature=""),
        delta(0, type="thinking_delta", thinking="Hm."),
        delta(0, type="signature_delta", signature="c2ln"),
        block(1, type="tool_use", id="t", name="f", input={}),
        delta(1, type="input_json_delta", partial_json="{}"),
        message_delta(None),
        STOP,
    )
    assert ReasoningComplete("Hm.", "c2ln") in events
    assert ToolCallComplete(0, "t", "f", "{}") in events
    assert events[-1] == EndEvent("tool_calls")


def test_thinking_with_omitted_display_keeps_the_signature() -> None:
    events = feed(
        START,
        block(0, type="thinking", thinking="", signature=""),
        delta(0, type="signature_delta", signature="b21pdHRlZA=="),
        end(0),
        message_delta("end_turn"),
        STOP,
    )
    assert events[0] == ReasoningComplete("", "b21pdHRlZA==")


def sse(data: str, event: str = "message") -> ServerSentEvent:
    return ServerSentEvent(event=event, data=data)


def test_malformed_data_and_error_events() -> None:
    parser = AnthropicStreamParser("P", secrets=["sk-ant-secret-value"])
    assert parser.feed(sse('{"type": "ping"}', "ping")) == []
    assert parser.feed(sse("{not json")) == [
        ErrorEvent("P: malformed stream data: '{not json'", code="malformed_stream", provider="P")
    ]
    assert parser.feed(sse('{"type": "message_stop"}')) == []  # closed: nothing more
    plain = AnthropicStreamParser("P", secrets=["sk-ant-secret-value"])
    assert plain.feed(sse("upstream sk-ant-secret-value failed", "error")) == [
        ErrorEvent("P: upstream *** failed", provider="P")
    ]
    wrapped = AnthropicStreamParser("P")
    events = wrapped.feed(sse('{"error": {"type": "api_error", "message": "Boom"}}', "error"))
    assert events == [ErrorEvent("P: Boom", code="api_error", provider="P")]


def test_done_marker_from_a_proxy() -> None:
    finished = AnthropicStreamParser("P")
    for event in (START, message_delta("end_turn")):
        finished.feed_event(event)
    assert finished.feed_event(STOP)[-1] == EndEvent("stop", {"raw_finish_reason": "end_turn"})
    assert finished.feed(sse("[DONE]")) == []
    early = AnthropicStreamParser("P")
    early.feed_event(START)
    last = early.feed(sse("[DONE]"))[-1]
    assert isinstance(last, ErrorEvent) and last.code == "stream_interrupted"


def test_non_streaming_error_object() -> None:
    parser = AnthropicStreamParser("P")
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    assert parser.feed_body(body) == [
        ErrorEvent("P: Overloaded", code="overloaded_error", provider="P")
    ]


@pytest.mark.parametrize(
    ("citation", "source"),
    [
        (
            {"type": "char_location", "cited_text": "x", "document_title": "Doc"},
            Source(title="Doc", snippet="x"),
        ),
        (
            {
                "type": "web_search_result_location",
                "cited_text": "y",
                "title": "T",
                "url": "https://a.example/",
                "encrypted_index": "E",
            },
            Source(title="T", url="https://a.example/", snippet="y"),
        ),
        (
            {
                "type": "search_result_location",
                "cited_text": "z",
                "title": None,
                "source": "https://kb.example/1",
                "search_result_index": 0,
            },
            Source(url="https://kb.example/1", snippet="z"),
        ),
        ({"type": "content_block_location", "cited_text": "", "document_title": None}, Source()),
    ],
)
def test_citations_become_sources(citation: dict[str, Any], source: Source) -> None:
    assert source_from_citation(citation) == source


def test_usage_tolerates_junk() -> None:
    assert usage_from_anthropic({"input_tokens": "7", "output_tokens": True}) == Usage()
