"""An MCP server over HTTP, spoken by hand on plain sockets, that answers too much:
Streamable HTTP on ``/mcp`` and legacy SSE on ``/sse`` (+ ``/messages``), on a free
127.0.0.1 port printed on stdout.

Its tools (``tools/call``) answer with ``MB`` megabytes (argument ``mb``, default 20):

- ``big_json``: one JSON body, the result before the id (as the TypeScript SDK writes);
- ``big_event``: one SSE event (on the POST's stream, or the legacy SSE stream);
- ``noisy``: an oversized notification first, then a small answer;
- ``endless_json`` / ``endless_event``: a body or an event that never ends (it stops
  after 400 MB, or when the client goes away);
- ``small``: ``"ok"``.

``resources/read`` answers ``MB`` megabytes too (not a tool: its stand-in is an error).
Every other request is answered as MCP says for a server with tools and resources.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from typing import Any
from urllib.parse import parse_qs, urlsplit

MB = 1024 * 1024
BOUND = 400 * MB  # an "endless" answer stops here, whatever happens
CHUNK = b"0123456789abcdef" * 4096  # 64 KiB of text
TOOLS = ["big_json", "big_event", "noisy", "endless_json", "endless_event", "small"]
SESSIONS: dict[str, asyncio.Queue[bytes | None]] = {}  # legacy SSE: id -> events to send


def text_of(mb: float) -> bytes:
    return CHUNK * max(1, int(mb * MB) // len(CHUNK))


def answer(ident: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": params.get("protocolVersion"),
            "capabilities": {"tools": {}, "resources": {}},
            "serverInfo": {"name": "oversize", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": n, "description": n, "inputSchema": {
            "type": "object", "properties": {"mb": {"type": "number"}}}} for n in TOOLS]}
    elif method == "resources/list":
        result = {"resources": [{"uri": "big://one", "name": "one"}]}
    elif method == "ping":
        result = {}
    elif method == "tools/call" and params.get("name") == "small":
        result = {"content": [{"type": "text", "text": "ok"}]}
    else:
        return {"jsonrpc": "2.0", "id": ident,
                "error": {"code": -32601, "message": "Method not found"}}
    return {"jsonrpc": "2.0", "id": ident, "result": result}


def big_message(ident: Any, method: str, mb: float) -> bytes:
    """A message with ``mb`` MB of text, its id last."""
    if method == "tools/call":
        start = b'{"result": {"content": [{"type": "text", "text": "'
        end = b'"}]}, "jsonrpc": "2.0", "id": ' + json.dumps(ident).encode() + b"}"
    else:
        start = b'{"result": {"contents": [{"uri": "big://one", "text": "'
        end = b'"}]}, "jsonrpc": "2.0", "id": ' + json.dumps(ident).encode() + b"}"
    return start + text_of(mb) + end


async def send_endless(writer: asyncio.StreamWriter, start: bytes) -> None:
    writer.write(start)
    sent = 0
    try:
        while sent < BOUND:
            writer.write(CHUNK)
            await writer.drain()
            sent += len(CHUNK)
    except (ConnectionError, OSError):
        pass  # the client stopped reading: that is the point


def head(status: str, kind: str, length: int | None = None) -> bytes:
    lines = [f"HTTP/1.1 {status}", f"Content-Type: {kind}", "Connection: close"]
    if length is not None:
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def event(data: bytes) -> bytes:
    return b"event: message\ndata: " + data + b"\n\n"


async def streamable(writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
    ident, method = message.get("id"), str(message.get("method"))
    params = message.get("params") or {}
    if ident is None:  # a notification
        writer.write(head("202 Accepted", "application/json", 0))
        return
    tool = params.get("name") if method == "tools/call" else None
    mb = float((params.get("arguments") or {}).get("mb", 20))
    if tool == "big_json" or method == "resources/read":
        body = big_message(ident, method, mb)
        writer.write(head("200 OK", "application/json", len(body)) + body)
    elif tool == "endless_json":
        await send_endless(writer, head("200 OK", "application/json") + b'{"jsonrpc": "2.0", '
                           b'"id": ' + json.dumps(ident).encode() + b', "result": {"content": '
                           b'[{"type": "text", "text": "')
    elif tool in ("big_event", "noisy", "endless_event"):
        writer.write(head("200 OK", "text/event-stream"))
        if tool == "big_event":
            writer.write(event(big_message(ident, method, mb)))
        elif tool == "noisy":
            writer.write(event(b'{"jsonrpc": "2.0", "method": "notifications/message", '
                               b'"params": {"level": "info", "data": "' + text_of(mb) + b'"}}'))
            writer.write(event(json.dumps({"jsonrpc": "2.0", "id": ident, "result": {
                "content": [{"type": "text", "text": "after the noise"}]}}).encode()))
        else:
            await send_endless(writer, b"event: message\ndata: " + big_message(ident, method, 1))
    else:
        body = json.dumps(answer(ident, method, params)).encode()
        writer.write(head("200 OK", "application/json", len(body)) + body)


async def legacy_post(message: dict[str, Any], queue: asyncio.Queue[bytes | None]) -> None:
    ident, method = message.get("id"), str(message.get("method"))
    params = message.get("params") or {}
    if ident is None:
        return
    tool = params.get("name") if method == "tools/call" else None
    mb = float((params.get("arguments") or {}).get("mb", 20))
    if tool in ("big_event", "big_json") or method == "resources/read":
        await queue.put(event(big_message(ident, method, mb)))
    elif tool == "noisy":
        await queue.put(event(b'{"jsonrpc": "2.0", "method": "notifications/message", '
                              b'"params": {"level": "info", "data": "' + text_of(mb) + b'"}}'))
        await queue.put(event(json.dumps({"jsonrpc": "2.0", "id": ident, "result": {
            "content": [{"type": "text", "text": "after the noise"}]}}).encode()))
    else:
        await queue.put(event(json.dumps(answer(ident, method, params)).encode()))


async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        request = await reader.readuntil(b"\r\n\r\n")
        line, *header_lines = request.decode("latin-1").split("\r\n")
        verb, target, _ = line.split(" ", 2)
        headers = {k.strip().lower(): v.strip() for k, v in
                   (h.split(":", 1) for h in header_lines if ":" in h)}
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        url = urlsplit(target)
        if verb == "POST" and url.path == "/mcp":
            await streamable(writer, json.loads(body))
        elif verb == "GET" and url.path == "/sse":
            session = str(len(SESSIONS) + 1)
            queue: asyncio.Queue[bytes | None] = asyncio.Queue()
            SESSIONS[session] = queue
            writer.write(head("200 OK", "text/event-stream")
                         + f"event: endpoint\ndata: /messages?session_id={session}\n\n".encode())
            while (item := await queue.get()) is not None:
                writer.write(item)
                await writer.drain()
        elif verb == "POST" and url.path == "/messages":
            session = parse_qs(url.query).get("session_id", [""])[0]
            writer.write(head("202 Accepted", "text/plain", 8) + b"Accepted")
            await writer.drain()
            await legacy_post(json.loads(body), SESSIONS[session])
        else:
            writer.write(head("405 Method Not Allowed", "text/plain", 0))
        await writer.drain()
    except (ConnectionError, OSError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


async def main() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = await asyncio.start_server(handle, sock=sock)
    print(sock.getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
