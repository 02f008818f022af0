"""Request bodies and the chunk parser, without HTTP."""

from __future__ import annotations

from typing import Any

import pytest

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
from desktop.core.provider import ChatRequest, ToolSpec
from desktop.providers.openai_chat_format import build_openai_chat_body
from desktop.providers.openai_chat_stream import (
    OpenAIChatStreamParser,
    normalize_finish_reason,
    usage_from_openai,
)
from desktop.providers.sse import ServerSentEvent
from tests.support.sse_builders import chat_chunk

# ---------------------------------------------------------------- request body


def test_minimal_body() -> None:
    body = build_openai_chat_body(ChatRequest(model="gpt-test", messages=[Message.user("Hi")]))
    assert body == {
        "model": "gpt-test",
        "messages": [{"role": "user", "content": "Hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def test_full_conversation_body() -> None:
    tool = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {}})
    messages = [
        Message.system("Extra system note"),
        Message(
            role="user",
            parts=[
                TextPart(text="What is in this picture?"),
                ImagePart(media_type="image/jpeg", data="QUJD", name="cat.jpg"),
            ],
        ),
        Message(
            role="assistant",
            parts=[
                ReasoningPart(text="I should read the file", signature="sig"),
                TextPart(text="Let me look."),
                ToolCallPart(id="call_1", name="read_file", arguments='{"path": "a.txt"}'),
                ToolCallPart(id="call_2", name="read_file", arguments=""),
            ],
        ),
        Message(
            role="tool",
            parts=[
                ToolResultPart(tool_call_id="call_1", name="read_file", content="alpha"),
                ToolResultPart(
                    tool_call_id="call_2", name="read_file", content="denied", is_error=True
                ),
            ],
        ),
        Message(
            role="assistant",
            parts=[ToolCallPart(id="call_3", name="read_file", arguments="{}")],
        ),
        Message(role="tool", parts=[ToolResultPart(tool_call_id="call_3", name="x", content="")]),
        Message(role="assistant", parts=[ReasoningPart(text="only thinking")]),  # dropped
        Message(role="assistant", parts=[TextPart(text="Done.")]),
    ]
    request = ChatRequest(
        model="gpt-test",
        messages=messages,
        system="You are Assista.",
        tools=[tool],
        temperature=0.2,
        max_tokens=512,
        extra={"top_p": 0.9, "stream_options": None},
    )
    body = build_openai_chat_body(request)
    assert body["messages"] == [
        {"role": "system", "content": "You are Assista."},
        {"role": "system", "content": "Extra system note"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is in this picture?"},
                {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,QUJD"}},
            ],
        },
        {
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": "{}"},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "alpha"},
        {"role": "tool", "tool_call_id": "call_2", "content": "denied"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_3",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_3", "content": ""},
        {"role": "assistant", "content": "Done."},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "Read a file",
                "parameters": {"type": "object", "properties": {}},
            },
        }
    ]
    assert body["temperature"] == 0.2
    assert body["max_tokens"] == 512
    assert body["top_p"] == 0.9
    assert "stream_options" not in body  # removed by extra={"stream_options": None}
    assert "reasoning" not in str(body["messages"]).lower()


def test_tool_results_inside_a_user_message_become_tool_messages() -> None:
    message = Message(
        role="user",
        parts=[
            ToolResultPart(tool_call_id="c1", name="t", content="r"),
            TextPart(text="and now?"),
        ],
    )
    body = build_openai_chat_body(ChatRequest(model="m", messages=[message]))
    assert body["messages"] == [
        {"role": "tool", "tool_call_id": "c1", "content": "r"},
        {"role": "user", "content": "and now?"},
    ]


def test_no_tools_key_without_tools_and_extra_overrides() -> None:
    body = build_openai_chat_body(
        ChatRequest(model="m", messages=[Message.user("x")], extra={"model": "other"})
    )
    assert "tools" not in body and "temperature" not in body and "max_tokens" not in body
    assert body["model"] == "other"


# ---------------------------------------------------------------- parser


def run(chunks: list[Any], *, done: bool = True) -> list[StreamEvent]:
    parser = OpenAIChatStreamParser("Test")
    events: list[StreamEvent] = []
    for chunk in chunks:
        events += parser.feed_chunk(chunk)
    if done:
        events += parser.feed(ServerSentEvent(data="[DONE]"))
    events += parser.finish()
    return events


