from __future__ import annotations

import json

import httpx
import pytest

from desktop.providers.ndjson import NDJSONDecoder, NDJSONError, aiter_ndjson

LINES = [
    {"model": "llama3", "message": {"role": "assistant", "content": "Hé"}, "done": False},
    {"model": "llama3", "message": {"role": "assistant", "content": "llo 😀"}, "done": False},
    {"model": "llama3", "done": True, "eval_count": 12},
]


def encoded(eol: bytes = b"\n") -> bytes:
    return b"".join(json.dumps(obj, ensure_ascii=False).encode() + eol for obj in LINES)


def decode(data: bytes, size: int) -> list[object]:
    decoder = NDJSONDecoder()
    out: list[object] = []
    for i in range(0, len(data), size):
        out += decoder.feed(data[i : i + size])
    return out + decoder.flush()


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
def test_any_chunking(size: int, eol: bytes) -> None:
    assert decode(encoded(eol), size) == LINES


def test_blank_lines_skipped_and_final_line_without_newline() -> None:
    data = b'\n{"a":1}\n\n  \n{"b":2}'
    assert decode(data, 4) == [{"a": 1}, {"b": 2}]


def test_invalid_line_raises_with_snippet() -> None:
    decoder = NDJSONDecoder()
    with pytest.raises(NDJSONError) as info:
        decoder.feed(b"<html>oops</html>\n")
    assert info.value.line == "<html>oops</html>"


async def test_aiter_ndjson() -> None:
    chunks = [encoded()[i : i + 5] for i in range(0, len(encoded()), 5)]

    async def handler(request: httpx.Request) -> httpx.Response:
        async def stream():  # type: ignore[no-untyped-def]
            for chunk in chunks:
                yield chunk

        return httpx.Response(200, content=stream())

    transport = httpx.MockTransport(handler)
    async with (
        httpx.AsyncClient(transport=transport) as client,
        client.stream("POST", "http://test/api/chat") as response,
    ):
        assert [v async for v in aiter_ndjson(response)] == LINES
