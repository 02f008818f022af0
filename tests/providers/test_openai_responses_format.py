"""Responses request bodies and the event parser, without HTTP."""

from __future__ import annotations

import json
from typing import Any

import pytest

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
from desktop.core.messages import (
    ImagePart,
    Message,
    ReasoningPart,
    Source,
    SourcesPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)
from desktop.core.provider import ChatRequest
from desktop.providers.openai_responses_format import (
    build_openai_responses_body,
    encrypted_reasoning_unsupported,
    message_to_items,
    previous_response_missing,
    split_at_previous_response,
)
from desktop.providers.openai_responses_stream import (
    OpenAIResponsesStreamParser,
    usage_from_responses,
)
from desktop.providers.sse import ServerSentEvent

# ---------------------------------------------------------------- request body

USER = Message(
    role="user",
    parts=[TextPart(text="What is this?"), ImagePart(media_type="image/jpeg", data="QUJD")],
)
ASSISTANT = Message(
    role="assistant",
    parts=[
        ReasoningPart(text="Look closer", provider_data={"id": "rs_1", "encrypted_content": "E1"}),
        TextPart(text="Let me "),
        TextPart(text="check."),
        ToolCallPart(
            id="call_1",
            name="read_file",
            arguments='{"path": "a"}',
            provider_data={"item_id": "fc_1"},
        ),
        ToolCallPart(id="call_2", name="list_directory", arguments=""),
        SourcesPart(sources=[Source(title="t", url="https://x")]),
    ],
    provider_data={"response_id": "resp_1"},
)
TOOLS = Message(
    role="tool",
    parts=[
        ToolResultPart(tool_call_id="call_1", name="read_file", content="alpha"),
        ToolResultPart(tool_call_id="call_2", name="list_directory", content="err", is_error=True),
    ],
)
OUTPUTS = [
    {"type": "function_call_output", "call_id": "call_1", "output": "alpha"},
    {"type": "function_call_output", "call_id": "call_2", "output": "err"},
]


def test_user_message_with_image() -> None:
    assert message_to_items(USER) == [
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "What is this?"},
                {
                    "type": "input_image",
                    "image_url": "data:image/jpeg;base64,QUJD",
                    "detail": "auto",
                },
            ],
        }
    ]


def test_assistant_items_keep_their_order_and_carry_no_server_ids() -> None:
    assert message_to_items(ASSISTANT) == [
        {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "Look closer"}],
            "encrypted_content": "E1",
        },
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Let me check."}],
        },
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "read_file",
            "arguments": '{"path": "a"}',
        },
        {"type": "function_call", "call_id": "call_2", "name": "list_directory", "arguments": "{}"},
    ]


def test_reasoning_without_encrypted_content_is_not_sent() -> None:
    other = Message(
        role="assistant",
        parts=[ReasoningPart(text="thinking", signature="sig"), TextPart(text="Hi")],
    )
    assert [item["type"] for item in message_to_items(other)] == ["message"]
    empty = Message(role="assistant", parts=[ReasoningPart(text="", provider_data={"id": "rs"})])
    assert message_to_items(empty) == []


def test_tool_results_and_system_messages() -> None:
    assert message_to_items(TOOLS) == OUTPUTS
    assert message_to_items(Message.system("Note")) == [
        {"type": "message", "role": "system", "content": [{"type": "input_text", "text": "Note"}]}
    ]
    assert message_to_items(Message(role="user", parts=[]))[0]["content"] == [
        {"type": "input_text", "text": ""}
    ]


def test_split_at_previous_response() -> None:
    after = [TOOLS, Message.user("next")]
    assert split_at_previous_response([USER, ASSISTANT, *after]) == ("resp_1", after)
    unstored = ASSISTANT.model_copy(update={"provider_data": {"response_id": "r", "stored": False}})
    assert split_at_previous_response([USER, unstored, TOOLS]) == (None, [USER, unstored, TOOLS])
    # Only the last assistant message counts (here: one without a response id).
    later = Message(role="assistant", parts=[TextPart(text="other provider")])
    messages = [USER, ASSISTANT, Message.user("x"), later, Message.user("y")]
    assert split_at_previous_response(messages) == (None, messages)
    assert split_at_previous_response([USER]) == (None, [USER])


