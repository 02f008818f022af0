"""Gemini request bodies and the chunk parser, without HTTP."""

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
from desktop.core.provider import ChatRequest, ToolSpec
from desktop.core.provider_options import GeminiOptions, RequestOptions
from desktop.providers.gemini_format import (
    SERVER_ID,
    SIGNATURE,
    SIGNED_TEXT,
    build_gemini_body,
    contents_from_messages,
    prepare_schema,
)
from desktop.providers.gemini_stream import (
    GeminiStreamParser,
    normalize_finish_reason,
    usage_from_gemini,
)
from desktop.providers.sse import ServerSentEvent
from tests.support.gemini_server import gemini_chunk

SIG = "CiQB0e2Kb4nQ+ZzY/sig=="


def body(**kwargs: Any) -> dict[str, Any]:
    """The body for a request with ``kwargs``, under provider ``options``: their request
    defaults reach the request as the agent loop applies them, the rest the builder."""
    raw = dict(kwargs.pop("options", None) or {})
    defaults = {key: raw.pop(key) for key in list(raw) if key in RequestOptions.model_fields}
    kwargs.setdefault("messages", [Message.user("Hi")])
    request = ChatRequest(model="gemini-test", **kwargs)
    RequestOptions.model_validate(defaults).apply(request)
    return build_gemini_body(request, GeminiOptions.model_validate(raw))


def model_parts(*parts: Any) -> list[dict[str, Any]]:
    contents, _ = contents_from_messages([Message(role="assistant", parts=list(parts))])
    return contents[0]["parts"] if contents else []


# ---------------------------------------------------------------- request body


def test_minimal_body() -> None:
    assert body() == {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}


def test_full_conversation() -> None:
    messages = [
        Message.system("Extra system note"),
        Message(role="user", parts=[TextPart(text="What is this?"),
                                    ImagePart(media_type="image/jpeg", data="QUJD", name="c.jpg")]),
        Message(role="assistant", parts=[
            ReasoningPart(text="I should look", signature="anthropic-sig"),
            TextPart(text="Let me look."),
            ToolCallPart(id="call_1", name="read_file", arguments='{"path": "a.txt"}',
                         provider_data={SIGNATURE: SIG}),
            ToolCallPart(id="srv-2", name="read_file", arguments="",
                         provider_data={SERVER_ID: "srv-2"}),
            SourcesPart(sources=[Source(title="x", url="https://x.test")]),
        ]),
        Message(role="tool", parts=[
            ToolResultPart(tool_call_id="call_1", name="read_file", content="alpha"),
            ToolResultPart(tool_call_id="srv-2", name="read_file", content="no", is_error=True),
        ]),
        Message(role="assistant", parts=[TextPart(text="Done.")]),
        Message(role="user", parts=[]),  # nothing Gemini reads: left out
    ]  # fmt: skip
    assert body(messages=messages, system="Be brief") == {
        "contents": [
            {"role": "user", "parts": [
                {"text": "What is this?"},
                {"inlineData": {"mimeType": "image/jpeg", "data": "QUJD"}},
            ]},
            {"role": "model", "parts": [
                {"text": "Let me look."},
                {"functionCall": {"name": "read_file", "args": {"path": "a.txt"}},
                 SIGNATURE: SIG},
                {"functionCall": {"name": "read_file", "args": {}, "id": "srv-2"}},
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "read_file", "response": {"result": "alpha"}}},
                {"functionResponse": {"name": "read_file", "id": "srv-2",
                                      "response": {"error": "no"}}},
            ]},
            {"role": "model", "parts": [{"text": "Done."}]},
        ],
        "systemInstruction": {"parts": [{"text": "Be brief"}, {"text": "Extra system note"}]},
    }  # fmt: skip


def test_results_in_separate_messages_share_one_content() -> None:
    call = Message(role="assistant", parts=[
        ToolCallPart(id="a", name="f", arguments="{}"), ToolCallPart(id="b", name="g"),
    ])  # fmt: skip
    messages = [
        Message.user("go"),
        call,
        Message(role="tool", parts=[ToolResultPart(tool_call_id="a", name="f", content="1")]),
        Message(role="tool", parts=[ToolResultPart(tool_call_id="b", name="", content="2")]),
        Message.user("and now?"),
    ]
    contents, _ = contents_from_messages(messages)
    assert contents[2:] == [
        {"role": "user", "parts": [
            {"functionResponse": {"name": "f", "response": {"result": "1"}}},
            {"functionResponse": {"name": "g", "response": {"result": "2"}}},  # name of the call
        ]},
        {"role": "user", "parts": [{"text": "and now?"}]},
    ]  # fmt: skip