def delta(d: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return chat_chunk(d, finish)


def of(events: list[StreamEvent], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def test_text_and_end() -> None:
    events = run([delta({"role": "assistant", "content": ""}), delta({"content": "Hi"}),
                  delta({}, "stop")])  # fmt: skip
    assert events == [TextDelta("Hi"), EndEvent("stop")]


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [("stop", "stop"), ("length", "length"), ("tool_calls", "tool_calls"),
     ("function_call", "tool_calls"), ("content_filter", "content_filter"),
     ("end_turn", "end_turn"), (None, "stop"), ("", "stop")],
)  # fmt: skip
def test_finish_reason_mapping(raw: str | None, normalized: str) -> None:
    assert normalize_finish_reason(raw) == normalized
    if raw:
        end = run([delta({"content": "x"}, raw)])[-1]
        assert isinstance(end, EndEvent) and end.finish_reason == normalized


def test_reasoning_then_text_emits_reasoning_complete() -> None:
    events = run(
        [
            delta({"reasoning_content": "think", "content": None}),
            delta({"reasoning": " more"}),  # OpenRouter / LM Studio spelling
            delta({"reasoning_content": None, "content": "Answer"}),
            delta({}, "stop"),
        ]
    )
    assert events == [
        ReasoningDelta("think"),
        ReasoningDelta(" more"),
        ReasoningComplete("think more"),
        TextDelta("Answer"),
        EndEvent("stop"),
    ]


def test_both_reasoning_fields_are_not_duplicated() -> None:
    events = run([delta({"reasoning_content": "a", "reasoning": "a"}), delta({}, "stop")])
    assert of(events, ReasoningDelta) == [ReasoningDelta("a")]
    assert of(events, ReasoningComplete) == [ReasoningComplete("a")]


def test_tool_calls_merged_by_index_even_interleaved() -> None:
    frag = lambda **kw: delta({"tool_calls": [kw]})  # noqa: E731
    events = run(
        [
            frag(index=0, id="call_a", type="function", function={"name": "f", "arguments": ""}),
            frag(index=1, id="call_b", type="function", function={"name": "g", "arguments": "{"}),
            frag(index=0, function={"arguments": '{"x"'}),
            frag(index=1, function={"arguments": "}"}),
            frag(index=0, function={"arguments": ": 1}"}),
            delta({}, "tool_calls"),
        ]
    )
    assert events == [
        ToolCallStarted(0, "call_a", "f"),
        ToolCallStarted(1, "call_b", "g"),
        ToolCallComplete(0, "call_a", "f", '{"x": 1}'),
        ToolCallComplete(1, "call_b", "g", "{}"),
        EndEvent("tool_calls"),
    ]


def test_tool_call_fragments_without_index() -> None:
    frag = lambda **kw: delta({"tool_calls": [kw]})  # noqa: E731
    events = run(
        [
            frag(id="a", function={"name": "f", "arguments": '{"q":'}),
            frag(function={"arguments": "1}"}),  # no id: continues the last call
            frag(id="a", function={"arguments": ""}),  # same id: continues too
            frag(id="b", function={"name": "g", "arguments": "{}"}),  # new id: a new call
            delta({}, "tool_calls"),
        ]
    )
    assert of(events, ToolCallComplete) == [
        ToolCallComplete(0, "a", "f", '{"q":1}'),
        ToolCallComplete(1, "b", "g", "{}"),
    ]


def test_missing_ids_are_generated_and_stable() -> None:
    events = run(
        [
            delta({"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": "{}"}}]}),
            delta({}, "tool_calls"),
        ]
    )
    started, complete = of(events, ToolCallStarted)[0], of(events, ToolCallComplete)[0]
    assert started.id.startswith("call_") and len(started.id) == 37
    assert complete.id == started.id


def test_repeated_name_and_dict_arguments() -> None:
    events = run(
        [
            delta({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f"}}]}),
            delta({"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": {"a": 1}}}]}),
            delta({}, "stop"),  # "stop" after tool calls (some local servers)
        ]
    )
    assert of(events, ToolCallComplete) == [ToolCallComplete(0, "c", "f", '{"a": 1}')]
    end = events[-1]
    assert end == EndEvent("tool_calls", {"raw_finish_reason": "stop"})


def test_legacy_function_call() -> None:
    events = run(
        [
            delta({"role": "assistant", "content": None,
                   "function_call": {"name": "lookup", "arguments": ""}}),
            delta({"function_call": {"arguments": '{"id":'}}),
            delta({"function_call": {"arguments": " 7}"}}),
            delta({}, "function_call"),
        ]
    )  # fmt: skip
    started = of(events, ToolCallStarted)
    assert len(started) == 1 and started[0].name == "lookup"
    assert of(events, ToolCallComplete) == [
        ToolCallComplete(0, started[0].id, "lookup", '{"id": 7}')
    ]
    assert isinstance(events[-1], EndEvent) and events[-1].finish_reason == "tool_calls"


