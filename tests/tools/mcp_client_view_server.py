"""An MCP server (official SDK) for what the other test servers leave out: it reports
the capabilities the client declared, asks the user in URL mode to open a page (the
out-of-band flows MCP uses for credentials or payments), and adds a resource while
connected, announcing the changed list. Run ``python mcp_client_view_server.py``
(stdio)."""

from __future__ import annotations

# (run as a program while a test keeps a warm copy of it, the copy serves: mcp_warm.py)
import mcp_warm  # noqa: F401  # isort: skip
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("viewer", version="1.0")


@server.tool(description="The capabilities the client declared, as JSON.")
async def client_capabilities(ctx: Context) -> str:
    declared = ctx.client_capabilities
    return declared.model_dump_json(exclude_none=True, by_alias=True) if declared else "null"


@server.tool(description="Ask the user to connect an account on a web page.")
async def connect(ctx: Context) -> str:
    answer = await ctx.elicit_url("Connect your calendar account",
                                  "https://calendar.example/connect?state=42", "link-42")
    return f"connect: {answer.action}"


@server.resource("memo://first", name="first", mime_type="text/plain")
def first() -> str:
    return "the first memo"


@server.tool(description="Add a resource and announce the changed list.")
async def add_resource(ctx: Context) -> str:
    server.resource("memo://late", name="late", mime_type="text/plain")(lambda: "late memo")
    # Both eras: listen streams (2026-07-28) and the session notification (2025).
    await ctx.notify_resources_changed()
    await ctx.session.send_resource_list_changed()
    return "added"


if __name__ == "__main__":
    server.run("stdio")