def test_unparseable_or_non_object_arguments_become_empty_args() -> None:
    parts = model_parts(ToolCallPart(id="1", name="f", arguments="{oops"),
                        ToolCallPart(id="2", name="f", arguments="[1, 2]"))  # fmt: skip
    assert [p["functionCall"]["args"] for p in parts] == [{}, {}]


def test_server_id_only_when_it_is_this_calls_id() -> None:
    part = ToolCallPart(id="call_x", name="f", provider_data={SERVER_ID: "other"})
    assert model_parts(part) == [{"functionCall": {"name": "f", "args": {}}}]


def test_thought_parts_go_back_only_when_signed() -> None:
    parts = model_parts(
        ReasoningPart(text="summary, unsigned"),
        ReasoningPart(text="signed thought", provider_data={SIGNATURE: SIG}),
        ReasoningPart(text="", provider_data={SIGNATURE: "s2"}),
        ReasoningPart(text="redacted", redacted=True, provider_data={"data": "x"}),
    )
    assert parts == [
        {"text": "signed thought", "thought": True, SIGNATURE: SIG},
        {"text": "", "thought": True, SIGNATURE: "s2"},
    ]


def carrier(chars: Any, sig: str = SIG) -> ReasoningPart:
    return ReasoningPart(text="", provider_data={SIGNATURE: sig, SIGNED_TEXT: chars})


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        # an empty signed text part after the text (Gemini 3, streaming)
        ([TextPart(text="Hello"), carrier(0)], [{"text": "Hello"}, {"text": "", SIGNATURE: SIG}]),
        # the whole text part was the signed one
        ([TextPart(text="Hello"), carrier(5)], [{"text": "Hello", SIGNATURE: SIG}]),
        # unsigned text, then the signed piece: split, never merged
        ([TextPart(text="Hello world"), carrier(6)],
         [{"text": "Hello"}, {"text": " world", SIGNATURE: SIG}]),
        # nothing to attach to (or a length that does not fit): an empty signed part
        ([carrier(3)], [{"text": "", SIGNATURE: SIG}]),
        ([TextPart(text="Hi"), carrier(9)], [{"text": "Hi"}, {"text": "", SIGNATURE: SIG}]),
        ([TextPart(text="Hi"), carrier("2")], [{"text": "Hi"}, {"text": "", SIGNATURE: SIG}]),
        # a signed text followed by more text (signature on the first text part, 2.5)
        ([TextPart(text="Bonjour ! "), carrier(10), TextPart(text="Ça va ?")],
         [{"text": "Bonjour ! ", SIGNATURE: SIG}, {"text": "Ça va ?"}]),
        # two signed pieces in a row are not concatenated
        ([TextPart(text="ab"), carrier(1, "s1"), TextPart(text="c"), carrier(1, "s2")],
         [{"text": "a"}, {"text": "b", SIGNATURE: "s1"}, {"text": "c", SIGNATURE: "s2"}]),
    ],
)  # fmt: skip
def test_signed_text_is_its_own_part(parts: list[Any], expected: list[dict[str, Any]]) -> None:
    assert model_parts(*parts) == expected


def test_tools_use_parameters_json_schema() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path"},
            "range": {"$ref": "#/$defs/Range"},
            "mode": {"type": ["string", "null"], "enum": ["r", "w", None]},
        },
        "required": ["path"],
        "additionalProperties": False,
        "$defs": {"Range": {"type": "object", "properties": {"start": {"type": "integer"}},
                            "$comment": "lines"}},
    }  # fmt: skip
    tools = [
        ToolSpec("read_file", "Read a file", schema),
        ToolSpec("now", "", {"type": "object", "properties": {}}),
    ]
    assert body(tools=tools)["tools"] == [{"functionDeclarations": [
        {
            "name": "read_file",
            "description": "Read a file",
            "parametersJsonSchema": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path"},
                    "range": {"type": "object", "properties": {"start": {"type": "integer"}}},
                    "mode": {"type": ["string", "null"], "enum": ["r", "w", None]},
                },
                "required": ["path"],
                "additionalProperties": False,
            },
        },
        {"name": "now"},  # no parameters: the field is left out
    ]}]  # fmt: skip
    assert "$schema" in schema and "$defs" in schema  # the caller's schema is not modified


