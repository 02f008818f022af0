"""An MCP server for the tests of everything beyond plain tools, written with the
official SDK (MCPServer): a tool list that changes while connected, prompts,
resources (static, binary, a template, one that changes), progress, a call that
notices cancellation, elicitation and sampling.

Run ``python mcp_feature_server.py stdio``, or ``... http`` to serve Streamable
HTTP on 127.0.0.1 (any free port, printed on stdout once the socket listens).
A cancelled call has no result to look at, so ``wait_forever`` writes
``cancelled <marker>`` to stderr (the client keeps the server's stderr).
"""

from __future__ import annotations

# (run as a program while a test keeps a warm copy of it, the copy serves: mcp_warm.py)
import mcp_warm  # noqa: F401  # isort: skip
import socket
import sys
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    Elicit,
    ElicitationResult,
    MCPServer,
    Resolve,
    Sample,
)
from mcp.types import (
    CreateMessageResult,
    EmptyResult,
    SamplingMessage,
    SubscribeRequestParams,
    TextContent,
)
from pydantic import BaseModel, Field

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)

server = MCPServer("features", version="1.0")
_counter = {"value": 0}


def extra() -> str:
    return "I was added while connected"


@server.tool(description="Add a tool named 'extra' and tell the client the list changed.")
async def grow(ctx: Context) -> str:
    server.add_tool(extra, name="extra", description="Added at run time.")
    await _announce_tools(ctx)
    return "grown"


@server.tool(description="Remove the tool named 'extra'.")
async def shrink(ctx: Context) -> str:
    server.remove_tool("extra")
    await _announce_tools(ctx)
    return "shrunk"


async def _announce_tools(ctx: Context) -> None:
    # Both eras: listen streams (2026-07-28) and the session notification (2025).
    await ctx.notify_tools_changed()
    await ctx.session.send_tool_list_changed()


@server.tool(description="Add a prompt and announce it.")
async def add_prompt(ctx: Context) -> str:
    server.prompt(name="late", description="Added at run time.")(lambda: "late prompt")
    await ctx.notify_prompts_changed()
    await ctx.session.send_prompt_list_changed()
    return "ok"


@server.tool(description="Change the counter resource and announce it.")
async def bump(ctx: Context) -> str:
    _counter["value"] += 1
    await ctx.notify_resource_updated("memo://counter")
    await ctx.session.send_resource_updated("memo://counter")
    return str(_counter["value"])


@server.tool(description="Report progress three times, then finish.")
async def slow_count(ctx: Context) -> str:
    for step in range(1, 4):
        await ctx.report_progress(step, 3, f"step {step}")
    return "counted"


@server.tool(description="Wait until cancelled; writes 'cancelled MARKER' to stderr.")
async def wait_forever(marker: str) -> str:
    print(f"started {marker}", file=sys.stderr, flush=True)
    try:
        await anyio.sleep_forever()
    except anyio.get_cancelled_exc_class():
        print(f"cancelled {marker}", file=sys.stderr, flush=True)
        raise
    return "unreachable"


class Contact(BaseModel):
    name: str = Field(description="Your name")
    age: int = Field(description="Your age")


def ask_contact() -> Elicit[Contact]:
    return Elicit("Who are you?", Contact)


@server.tool(description="Ask the user for their name and age.")
async def register(
    contact: Annotated[ElicitationResult[Contact], Resolve(ask_contact)],
) -> str:
    # Resolve works in both eras: an input_required round (2026-07-28) or a
    # standalone elicitation/create request mid-call (2025).
    if isinstance(contact, AcceptedElicitation):
        return f"registered {contact.data.name} ({contact.data.age})"
    return f"not registered: {contact.action}"


def ask_haiku(topic: str) -> Sample:
    text = TextContent(type="text", text=f"A haiku on {topic}")
    message = SamplingMessage(role="user", content=text)
    return Sample([message], max_tokens=50, system_prompt="You write haiku.")


@server.tool(description="Ask the client's model for a haiku about a topic.")
async def haiku(topic: str, result: Annotated[CreateMessageResult, Resolve(ask_haiku)]) -> str:
    content = result.content
    text = content.text if isinstance(content, TextContent) else str(content)
    return f"model {result.model} said: {text}"


@server.prompt(description="Review some code in a language.")
def review(language: str, focus: str = "bugs") -> list[dict[str, str]]:
    return [
        {"role": "user", "content": f"Review this {language} code for {focus}."},
        {"role": "assistant", "content": "Paste it and I will."},
    ]


@server.prompt(description="Say hello.")
def hello() -> str:
    return "Hello from the prompt"


@server.resource("memo://readme", name="readme", mime_type="text/markdown")
def readme() -> str:
    return "# Read me\nThe feature server."


@server.resource("memo://pixel", name="pixel", mime_type="image/png")
def pixel() -> bytes:
    return PNG


@server.resource("memo://counter", name="counter", mime_type="text/plain")
def counter() -> str:
    return f"counter={_counter['value']}"


@server.resource("memo://notes/{topic}", name="notes", mime_type="text/plain")
def notes(topic: str) -> str:
    return f"notes about {topic}"


async def _subscribe(ctx: Any, params: SubscribeRequestParams) -> EmptyResult:
    # MCPServer serves only 2026-07-28 listen streams; 2025 clients subscribe like this.
    return EmptyResult()


server._lowlevel_server.add_request_handler(
    "resources/subscribe", SubscribeRequestParams, _subscribe)


def _serve_http() -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning", lifespan="on")
    print(sock.getsockname()[1], flush=True)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    if (sys.argv[1] if len(sys.argv) > 1 else "stdio") == "stdio":
        server.run("stdio")
    else:
        _serve_http()