def test_chain_body_sends_only_new_items() -> None:
    request = ChatRequest(model="m", messages=[USER, ASSISTANT, TOOLS], system="Sys")
    assert build_openai_responses_body(request) == {
        "model": "m",
        "instructions": "Sys",
        "previous_response_id": "resp_1",
        "input": OUTPUTS,
        "stream": True,
    }


def test_replay_body_sends_everything_statelessly() -> None:
    request = ChatRequest(model="m", messages=[USER, ASSISTANT, TOOLS])
    body = build_openai_responses_body(request, chain=False, store=False, include_encrypted=True)
    assert body["store"] is False and body["include"] == ["reasoning.encrypted_content"]
    assert "previous_response_id" not in body
    assert body["input"] == message_to_items(USER) + message_to_items(ASSISTANT) + OUTPUTS
    assert all("id" not in item for item in body["input"])


@pytest.mark.parametrize(
    ("reasoning", "effort", "expected"),
    [
        (False, None, None),
        (True, None, {"summary": "auto"}),
        (False, "low", {"effort": "low", "summary": "auto"}),
    ],
)
def test_reasoning_options(reasoning: bool, effort: str | None, expected: Any) -> None:
    request = ChatRequest(model="m", messages=[USER], reasoning=reasoning, reasoning_effort=effort)
    assert build_openai_responses_body(request).get("reasoning") == expected


def test_extra_overrides_and_removes() -> None:
    request = ChatRequest(
        model="m",
        messages=[USER],
        max_tokens=5,
        extra={"stream": None, "truncation": "auto", "max_output_tokens": 9},
    )
    body = build_openai_responses_body(request)
    assert "stream" not in body
    assert (body["truncation"], body["max_output_tokens"]) == ("auto", 9)


@pytest.mark.parametrize(
    ("status", "error", "missing", "encrypted"),
    [
        (
            400,
            {
                "message": "Previous response with id 'r' not found.",
                "code": "previous_response_not_found",
                "param": "previous_response_id",
            },
            True,
            False,
        ),
        (404, {"message": "Previous response with id 'resp_1' not found."}, True, False),
        (
            400,
            {
                "message": "Encrypted content is not supported with this model.",
                "param": "include",
                "code": None,
            },
            False,
            True,
        ),
        (400, {"message": "Model not found", "code": "model_not_found"}, False, False),
        (500, {"message": "Previous response with id 'r' not found."}, False, False),
    ],
)
def test_error_classifiers(
    status: int, error: dict[str, Any], missing: bool, encrypted: bool
) -> None:
    body = json.dumps({"error": error}).encode()
    assert previous_response_missing(status, body) is missing
    assert encrypted_reasoning_unsupported(status, body) is encrypted
    assert not previous_response_missing(400, b"<html>Bad Request</html>")


# ---------------------------------------------------------------- parser


def feed(*events: dict[str, Any], stored: bool = True) -> list[StreamEvent]:
    parser = OpenAIResponsesStreamParser("P", stored=stored)
    out: list[StreamEvent] = []
    for event in events:
        out += parser.feed_event(event)
    return out + parser.finish()


CREATED = {"type": "response.created", "response": {"id": "resp_9", "status": "in_progress"}}
COMPLETED = {"type": "response.completed", "response": {"id": "resp_9", "status": "completed"}}


def test_usage_from_responses() -> None:
    usage = {
        "input_tokens": 10,
        "output_tokens": 7,
        "input_tokens_details": {"cached_tokens": 4},
        "output_tokens_details": {"reasoning_tokens": 3},
        "total_tokens": 17,
    }
    assert usage_from_responses(usage) == Usage(
        input_tokens=10, output_tokens=7, reasoning_tokens=3, cached_tokens=4
    )
    assert usage_from_responses({"input_tokens": None}) == Usage()


def test_unstored_response_is_marked() -> None:
    assert feed(CREATED, COMPLETED, stored=False)[-1] == EndEvent(
        "stop", {"response_id": "resp_9", "stored": False}
    )