def test_recursive_refs_keep_their_definitions() -> None:
    node = {
        "type": "object",
        "properties": {"kids": {"type": "array", "items": {"$ref": "#/definitions/Node"}}},
    }
    schema = {"properties": {"tree": {"$ref": "#/definitions/Node"}},
              "definitions": {"Node": node}}  # fmt: skip
    out = prepare_schema(schema)
    assert out["type"] == "object" and "definitions" in out
    assert out["properties"]["tree"]["properties"]["kids"]["items"] == {
        "$ref": "#/definitions/Node"
    }


def test_property_names_that_look_like_keywords_are_kept() -> None:
    schema = {"properties": {"$id": {"type": "string", "$comment": "x"}, "$schema": {}}}
    assert prepare_schema(schema) == {
        "properties": {"$id": {"type": "string"}, "$schema": {}},
        "type": "object",
    }


def test_ref_siblings_are_kept() -> None:
    schema = {"properties": {"a": {"$ref": "#/$defs/A", "description": "the a"}},
              "$defs": {"A": {"type": "string"}}}  # fmt: skip
    assert prepare_schema(schema) == {
        "properties": {"a": {"type": "string", "description": "the a"}},
        "type": "object",
    }


@pytest.mark.parametrize(
    ("kwargs", "options", "expected"),
    [
        ({}, None, None),
        ({"reasoning": True}, None, {"includeThoughts": True}),
        ({"reasoning": True, "reasoning_budget": 4096}, None,
         {"includeThoughts": True, "thinkingBudget": 4096}),
        ({"reasoning_budget": 0}, None, {"includeThoughts": False, "thinkingBudget": 0}),
        ({"reasoning_budget": -1}, None, {"includeThoughts": True, "thinkingBudget": -1}),
        ({"reasoning_effort": "high"}, None, {"includeThoughts": True, "thinkingBudget": 24576}),
        ({}, {"reasoning": True, "reasoning_budget": 1024},
         {"includeThoughts": True, "thinkingBudget": 1024}),
        ({}, {"reasoning": False, "reasoning_budget": 1024}, None),
        ({}, {"reasoning": True, "reasoning_effort": "low"},
         {"includeThoughts": True, "thinkingBudget": 1024}),
        ({"reasoning": True, "reasoning_budget": 512}, {"thinking_level": "high"},
         {"includeThoughts": True, "thinkingLevel": "high"}),
        ({"reasoning": True}, {"include_thoughts": False}, {"includeThoughts": False}),
    ],
)  # fmt: skip
def test_thinking_config(
    kwargs: dict[str, Any], options: dict[str, Any] | None, expected: dict[str, Any] | None
) -> None:
    config = body(options=options, **kwargs).get("generationConfig", {})
    assert config.get("thinkingConfig") == expected


def test_generation_config_extra_and_search() -> None:
    got = body(temperature=0.2, max_tokens=100, options={"google_search": True},
               extra={"generationConfig": {"topP": 0.9}, "safetySettings": [{"x": 1}],
                      "contents": None})  # fmt: skip
    assert got == {
        "generationConfig": {"temperature": 0.2, "maxOutputTokens": 100, "topP": 0.9},
        "tools": [{"googleSearch": {}}],
        "safetySettings": [{"x": 1}],
    }


# ---------------------------------------------------------------- stream parsing


def feed(parser: GeminiStreamParser, *chunks: dict[str, Any]) -> list[Any]:
    events: list[Any] = []
    for chunk in chunks:
        events += parser.feed_chunk(chunk)
    return events + parser.finish()


