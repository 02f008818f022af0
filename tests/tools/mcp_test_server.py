"""A small MCP server for the tests, written with the official SDK (MCPServer).

Run ``python mcp_test_server.py stdio`` for stdio, or ``python mcp_test_server.py
http|sse`` to serve on 127.0.0.1 (port ``$MCP_TEST_PORT`` or any free one; the
port is printed on stdout once the socket listens). Writes ``ready`` to stderr
when it starts.
"""

from __future__ import annotations

# (run as a program while a test keeps a warm copy of it, the copy serves: mcp_warm.py)
import mcp_warm  # noqa: F401  # isort: skip
import os
import socket
import sys

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp.types import (
    EmbeddedResource,
    ImageContent,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)

# 1x1 transparent PNG
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)

server = MCPServer("assista-test", version="1.0")


@server.tool(description="Echo the text back.")
def echo(text: str) -> str:
    return f"echo: {text}"


@server.tool(description="Add two integers.", annotations=ToolAnnotations(read_only_hint=True))
def add(a: int, b: int) -> int:
    return a + b


@server.tool(
    description="The server's process id.", annotations=ToolAnnotations(read_only_hint=True)
)
def pid() -> int:
    return os.getpid()


@server.tool(description="Return a tiny PNG image and a caption.")
def picture() -> list[TextContent | ImageContent]:
    return [
        TextContent(type="text", text="a pixel"),
        Image(data=PNG, format="png").to_image_content(),
    ]


@server.tool(description="Return an embedded text resource.")
def document() -> EmbeddedResource:
    return EmbeddedResource(
        type="resource",
        resource=TextResourceContents(uri="file:///notes.txt", mime_type="text/plain", text="hi"),
    )


@server.tool(description="Always fails.")
def broken() -> str:
    raise ToolError("this tool is broken on purpose")


@server.tool(description="Print a marker to stderr, then never return.")
async def hang(marker: str) -> str:
    print(marker, file=sys.stderr, flush=True)
    await anyio.sleep_forever()
    return "unreachable"


@server.tool(description="Exit the process at once, in the middle of the call.")
def crash() -> str:
    print("crashing now", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool(name="weird name.with:chars", description="A tool whose name needs sanitizing.")
def weird() -> str:
    return "ok"


if os.environ.get("MCP_TEST_BIDI_TOOL"):  # a name that reads "readexe.pdf" when drawn
    @server.tool(name="read\u202efdp.exe", description="A name with a right-to-left override.")
    def backwards() -> str:
        return "ok"


def _serve_http(kind: str) -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", int(os.environ.get("MCP_TEST_PORT", "0"))))
    sock.listen(64)
    app = server.streamable_http_app() if kind == "http" else server.sse_app()
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    print(sock.getsockname()[1], flush=True)  # the port, once the socket listens
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    print("ready", file=sys.stderr, flush=True)
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        server.run("stdio")
    else:
        _serve_http(mode)
