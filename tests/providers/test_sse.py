"""The SSE decoder against the WHATWG event-stream rules, in every chunking."""

from __future__ import annotations

import random
import re

import httpx
import pytest

from desktop.providers.sse import ServerSentEvent, SSEDecoder, aiter_sse


def decode(data: bytes, size: int | None = None, *, lenient: bool = False) -> list[ServerSentEvent]:
    decoder = SSEDecoder()
    events: list[ServerSentEvent] = []
    step = size or max(1, len(data))
    for i in range(0, len(data), step):
        events += decoder.feed(data[i : i + step])
    events += decoder.flush(dispatch_incomplete=lenient)
    return events


def pairs(events: list[ServerSentEvent]) -> list[tuple[str, str]]:
    return [(e.event, e.data) for e in events]


def in_all_chunkings(data: bytes) -> list[tuple[str, str]]:
    """Decode with many chunk sizes; assert they agree and return the result."""
    expected = pairs(decode(data))
    for size in (1, 2, 3, 5, 7, 64):
        assert pairs(decode(data, size)) == expected, f"chunk size {size}"
    return expected


class TestSpecRules:
    def test_single_event(self) -> None:
        assert in_all_chunkings(b"data: hello\n\n") == [("message", "hello")]

    @pytest.mark.parametrize("eol", [b"\n", b"\r", b"\r\n"])
    def test_line_endings(self, eol: bytes) -> None:
        data = b"event: a" + eol + b"data: 1" + eol + b"data: 2" + eol + eol + b"data: x" + eol * 2
        assert in_all_chunkings(data) == [("a", "1\n2"), ("message", "x")]

    def test_mixed_line_endings(self) -> None:
        data = b"data: a\r\ndata: b\rdata: c\n\r\ndata: d\r\r"
        assert in_all_chunkings(data) == [("message", "a\nb\nc"), ("message", "d")]

    def test_crlf_split_across_chunks_counts_once(self) -> None:
        decoder = SSEDecoder()
        assert decoder.feed(b"data: a\r") == []
        # The LF completes the CRLF pair; it is not a second (blank) line.
        assert decoder.feed(b"\ndata: b\r") == []
        assert pairs(decoder.feed(b"\n\r\n")) == [("message", "a\nb")]

    def test_cr_then_blank_line_in_next_chunk(self) -> None:
        decoder = SSEDecoder()
        assert decoder.feed(b"data: a\r") == []
        assert pairs(decoder.feed(b"\r")) == [("message", "a")]

    def test_comments_are_ignored(self) -> None:
        data = b": keep-alive\n\n:\ndata: x\n: another\n\n"
        assert in_all_chunkings(data) == [("message", "x")]

    def test_multiline_data_joined_with_lf(self) -> None:
        assert in_all_chunkings(b"data: a\ndata:\ndata: c\n\n") == [("message", "a\n\nc")]

    def test_only_one_space_after_colon_is_removed(self) -> None:
        data = b"data:no-space\n\ndata:  two\n\ndata:\t tab\n\n"
        assert in_all_chunkings(data) == [
            ("message", "no-space"),
            ("message", " two"),
            ("message", "\t tab"),
        ]

    def test_value_may_contain_colons(self) -> None:
        assert in_all_chunkings(b'data: {"a": "b:c"}\n\n') == [("message", '{"a": "b:c"}')]

    def test_field_without_colon_has_empty_value(self) -> None:
        # "data" alone appends an empty line: the event has empty data and IS dispatched.
        assert in_all_chunkings(b"data\n\n") == [("message", "")]
        assert in_all_chunkings(b"data\ndata\n\n") == [("message", "\n")]
        # "event" alone resets the type to the default.
        assert in_all_chunkings(b"event\ndata: x\n\n") == [("message", "x")]

    def test_event_without_data_is_not_dispatched(self) -> None:
        data = b"event: ping\n\nid: 5\n\nretry: 10\n\ndata: y\n\n"
        events = decode(data)
        assert pairs(events) == [("message", "y")]  # type reset after the empty dispatch
        assert events[0].id == "5"
        assert events[0].retry == 10

    def test_event_type_applies_to_next_event_only(self) -> None:
        data = b"event: error\ndata: 1\n\ndata: 2\n\n"
        assert in_all_chunkings(data) == [("error", "1"), ("message", "2")]

    def test_unknown_fields_are_ignored(self) -> None:
        assert in_all_chunkings(b"foo: bar\nDATA: no\ndata: ok\n\n") == [("message", "ok")]

    def test_field_names_are_case_sensitive_and_exact(self) -> None:
        assert in_all_chunkings(b"data : x\ndata: y\n\n") == [("message", "y")]

    def test_id_persists_and_nul_is_ignored(self) -> None:
        data = b"id: 1\ndata: a\n\ndata: b\n\nid: 2\x00x\ndata: c\n\nid\ndata: d\n\n"
        events = decode(data)
        assert [e.id for e in events] == ["1", "1", "1", ""]
        decoder = SSEDecoder()
        decoder.feed(b"id: 7\ndata: a\n\n")
        assert decoder.last_event_id == "7"

    def test_retry_only_ascii_digits(self) -> None:
        decoder = SSEDecoder()
        decoder.feed(b"retry: 1500\n")
        assert decoder.retry == 1500
        for bad in (b"retry: 15a\n", b"retry: -1\n", b"retry: \xd9\xa3\n", b"retry:\n"):
            decoder.feed(bad)
            assert decoder.retry == 1500

    def test_leading_bom_is_dropped_once(self) -> None:
        data = b"\xef\xbb\xbfdata: x\n\n"
        assert in_all_chunkings(data) == [("message", "x")]
        # A second BOM is data, and a BOM later in the stream is not stripped.
        assert in_all_chunkings(b"\xef\xbb\xbf\xef\xbb\xbfdata: x\n\n") == []
        assert in_all_chunkings(b"data: \xef\xbb\xbfx\n\n") == [("message", "\ufeffx")]

    def test_multibyte_utf8_split_anywhere(self) -> None:
        text = "héllo → 世界 😀"
        data = f"data: {text}\n\n".encode()
        assert in_all_chunkings(data) == [("message", text)]

    def test_invalid_utf8_becomes_replacement_char(self) -> None:
        assert in_all_chunkings(b"data: a\xffb\n\n") == [("message", "a\ufffdb")]
        # A truncated multi-byte sequence before the line end.
        assert in_all_chunkings(b"data: a\xe4\xb8\n\n") == [("message", "a\ufffd")]

    def test_unterminated_event_is_discarded_at_eof(self) -> None:
        assert pairs(decode(b"data: a\n\ndata: b\n")) == [("message", "a")]
        assert pairs(decode(b"data: a\n\ndata: b")) == [("message", "a")]

    def test_lenient_flush_dispatches_pending_event(self) -> None:
        assert pairs(decode(b"data: a\n\ndata: b\n", lenient=True)) == [
            ("message", "a"),
            ("message", "b"),
        ]
        assert pairs(decode(b"data: [DONE]", 3, lenient=True)) == [("message", "[DONE]")]

    def test_many_events_in_one_chunk_and_one_event_in_many(self) -> None:
        data = b"".join(b"data: %d\n\n" % i for i in range(100))
        assert in_all_chunkings(data) == [("message", str(i)) for i in range(100)]

    def test_long_line_in_tiny_chunks(self) -> None:
        payload = "x" * 20000
        assert pairs(decode(f"data: {payload}\n\n".encode(), 3)) == [("message", payload)]

    def test_empty_feed_is_harmless(self) -> None:
        decoder = SSEDecoder()
        assert decoder.feed(b"") == []
        assert pairs(decoder.feed(b"data: a\n\n")) == [("message", "a")]

    def test_json_helper(self) -> None:
        assert ServerSentEvent(data='{"a": 1}').json() == {"a": 1}