def test_text_then_stop() -> None:
    parser = GeminiStreamParser("Gem")
    events = feed(parser, gemini_chunk([{"text": "Hel"}]),
                  gemini_chunk([{"text": "lo"}], "STOP", usage=(3, 2)))  # fmt: skip
    assert events == [
        TextDelta("Hel"),
        TextDelta("lo"),
        UsageEvent(Usage(input_tokens=3, output_tokens=2)),
        EndEvent("stop", {"raw_finish_reason": "STOP", "model_version": "gemini-test",
                          "gemini_response_id": "resp-test-0001"}),
    ]  # fmt: skip
    assert parser.closed and parser.feed_chunk(gemini_chunk([{"text": "late"}])) == []


def test_signed_thought_closes_the_unsigned_run() -> None:
    events = feed(GeminiStreamParser(), gemini_chunk([
        {"text": "a", "thought": True}, {"text": "b", "thought": True},
        {"text": "c", "thought": True, SIGNATURE: SIG},
        {"text": "", "thought": True, SIGNATURE: "s2"},
        {"text": "d", "thought": True},
        {"text": "answer"},
    ], "STOP"))  # fmt: skip
    assert events[:-1] == [
        ReasoningDelta("a"), ReasoningDelta("b"), ReasoningComplete("ab"),
        ReasoningDelta("c"), ReasoningComplete("c", provider_data={SIGNATURE: SIG}),
        ReasoningComplete("", provider_data={SIGNATURE: "s2"}),
        ReasoningDelta("d"), ReasoningComplete("d"), TextDelta("answer"),
    ]  # fmt: skip


def test_text_signature_marker() -> None:
    events = feed(GeminiStreamParser(), gemini_chunk([
        {"text": "x", "thought": True}, {"text": "Hi", SIGNATURE: SIG}, {"text": ""},
    ], "STOP"))  # fmt: skip
    assert events[:4] == [
        ReasoningDelta("x"), ReasoningComplete("x"), TextDelta("Hi"),
        ReasoningComplete("", provider_data={SIGNATURE: SIG, SIGNED_TEXT: 2}),
    ]  # fmt: skip


def test_calls_get_ids_and_a_repeated_server_call_counts_once() -> None:
    call = {"name": "f", "args": {"q": "é"}}
    events = feed(GeminiStreamParser(), gemini_chunk([
        {"functionCall": call}, {"functionCall": call},
        {"functionCall": {**call, "id": "s1"}, SIGNATURE: SIG},
        {"functionCall": {**call, "id": "s1"}, SIGNATURE: SIG},
        {"functionCall": {"name": "g"}},
    ], "STOP"))  # fmt: skip
    done = [e for e in events if isinstance(e, ToolCallComplete)]
    assert [(e.index, e.name, e.arguments) for e in done] == [
        (0, "f", '{"q": "é"}'),
        (1, "f", '{"q": "é"}'),
        (2, "f", '{"q": "é"}'),
        (3, "g", "{}"),
    ]
    assert done[0].id != done[1].id and done[0].id.startswith("call_")
    assert done[2].id == "s1" and done[2].provider_data == {SERVER_ID: "s1", SIGNATURE: SIG}
    assert len([e for e in events if isinstance(e, ToolCallStarted)]) == 4
    assert events[-1] == EndEvent("tool_calls", events[-1].provider_data)


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [("STOP", "stop"), ("MAX_TOKENS", "length"), ("FINISH_REASON_UNSPECIFIED", "stop"),
     ("CONTINUATION", "length"), ("SOMETHING_NEW", "something_new"), (None, "stop")],
)  # fmt: skip
def test_normalize_finish_reason(raw: str | None, normalized: str) -> None:
    assert normalize_finish_reason(raw) == normalized


@pytest.mark.parametrize(
    ("reason", "message"),
    [
        ("RECITATION", "Gemini stopped: the answer was blocked for reciting a source (RECITATION)"),
        ("BLOCKLIST", "Gemini stopped: the answer contained a blocked term (BLOCKLIST)"),
        ("PROHIBITED_CONTENT",
         "Gemini stopped: the answer was blocked as prohibited content (PROHIBITED_CONTENT)"),
        ("SPII", "Gemini stopped: the answer was blocked for containing sensitive personal "
                 "information (SPII)"),
        ("OTHER", "Gemini stopped: for an unspecified reason (OTHER)"),
    ],
)  # fmt: skip
def test_failure_finish_reasons(reason: str, message: str) -> None:
    events = feed(GeminiStreamParser("Gem"), gemini_chunk(None, reason))
    assert events == [ErrorEvent(f"Gem: {message}", code=reason, provider="Gem")]


