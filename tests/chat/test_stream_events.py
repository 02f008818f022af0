"""A recorded response body read back as the events its server sent, whatever the
pieces it arrived in: SSE (LF or CRLF, named events, comments, several data lines, a
last event cut short) and NDJSON lines; each event keeps when its last byte came."""

from __future__ import annotations

import json

from desktop.chat.stream_events import is_ndjson, is_single_json, parse_stream


def _pieces(body: bytes, size: int) -> list[tuple[float, bytes]]:
    return [(i / 1000, body[i:i + size]) for i in range(0, len(body), size)]


def test_sse_pieces_of_any_size_become_one_row_per_event() -> None:
    body = ("event: message_start\r\ndata: {\"type\":\"message_start\",\"n\":\"é\"}\r\n\r\n"
            ": keep-alive\n\n"
            "data: first line\ndata: second line\nid: 7\n\n"
            "data: [DONE]").encode()  # the last event was cut before its blank line
    for size in (1, 3, 7, len(body)):
        events = parse_stream(_pieces(body, size), "text/event-stream; charset=utf-8")
        assert [e.name for e in events] == ["message_start", ":", "message", "message"]
        assert json.loads(events[0].data) == {"type": "message_start", "n": "é"}
        assert events[0].pretty_data() == '{\n  "type": "message_start",\n  "n": "é"\n}'
        assert events[0].summary() == '{"type":"message_start","n":"é"}'
        assert events[2].data == "first line\nsecond line"
        assert events[2].summary() == "first line ⏎ second line"
        assert events[3].data == "[DONE]" and events[3].pretty_data() == "[DONE]"
        times = [e.at_s for e in events]
        assert times == sorted(times)
    # the first event ends in the piece that holds its last byte
    end = body.index(b"}\r\n") + 1
    events = parse_stream(_pieces(body, 3))
    assert events[0].at_s == (end - 1) // 3 * 3 / 1000


def test_ndjson_lines_are_the_events_of_an_ollama_stream() -> None:
    lines = [{"message": {"content": "Hel"}, "done": False},
             {"message": {"content": "lo"}, "done": False}, {"done": True}]
    body = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    events = parse_stream(_pieces(body, 5), "application/x-ndjson")
    assert [json.loads(e.data) for e in events] == lines
    assert {e.name for e in events} == {""}
    assert is_ndjson("", body.decode())  # told by its content when no type is given
    assert not is_ndjson("", "data: {}\n\n") and not is_ndjson("text/event-stream", "{}")
    assert parse_stream([]) == []


def test_a_body_that_is_one_json_document_is_one_event() -> None:
    body = json.dumps({"error": {"message": "bad key", "code": 401}}, indent=2).encode()
    [event] = parse_stream(_pieces(body, 4), "application/json")
    assert json.loads(event.data) == {"error": {"message": "bad key", "code": 401}}
    assert event.at_s == (len(body) - 1) // 4 * 4 / 1000  # when its last piece came
    assert len(parse_stream(_pieces(body, 4))) == 1  # no content type: it parses whole
    assert is_single_json("", '{"a": 1}') and not is_single_json("", '{"a": 1}\n{"b": 2}\n')
    assert not is_single_json("application/x-ndjson", "{}")
