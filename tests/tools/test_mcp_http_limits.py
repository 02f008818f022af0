"""An MCP server over HTTP that answers too much (tests/tools/mcp_oversize_server.py,
spoken by hand): each message is read only up to the limit, over Streamable HTTP (JSON
bodies and SSE events) and legacy SSE. A tool's oversized answer reaches the model as
its beginning with a note; another oversized answer is an error naming the limit; an
answer that never ends is not read to its end; the connection stays usable."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from desktop.core.errors import ToolError
from desktop.tools.mcp import McpManager, McpServerConfig
from desktop.tools.mcp.http_limits import (
    ANSWER_LIMIT,
    EventNeverEnds,
    MessageLimit,
    _CappedEvents,
)
from tests.tools.mcp_servers import HERE, PLAIN_PATH, ServerProcess

OVERSIZE = str(HERE / "mcp_oversize_server.py")
MB = 1024 * 1024
TEXT = "0123456789abcdef0123456789abcdef"


@pytest.fixture(scope="module")
def oversize() -> Iterator[ServerProcess]:
    process = ServerProcess(OVERSIZE)
    yield process
    process.stop()


async def connected(server: ServerProcess, transport: str) -> McpManager:
    config = McpServerConfig(name="big", transport=transport,
                             url=server.url("/mcp" if transport == "http" else "/sse"),
                             startup_timeout_s=30, call_timeout_s=120)
    mcp = McpManager([config], login_path=PLAIN_PATH, backoff_s=0.01)
    assert await mcp.start_all() == {"big": True}, mcp.connections["big"].last_error
    return mcp


async def text(mcp: McpManager, tool: str, mb: float = 20) -> str:
    result = await mcp.connections["big"].call_tool(tool, {"mb": mb}, 120)
    return "\n".join(str(getattr(block, "text", "")) for block in result.content)


def test_the_limit_is_that_of_stdio() -> None:
    assert ANSWER_LIMIT == 16 * MB


async def test_streamable_http_answers_are_read_up_to_the_limit(
        oversize: ServerProcess) -> None:
    mcp = await connected(oversize, "http")
    try:
        body = await text(mcp, "big_json")  # one JSON body of 20 MB, its id at the end
        assert body.startswith("[The MCP server's answer is larger than the 16 MB "
                               "Assista reads; only its beginning follows.]")
        assert TEXT in body and len(body) < ANSWER_LIMIT + 200  # the note and the text
        # A body that never ends: reading stops at the limit, the same stand-in.
        assert (await text(mcp, "endless_json")).startswith(
            "[The MCP server's answer is larger than the 16 MB")
        event = await text(mcp, "big_event")  # one SSE event of 20 MB
        assert event.startswith("[The MCP server's answer was 20 MB, more than the 16 MB")
        assert TEXT in event
        # An oversized notification is left out; the answer after it arrives.
        assert await text(mcp, "noisy") == "after the noise"
        # An event that never ends: reading stops, the answer is cut all the same.
        assert (await text(mcp, "endless_event")).startswith(
            "[The MCP server's answer is larger than the 16 MB")
        # Not a tool's answer: an error naming the limit instead of a cut resource.
        with pytest.raises(ToolError, match=r"answer is larger than the 16 MB Assista reads\.$"):
            await mcp.read_resource("big", "big://one")
        assert await text(mcp, "small") == "ok"
    finally:
        await mcp.stop_all()


async def test_legacy_sse_events_are_cut_below_the_sdks_own_limit(
        oversize: ServerProcess) -> None:
    """The SDK's legacy SSE client fails the whole connection on an event over 1 MiB;
    an oversized event is cut below that, and the connection goes on."""
    mcp = await connected(oversize, "sse")
    try:
        cut = await text(mcp, "big_event", 3)
        assert cut.startswith("[The MCP server's answer was 3 MB, more than the 1 MB")
        assert TEXT in cut
        assert await text(mcp, "noisy", 3) == "after the noise"
        with pytest.raises(ToolError, match=r"was 20 MB, more than the 1 MB Assista reads\.$"):
            await mcp.read_resource("big", "big://one")
        assert await text(mcp, "small") == "ok"
        assert mcp.connections["big"].state == "running"  # never lost
    finally:
        await mcp.stop_all()


async def chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


async def read_events(limit: int, *parts: bytes) -> bytes:
    stream = _CappedEvents(chunks(*parts), MessageLimit(limit, endless=4 * limit))
    return b"".join([piece async for piece in stream])


async def test_events_cut_across_chunks_and_line_endings() -> None:
    small = b"event: message\r\nid: 7\r\ndata: {\"jsonrpc\": \"2.0\", \"method\": \"x\"}\r\n\r\n"
    big = (b'id: 8\ndata: {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text",'
           b' "text": "' + b"a" * 5000 + b'"}]}}\n\n')
    out = await read_events(1000, small[:9], small[9:30], small[30:], big[:700], big[700:])
    first, second, rest = out.split(b"\n\n", 2)
    assert first == small.replace(b"\r\n", b"\n").rstrip(b"\n")
    assert second.startswith(b'id: 8\ndata: {"jsonrpc": "2.0", "id": 3, "error": {')
    assert rest == b""
    # a notification over the limit is left out, the events around it kept
    noise = b'data: {"jsonrpc": "2.0", "method": "n", "params": "' + b"x" * 3000 + b'"}\n\n'
    assert await read_events(1000, small, noise, small) == \
        small.replace(b"\r\n", b"\n") * 2


async def test_an_event_that_never_ends_is_given_up() -> None:
    """Not read past four times the limit: the request it answers gets a stand-in (named
    by the event's start, else the POST's own request); with neither the stream fails."""
    endless = [b"y" * 1000] * 100
    start = b'data: {"jsonrpc": "2.0", "id": 5, "result": {"content": [{"type": "text", "text": "'
    cut = await read_events(1000, start, *endless)
    assert cut.startswith(b'data: {"jsonrpc": "2.0", "id": 5, "error": {')
    assert b"larger than the 0 MB" in cut
    anonymous = b'data: {"result": {"content": [{"type": "text", "text": "'
    stream = _CappedEvents(chunks(anonymous, *endless), MessageLimit(1000, endless=4000),
                           {9: "tools/call"})
    answer = b"".join([piece async for piece in stream])
    assert answer.startswith(b'data: {"jsonrpc": "2.0", "id": 9, "result": {"content": ')
    with pytest.raises(EventNeverEnds):
        await read_events(1000, anonymous, *endless)