def test_prompt_block_with_message() -> None:
    chunk = {"promptFeedback": {"blockReason": "OTHER", "blockReasonMessage": "Not allowed."}}
    events = feed(GeminiStreamParser("Gem"), chunk)
    assert events == [
        ErrorEvent(
            "Gem: Gemini blocked the prompt: for an unspecified reason (OTHER): Not allowed.",
            code="prompt_blocked",
            provider="Gem",
        )
    ]


def test_only_the_first_candidate_counts_and_odd_shapes_are_ignored() -> None:
    chunk = {
        "candidates": [
            {"index": 1, "content": {"parts": [{"text": "other"}]}},
            {"content": {"parts": ["junk", {"text": "mine"}, {"inlineData": {}}]}},
        ]
    }
    events = feed(GeminiStreamParser(), chunk, {"candidates": "nope"}, [gemini_chunk(None, "STOP")])
    assert [e for e in events if isinstance(e, TextDelta)] == [TextDelta("mine")]
    assert isinstance(events[-1], EndEvent)


def test_grounding_sources_are_new_only_and_include_retrieved_context() -> None:
    grounding = {"groundingChunks": [
        {"web": {"uri": "https://a.test", "title": "a.test"}},
        {"retrievedContext": {"uri": "gs://b/doc.pdf", "title": "doc.pdf"}},
        {"web": {}}, "junk",
    ]}  # fmt: skip
    parser = GeminiStreamParser()
    first = parser.feed_chunk(gemini_chunk([], groundingMetadata=grounding))
    again = parser.feed_chunk(gemini_chunk([], groundingMetadata=grounding))
    assert first == [SourcesEvent([Source(title="a.test", url="https://a.test"),
                                   Source(title="doc.pdf", url="gs://b/doc.pdf")])]  # fmt: skip
    assert again == []


def test_malformed_data_and_stream_errors() -> None:
    parser = GeminiStreamParser("Gem", secrets=["sekrit-value"])
    events = parser.feed(ServerSentEvent(data="{not json"))
    assert isinstance(events[0], ErrorEvent) and events[0].code == "malformed_stream"
    assert GeminiStreamParser("Gem").feed_chunk({"error": {"code": 429}}) == [
        ErrorEvent("Gem: the provider reported an error during streaming", code="429",
                   provider="Gem")]  # fmt: skip
    secret = GeminiStreamParser("Gem", secrets=["sekrit-value"]).feed_chunk(
        {"error": {"message": "bad sekrit-value", "status": "INTERNAL"}}
    )
    assert secret == [ErrorEvent("Gem: bad ***", code="INTERNAL", provider="Gem")]


def test_cut_stream_completes_what_arrived() -> None:
    parser = GeminiStreamParser("Gem")
    events = feed(parser, gemini_chunk([{"text": "think", "thought": True}], usage=(4, 0)))
    assert events[:3] == [ReasoningDelta("think"), ReasoningComplete("think"),
                          UsageEvent(Usage(input_tokens=4))]  # fmt: skip
    assert isinstance(events[-1], ErrorEvent) and events[-1].code == "stream_interrupted"
    assert parser.interrupted("again", None) == []


def test_usage_from_gemini() -> None:
    usage = usage_from_gemini({"promptTokenCount": 100, "candidatesTokenCount": 20,
                               "thoughtsTokenCount": 30, "cachedContentTokenCount": 64,
                               "toolUsePromptTokenCount": 7, "totalTokenCount": 157})  # fmt: skip
    assert usage == Usage(input_tokens=107, output_tokens=50, reasoning_tokens=30,
                          cached_tokens=64)  # fmt: skip
    assert usage.total_tokens == 157
    assert usage_from_gemini({"promptTokenCount": True, "candidatesTokenCount": "3"}) == Usage()


def test_json_array_is_fed_as_chunks() -> None:
    parser = GeminiStreamParser()
    chunks = [gemini_chunk([{"text": "a"}]), gemini_chunk([{"text": "b"}], "STOP")]
    assert [e.text for e in parser.feed_chunk(chunks) if isinstance(e, TextDelta)] == ["a", "b"]
    assert json.loads(json.dumps(chunks)) == chunks