def test_usage_chunk_and_cumulative_usage() -> None:
    usage = {
        "prompt_tokens": 10,
        "completion_tokens": 20,
        "completion_tokens_details": {"reasoning_tokens": 5},
        "prompt_tokens_details": {"cached_tokens": 4},
        "cost": 0.0012,
    }
    events = run(
        [
            delta({"content": "a"}) | {"usage": {"prompt_tokens": 10, "completion_tokens": 1}},
            delta({}, "stop") | {"usage": None},
            chat_chunk(choices=[], usage=usage),
        ]
    )
    assert of(events, UsageEvent) == [
        UsageEvent(Usage(input_tokens=10, output_tokens=20, reasoning_tokens=5, cached_tokens=4,
                         cost=0.0012))
    ]  # fmt: skip
    assert isinstance(events[-2], UsageEvent) and isinstance(events[-1], EndEvent)


def test_usage_variants() -> None:
    assert usage_from_openai({"prompt_tokens": None}) == Usage()
    deepseek = usage_from_openai({"prompt_tokens": 9, "prompt_cache_hit_tokens": 3})
    assert deepseek.cached_tokens == 3
    groq = run([delta({}, "stop") | {"x_groq": {"usage": {"prompt_tokens": 2}}}])
    assert of(groq, UsageEvent)[0].usage.input_tokens == 2


def test_in_stream_error_object_ends_stream() -> None:
    parser = OpenAIChatStreamParser("Test")
    events = parser.feed_chunk(delta({"content": "par"}))
    events += parser.feed_chunk({"error": {"message": "overloaded", "code": 529}})
    events += parser.feed_chunk(delta({"content": "ignored"}))
    events += parser.finish()
    assert events == [
        TextDelta("par"),
        ErrorEvent("Test: overloaded", code="529", provider="Test"),
    ]
    assert parser.closed


def test_event_error_with_json_and_text() -> None:
    parser = OpenAIChatStreamParser("Test")
    events = parser.feed(ServerSentEvent("error", '{"message": "quota", "type": "billing"}'))
    assert events == [ErrorEvent("Test: quota", code="billing", provider="Test")]
    parser = OpenAIChatStreamParser("Test")
    assert parser.feed(ServerSentEvent("error", "plain failure")) == [
        ErrorEvent("Test: plain failure", provider="Test")
    ]


def test_malformed_data_is_an_error() -> None:
    events = OpenAIChatStreamParser("Test").feed(ServerSentEvent(data="{not json"))
    assert len(events) == 1 and isinstance(events[0], ErrorEvent)
    assert events[0].code == "malformed_stream"


def test_stream_cut_without_finish_is_an_error_after_content() -> None:
    call = {"index": 0, "id": "c", "function": {"name": "f", "arguments": '{"a'}}
    events = run([delta({"content": "partial"}), delta({"tool_calls": [call]})], done=False)
    assert events[0] == TextDelta("partial")
    assert events[1] == ToolCallStarted(0, "c", "f")
    assert not of(events, ToolCallComplete)  # truncated arguments are never "complete"
    assert isinstance(events[-1], ErrorEvent)
    assert "ended unexpectedly" in events[-1].message
    assert events[-1].code == "stream_interrupted"


def test_finish_reason_without_done_is_a_normal_end() -> None:
    events = run([delta({"content": "x"}, "length")], done=False)
    assert events[-1] == EndEvent("length")


def test_exactly_one_terminal_event() -> None:
    parser = OpenAIChatStreamParser("Test")
    parser.feed_chunk(delta({"content": "x"}, "stop"))
    first = parser.feed(ServerSentEvent(data="[DONE]"))
    assert first == [EndEvent("stop")]
    assert parser.finish() == [] and parser.error("late") == []


def test_other_choices_and_garbage_are_ignored() -> None:
    events = run(
        [
            chat_chunk(choices=[{"index": 1, "delta": {"content": "second choice"}}]),
            ["not", "a", "dict"],
            chat_chunk(choices=[{"index": 0, "delta": None, "finish_reason": None}]),
            delta({"content": "ok", "refusal": None}, "stop"),
        ]
    )
    assert events == [TextDelta("ok"), EndEvent("stop")]


def test_refusal_is_shown_as_text() -> None:
    events = run([delta({"content": None, "refusal": "I can't help with that."}, "stop")])
    assert events[0] == TextDelta("I can't help with that.")


def test_non_streaming_completion_fallback() -> None:
    completion = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Hello",
                    "reasoning_content": "hmm",
                    "tool_calls": [
                        {"type": "function", "function": {"name": "f", "arguments": "{}"}},
                        {"type": "function", "function": {"name": "g", "arguments": "{}"}},
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2},
    }
    events = OpenAIChatStreamParser("Test").feed_body(completion)
    assert [type(e).__name__ for e in events] == [
        "ReasoningDelta", "ReasoningComplete", "TextDelta", "ToolCallStarted", "ToolCallStarted",
        "ToolCallComplete", "ToolCallComplete", "UsageEvent", "EndEvent",
    ]  # fmt: skip
    assert [e.name for e in of(events, ToolCallComplete)] == ["f", "g"]