def test_text_done_without_deltas_and_refusal() -> None:
    events = feed(
        CREATED,
        {"type": "response.output_text.done", "output_index": 0, "content_index": 0, "text": "A"},
        {"type": "response.refusal.delta", "output_index": 1, "content_index": 0, "delta": "No"},
        {"type": "response.refusal.done", "output_index": 1, "content_index": 0, "refusal": "No"},
        COMPLETED,
    )
    assert events[:2] == [TextDelta("A"), TextDelta("No")]


def test_items_only_in_completed_response() -> None:
    output = [
        {
            "type": "message",
            "content": [
                {
                    "type": "output_text",
                    "text": "Hi",
                    "annotations": [
                        {"type": "url_citation", "url": "https://a", "title": "A"},
                        {"type": "file_citation", "file_id": "f"},
                    ],
                }
            ],
        },
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}"},
    ]
    completed = {"type": "response.completed", "response": {"id": "r", "output": output}}
    assert feed(CREATED, completed) == [
        TextDelta("Hi"),
        SourcesEvent([Source(title="A", url="https://a")]),
        ToolCallStarted(0, "c1", "f"),
        ToolCallComplete(0, "c1", "f", "{}", {"item_id": "fc_1"}),
        EndEvent("tool_calls", {"response_id": "r"}),
    ]