# ------------------------------------------------------------ differential fuzz


def reference_parse(data: bytes) -> list[tuple[str, str, str]]:
    """A direct, slow transcription of the spec algorithm (whole input at once)."""
    text = data.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = re.split(r"\r\n|\r|\n", text)[:-1]  # the last piece has no line terminator
    out: list[tuple[str, str, str]] = []
    data_buf, event_buf, last_id = "", "", ""
    for line in lines:
        if line == "":
            if data_buf == "":
                event_buf = ""
                continue
            if data_buf.endswith("\n"):
                data_buf = data_buf[:-1]
            out.append((event_buf or "message", data_buf, last_id))
            data_buf, event_buf = "", ""
            continue
        if line.startswith(":"):
            continue
        if ":" in line:
            name, value = line.split(":", 1)
            if value.startswith(" "):
                value = value[1:]
        else:
            name, value = line, ""
        if name == "event":
            event_buf = value
        elif name == "data":
            data_buf += value + "\n"
        elif name == "id" and "\0" not in value:
            last_id = value
    return out


TOKENS = [
    "data", "data:", "data: ", "event:", "event: error", "id:", "id: 9", "retry: 5",
    ":", " ", "x", "é", "😀", "{}", "\n", "\n", "\r", "\r\n", "\0", "\ufeff", "foo",
]  # fmt: skip


@pytest.mark.parametrize("seed", range(40))
def test_matches_reference_in_random_chunkings(seed: int) -> None:
    rng = random.Random(seed)
    text = "".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 120)))
    if rng.random() < 0.3:
        text = "\ufeff" + text
    data = text.encode("utf-8")
    expected = reference_parse(data)
    for _ in range(5):
        decoder = SSEDecoder()
        got: list[tuple[str, str, str]] = []
        pos = 0
        while pos < len(data):
            step = rng.randint(1, 9)
            got += [(e.event, e.data, e.id) for e in decoder.feed(data[pos : pos + step])]
            pos += step
        got += [(e.event, e.data, e.id) for e in decoder.flush()]
        assert got == expected, repr(text)


async def test_aiter_sse_over_httpx_stream() -> None:
    body = [b"data: a\r", b"\n\r\ndata: ", b"\xe4\xb8", b"\xad\n\n", b"data: tail\n"]

    async def handler(request: httpx.Request) -> httpx.Response:
        async def stream():  # type: ignore[no-untyped-def]
            for chunk in body:
                yield chunk

        return httpx.Response(200, content=stream())

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        async with client.stream("GET", "http://test/") as response:
            events = [e async for e in aiter_sse(response)]
        async with client.stream("GET", "http://test/") as response:
            lenient = [e async for e in aiter_sse(response, dispatch_incomplete=True)]
    assert pairs(events) == [("message", "a"), ("message", "中")]
    assert pairs(lenient)[-1] == ("message", "tail")