def test_call_without_done_item_is_completed_from_deltas() -> None:
    added = {
        "type": "response.output_item.added",
        "output_index": 0,
        "item": {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f"},
    }
    delta = {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": '{"a"'}
    rest = {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": ":1}"}
    events = feed(CREATED, added, delta, rest, COMPLETED)
    assert events[1] == ToolCallComplete(0, "c1", "f", '{"a":1}', {"item_id": "fc_1"})


def test_truncated_call_is_dropped_when_incomplete() -> None:
    added = {
        "type": "response.output_item.added",
        "output_index": 0,
        "item": {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f"},
    }
    partial = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "c1",
        "name": "f",
        "arguments": '{"a',
        "status": "incomplete",
    }
    incomplete = {
        "type": "response.incomplete",
        "response": {
            "id": "r",
            "output": [partial],
            "incomplete_details": {"reason": "max_output_tokens"},
        },
    }
    events = feed(CREATED, added, incomplete)
    assert not [e for e in events if isinstance(e, ToolCallComplete)]
    assert events[-1] == EndEvent("length", {"response_id": "r"})


def test_content_filter_and_unknown_incomplete_reasons() -> None:
    for reason, finish in [("content_filter", "content_filter"), ("max_messages", "max_messages")]:
        incomplete = {
            "type": "response.incomplete",
            "response": {"id": "r", "incomplete_details": {"reason": reason}},
        }
        assert feed(incomplete)[-1] == EndEvent(finish, {"response_id": "r"})


def test_reasoning_summary_parts_are_paragraphs() -> None:
    def delta(index: int, text: str) -> dict[str, Any]:
        return {
            "type": "response.reasoning_summary_text.delta",
            "output_index": 0,
            "summary_index": index,
            "delta": text,
        }

    done = {
        "type": "response.output_item.done",
        "output_index": 0,
        "item": {
            "type": "reasoning",
            "id": "rs_1",
            "encrypted_content": "ENC",
            "summary": [
                {"type": "summary_text", "text": "One"},
                {"type": "summary_text", "text": "Two"},
            ],
        },
    }
    events = feed(CREATED, delta(0, "On"), delta(0, "e"), delta(1, "Two"), done, COMPLETED)
    assert events[:4] == [
        ReasoningDelta("On"),
        ReasoningDelta("e"),
        ReasoningDelta("\n\nTwo"),
        ReasoningComplete("One\n\nTwo", provider_data={"id": "rs_1", "encrypted_content": "ENC"}),
    ]


def test_raw_reasoning_text_from_compatible_servers() -> None:
    delta = {"type": "response.reasoning_text.delta", "output_index": 0, "delta": "hmm"}
    done = {
        "type": "response.output_item.done",
        "output_index": 0,
        "item": {
            "type": "reasoning",
            "id": "rs",
            "summary": [],
            "content": [{"type": "reasoning_text", "text": "hmm"}],
        },
    }
    assert feed(CREATED, delta, done, COMPLETED)[:2] == [
        ReasoningDelta("hmm"),
        ReasoningComplete("hmm", provider_data={"id": "rs"}),
    ]


@pytest.mark.parametrize(
    ("event", "message", "code"),
    [
        ({"type": "error", "code": None, "message": "Boom", "param": None}, "P: Boom", None),
        (
            {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "code": "context_length_exceeded",
                    "message": "Too long",
                },
            },
            "P: Too long",
            "context_length_exceeded",
        ),
        ({"error": {"message": "proxy says no", "code": 502}}, "P: proxy says no", "502"),
        (
            {"type": "response.failed", "response": {"id": "r", "error": None}},
            "P: the response failed",
            None,
        ),
    ],
)
def test_error_shapes(event: dict[str, Any], message: str, code: str | None) -> None:
    assert feed(CREATED, event) == [ErrorEvent(message, code=code, provider="P")]


def test_sse_level_cases() -> None:
    parser = OpenAIResponsesStreamParser("P")
    assert parser.feed(ServerSentEvent("error", "plain failure")) == [
        ErrorEvent("P: plain failure", provider="P")
    ]
    parser = OpenAIResponsesStreamParser("P")
    bad = parser.feed(ServerSentEvent("message", "{not json"))
    assert isinstance(bad[0], ErrorEvent) and bad[0].code == "malformed_stream"
    parser = OpenAIResponsesStreamParser("P")
    parser.feed_event(CREATED)
    parser.feed_event(COMPLETED)
    assert parser.closed and parser.feed(ServerSentEvent("message", "[DONE]")) == []
    usage = {"type": "response.in_progress", "response": {"id": "r"}}
    parser = OpenAIResponsesStreamParser("P")
    parser.feed_event(usage)
    assert parser.feed(ServerSentEvent("message", "[DONE]"))[0].code == "stream_interrupted"  # type: ignore[union-attr]


def test_feed_response_failed_and_error_objects() -> None:
    failed = {
        "id": "r",
        "status": "failed",
        "error": {"code": "server_error", "message": "x"},
        "usage": {"input_tokens": 1, "output_tokens": 0},
    }
    assert OpenAIResponsesStreamParser("P").feed_body(failed) == [
        UsageEvent(Usage(input_tokens=1)),
        ErrorEvent("P: x", code="server_error", provider="P"),
    ]
    assert OpenAIResponsesStreamParser("P").feed_body({"error": {"message": "no"}}) == [
        ErrorEvent("P: no", provider="P")
    ]
    assert OpenAIResponsesStreamParser("P").feed_body([1])[0].code == "malformed_stream"  # type: ignore[union-attr]


def test_secrets_are_redacted_and_nothing_after_close() -> None:
    parser = OpenAIResponsesStreamParser("P", secrets=["tok-Zq8LmV3pXr7"])
    events = parser.feed_event({"type": "error", "message": "bad tok-Zq8LmV3pXr7"})
    assert events == [ErrorEvent("P: bad ***", provider="P")]
    assert parser.feed_event({"type": "response.output_text.delta", "delta": "x"}) == []
    assert parser.finish() == [] and parser.error("again") == []


def test_unknown_events_are_ignored() -> None:
    events = feed(
        CREATED,
        {"type": "response.web_search_call.searching", "output_index": 0},
        {"type": "response.something_new", "foo": 1},
        "not a dict",  # type: ignore[arg-type]
        COMPLETED,
    )
    assert events == [EndEvent("stop", {"response_id": "resp_9"})]


def test_repeated_done_item_is_completed_once() -> None:
    item = {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}"}
    done = {"type": "response.output_item.done", "output_index": 0, "item": item}
    completed = {"type": "response.completed", "response": {"id": "r", "output": [item]}}
    events = feed(CREATED, done, done, completed)
    assert [type(e).__name__ for e in events] == [
        "ToolCallStarted",
        "ToolCallComplete",
        "EndEvent",
    ]
